package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rynodb/rynodb/ryno"
)

var (
	ada   = ryno.Key{Scope: "acme", Type: "person", ID: "ada"}
	grace = ryno.Key{Scope: "acme", Type: "person", ID: "grace"}
	alan  = ryno.Key{Scope: "acme", Type: "person", ID: "alan"}
)

func cleanSlate(ctx context.Context, db *ryno.Client) error {
	for _, k := range []ryno.Key{ada, grace, alan, p1, p2, p3} {
		if err := db.Delete(ctx, k); err != nil {
			return err
		}
	}
	fmt.Println("   deleted people ada, grace and alan and posts p1, p2 and p3 if they existed")
	fmt.Println("   (Delete is idempotent, and takes the entity's relationships and index entries with it)")
	return nil
}

func createPeople(ctx context.Context, db *ryno.Client) error {
	people := []*ryno.Entity{
		{Key: ada, Attributes: map[string]any{"name": "Ada Lovelace", "email": "ada@acme.example", "age": 36}},
		{Key: grace, Attributes: map[string]any{"name": "Grace Hopper", "email": "grace@acme.example", "age": 85}},
		{Key: alan, Attributes: map[string]any{"name": "Alan Turing", "email": "alan@acme.example", "age": 41}},
	}
	for _, p := range people {
		e, err := db.Create(ctx, p)
		if err != nil {
			return err
		}
		fmt.Printf("   created %-6s %-13s age %v, %-18s created %s\n",
			e.ID, e.Attributes["name"], e.Attributes["age"], e.Attributes["email"], stamp(e.Created))
		time.Sleep(5 * time.Millisecond) // distinct Updated times make the paging order visible
	}
	return nil
}

func createAgain(ctx context.Context, db *ryno.Client) error {
	_, err := db.Create(ctx, &ryno.Entity{Key: ada, Attributes: map[string]any{"name": "someone else"}})
	if !errors.Is(err, ryno.ErrConflict) {
		return fmt.Errorf("want ErrConflict, got %v", err)
	}
	fmt.Printf("   refused: %v\n", err)
	return nil
}

func updateGrace(ctx context.Context, db *ryno.Client) error {
	e, err := db.Get(ctx, grace)
	if err != nil {
		return err
	}
	e.Attributes["rank"] = "Rear Admiral"
	updated, err := db.Update(ctx, e)
	if err != nil {
		return err
	}
	fmt.Printf("   read grace, added rank, wrote her back with one conditional put\n")
	fmt.Printf("   created %s (kept), updated %s (moved)\n", stamp(updated.Created), stamp(updated.Updated))
	return nil
}

func pagePeople(ctx context.Context, db *ryno.Client) error {
	p := ryno.PageOptions{Limit: 2, Descending: true}
	for n := 1; ; n++ {
		page, err := db.ListByType(ctx, "acme", "person", p)
		if err != nil {
			return err
		}
		var ids []string
		for _, e := range page.Items {
			ids = append(ids, fmt.Sprintf("%s (updated %s)", e.ID, stamp(e.Updated)))
		}
		fmt.Printf("   page %d: %s\n", n, strings.Join(ids, ", "))
		if page.Cursor == "" {
			return nil
		}
		p.Cursor = page.Cursor
	}
}

func deleteAlan(ctx context.Context, db *ryno.Client) error {
	if err := db.Delete(ctx, alan); err != nil {
		return err
	}
	_, err := db.Get(ctx, alan)
	if !errors.Is(err, ryno.ErrNotFound) {
		return fmt.Errorf("want ErrNotFound, got %v", err)
	}
	fmt.Printf("   deleted alan; reading him now gives: %v\n", err)
	return nil
}

func batchGet(ctx context.Context, db *ryno.Client) error {
	keys := []ryno.Key{ada, alan, grace}
	entities, err := db.BatchGet(ctx, keys)
	if err != nil {
		return err
	}
	for i, e := range entities {
		if e == nil {
			fmt.Printf("   %-6s missing\n", keys[i].ID)
			continue
		}
		fmt.Printf("   %-6s %v\n", e.ID, e.Attributes)
	}
	return nil
}

func stamp(t time.Time) string { return t.Format("15:04:05.000") }
