package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rynodb/rynodb/ryno"
)

// Predicates: a person follows people and wrote posts. Each subject keeps an ordered
// list of objects per predicate.
const (
	follows = "follows"
	wrote   = "wrote"
)

var (
	p1 = ryno.Key{Scope: "acme", Type: "post", ID: "p1"}
	p2 = ryno.Key{Scope: "acme", Type: "post", ID: "p2"}
	p3 = ryno.Key{Scope: "acme", Type: "post", ID: "p3"}
)

func connect(ctx context.Context, db *ryno.Client) error {
	posts := []*ryno.Entity{
		newPost(p1, "Notes on the Analytical Engine", "2026-02-23T09:00:00Z"),
		newPost(p2, "Bernoulli numbers by machine", "2026-03-09T17:30:00Z"),
		newPost(p3, "A moth in the Mark II", "2026-03-16T14:00:00Z"),
	}
	for _, p := range posts {
		if _, err := db.Set(ctx, p); err != nil {
			return err
		}
		fmt.Printf("   set %-6s %-34q published %s\n", p.ID+":", p.Attributes["title"], p.Attributes["published"])
	}
	people := []struct {
		key   ryno.Key
		lists map[string][]ryno.Key
	}{
		{ada, map[string][]ryno.Key{follows: {grace, alan}, wrote: {p1, p2}}},
		{grace, map[string][]ryno.Key{follows: {ada}, wrote: {p3}}},
		{alan, map[string][]ryno.Key{follows: {grace, ada}}},
	}
	for _, p := range people {
		if err := setLists(ctx, db, p.key, p.lists); err != nil {
			return err
		}
	}
	fmt.Println("   (each person was read, then written back with ryno.ReplaceLists: the entity and its lists in one transaction)")
	return nil
}

// newPost returns a post with its title and publication time, in RFC 3339.
func newPost(k ryno.Key, title, published string) *ryno.Entity {
	return &ryno.Entity{Key: k, Attributes: map[string]any{"title": title, "published": published}}
}

// setLists writes the person back with the relationship lists: the predicates given
// are replaced, the others left alone.
func setLists(ctx context.Context, db *ryno.Client, person ryno.Key, lists map[string][]ryno.Key) error {
	e, err := db.Get(ctx, person)
	if err != nil {
		return err
	}
	stored, err := db.Set(ctx, e, ryno.ReplaceLists(lists))
	if err != nil {
		return err
	}
	fmt.Printf("   set %-6s %s\n", stored.ID+":", describeLists(lists))
	return nil
}

func readLists(ctx context.Context, db *ryno.Client) error {
	following, err := db.Relationships(ctx, ada, follows, ryno.PageOptions{})
	if err != nil {
		return err
	}
	fmt.Printf("   Relationships(ada, %q): %s\n", follows, positions(following.Items))
	posts, err := db.RelatedEntities(ctx, ada, wrote, ryno.PageOptions{})
	if err != nil {
		return err
	}
	titles := make([]string, len(posts.Items))
	for i, p := range posts.Items {
		titles[i] = fmt.Sprintf("%s %q", p.ID, p.Attributes["title"])
	}
	fmt.Printf("   RelatedEntities(ada, %q): %s\n", wrote, strings.Join(titles, ", "))
	return nil
}

func whoFollowsAda(ctx context.Context, db *ryno.Client) error {
	if err := printFollowers(ctx, db, ada); err != nil {
		return err
	}
	for _, edge := range [][2]ryno.Key{{alan, grace}, {grace, alan}} {
		ok, err := db.HasRelationship(ctx, edge[0], follows, edge[1])
		if err != nil {
			return err
		}
		fmt.Printf("   HasRelationship(%s, %q, %s): %t\n", edge[0].ID, follows, edge[1].ID, ok)
	}
	return nil
}

func graceFollowsAlan(ctx context.Context, db *ryno.Client) error {
	added, err := db.AddRelationships(ctx, grace, follows, []ryno.Key{alan, ada})
	if err != nil {
		return err
	}
	fmt.Printf("   AddRelationships(grace, %q, alan, ada): added %s; ada was there already\n", follows, ids(added))
	return printList(ctx, db, grace, follows)
}

func adaUnfollowsGrace(ctx context.Context, db *ryno.Client) error {
	removed, err := db.RemoveRelationships(ctx, ada, follows, []ryno.Key{grace})
	if err != nil {
		return err
	}
	fmt.Printf("   RemoveRelationships(ada, %q, grace): removed %s\n", follows, ids(removed))
	if err := printList(ctx, db, ada, follows); err != nil {
		return err
	}
	fmt.Println("   (the removal left a gap: positions only order the list)")
	return nil
}

func reorderPosts(ctx context.Context, db *ryno.Client) error {
	if err := db.ReplaceRelationships(ctx, ada, wrote, []ryno.Key{p2, p1}); err != nil {
		return err
	}
	fmt.Printf("   ReplaceRelationships(ada, %q, p2, p1): only the entries that change are written\n", wrote)
	return printList(ctx, db, ada, wrote)
}

func getWithLists(ctx context.Context, db *ryno.Client) error {
	e, err := db.Get(ctx, ada, ryno.WithRelationships())
	if err != nil {
		return err
	}
	fmt.Printf("   attributes:    %v\n", e.Attributes)
	fmt.Printf("   relationships: %s\n", describeLists(e.Relationships))
	return nil
}

func likeInOneTransaction(ctx context.Context, db *ryno.Client) error {
	res, err := db.Transact(ctx,
		ryno.TxAddRelationships(grace, "likes", []ryno.Key{p1}),
		ryno.TxPatch(p1, ryno.Patch{Add: map[string]any{"likes": 1}}),
	)
	if err != nil {
		return err
	}
	fmt.Println("   Transact(TxAddRelationships(grace, \"likes\", p1), TxPatch(p1, Add likes 1)):")
	fmt.Printf("   added %s; p1 has %v like(s), version %d: both or neither\n",
		ids(res[0].Changed), res[1].Entity.Attributes["likes"], res[1].Entity.Version)
	_, err = db.Transact(ctx,
		ryno.TxAddRelationships(grace, "likes", []ryno.Key{p1}),
		ryno.TxCheck(p1, ryno.Attr("likes").Less(1)),
	)
	fmt.Printf("   a transaction whose check fails writes nothing:\n   %v\n", err)
	return nil
}

func alanHasNoEdges(ctx context.Context, db *ryno.Client) error {
	own, err := db.Relationships(ctx, alan, "", ryno.PageOptions{})
	if err != nil {
		return err
	}
	fmt.Printf("   Relationships(alan, every predicate): %s\n", positions(own.Items))
	if err := printFollowers(ctx, db, alan); err != nil {
		return err
	}
	for _, person := range []ryno.Key{ada, grace} {
		if err := printList(ctx, db, person, follows); err != nil {
			return err
		}
	}
	return nil
}

// printList prints the subject's whole list under predicate.
func printList(ctx context.Context, db *ryno.Client, subject ryno.Key, predicate string) error {
	var list []ryno.Relationship
	for r, err := range db.AllRelationships(ctx, subject, predicate, ryno.PageOptions{}) {
		if err != nil {
			return err
		}
		list = append(list, r)
	}
	fmt.Printf("   %s %s: %s\n", subject.ID, predicate, positions(list))
	return nil
}

// printFollowers prints who follows object, through the reverse index. The index
// is eventually consistent on DynamoDB; on DynamoDB Local it is current at once.
func printFollowers(ctx context.Context, db *ryno.Client, object ryno.Key) error {
	page, err := db.ReverseRelationships(ctx, object, follows, ryno.PageOptions{})
	if err != nil {
		return err
	}
	subjects := make([]string, len(page.Items))
	for i, r := range page.Items {
		subjects[i] = fmt.Sprintf("%s (#%d)", r.Subject.ID, r.Index)
	}
	fmt.Printf("   ReverseRelationships(%s, %q): %s\n", object.ID, follows, orNone(subjects))
	return nil
}

// positions describes relationships as "#0 grace, #1 alan".
func positions(rels []ryno.Relationship) string {
	entries := make([]string, len(rels))
	for i, r := range rels {
		entries[i] = fmt.Sprintf("#%d %s", r.Index, r.Object.ID)
	}
	return orNone(entries)
}

// describeLists describes relationship lists as "follows [grace alan], wrote [p1]".
func describeLists(lists map[string][]ryno.Key) string {
	var parts []string
	for _, p := range slices.Sorted(maps.Keys(lists)) {
		ids := make([]string, len(lists[p]))
		for i, k := range lists[p] {
			ids[i] = k.ID
		}
		parts = append(parts, fmt.Sprintf("%s [%s]", p, strings.Join(ids, " ")))
	}
	return orNone(parts)
}

func orNone(items []string) string {
	if len(items) == 0 {
		return "none"
	}
	return strings.Join(items, ", ")
}

// ids returns the ids of keys, joined for printing.
func ids(keys []ryno.Key) string {
	s := make([]string, len(keys))
	for i, k := range keys {
		s[i] = k.ID
	}
	return strings.Join(s, ", ")
}
