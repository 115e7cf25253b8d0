package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"
	"time"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/ryno"
)

var (
	ada   = ryno.Key{Scope: "acme", Type: "person", ID: "ada"}
	grace = ryno.Key{Scope: "acme", Type: "person", ID: "grace"}
	alan  = ryno.Key{Scope: "acme", Type: "person", ID: "alan"}
)

func cleanSlate(ctx context.Context, db *ryno.Client) error {
	for _, k := range []ryno.Key{ada, grace, alan, adaStats, p1, p2, p3} {
		if err := db.Delete(ctx, k); err != nil {
			return err
		}
	}
	if err := cleanIssues(ctx, db); err != nil {
		return err
	}
	fmt.Println("   deleted people ada, grace and alan, ada's stats, posts p1, p2 and p3, the project rocket and its issues if they existed")
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
	if !errors.Is(err, ryno.ErrExists) {
		return fmt.Errorf("want ErrExists, got %v", err)
	}
	fmt.Printf("   refused: %v\n", err)
	return nil
}

func sameEmail(ctx context.Context, db *ryno.Client) error {
	_, err := db.Create(ctx, &ryno.Entity{Key: ryno.Key{Scope: "acme", Type: "person", ID: "imposter"},
		Attributes: map[string]any{"name": "Not Grace", "email": "grace@acme.example"}})
	var taken *ryno.UniqueError
	if !errors.As(err, &taken) {
		return fmt.Errorf("want a *UniqueError, got %v", err)
	}
	fmt.Printf("   refused: %v\n", err)
	owner, err := db.LookupUnique(ctx, ryno.ScopedIndex{Scope: "acme", Index: byEmail}, indexing.String("grace@acme.example"))
	if err != nil {
		return err
	}
	fmt.Printf("   LookupUnique(%q, \"grace@acme.example\"): %s (one GetItem of the value's claim)\n", byEmail, owner.ID)
	return nil
}

// staleGrace is Grace as read before updateGrace wrote her: a copy another process
// might still hold.
var staleGrace *ryno.Entity

func updateGrace(ctx context.Context, db *ryno.Client) error {
	e, err := db.Get(ctx, grace)
	if err != nil {
		return err
	}
	staleGrace = &ryno.Entity{Key: e.Key, Attributes: maps.Clone(e.Attributes), Created: e.Created, Version: e.Version}
	e.Attributes["rank"] = "Rear Admiral"
	updated, err := db.Update(ctx, e)
	if err != nil {
		return err
	}
	fmt.Printf("   read grace at version %d, added rank, wrote her back conditional on that version\n", e.Version)
	fmt.Printf("   now version %d; created %s (kept), updated %s (moved)\n", updated.Version, stamp(updated.Created), stamp(updated.Updated))
	return nil
}

func staleUpdate(ctx context.Context, db *ryno.Client) error {
	staleGrace.Attributes["rank"] = "Captain"
	_, err := db.Update(ctx, staleGrace)
	var conflict *ryno.ConflictError
	if !errors.As(err, &conflict) {
		return fmt.Errorf("want a *ConflictError, got %v", err)
	}
	fmt.Printf("   an Update of the copy read at version %d is refused, and writes nothing:\n   %v\n", staleGrace.Version, err)
	fmt.Println("   (read again and retry, or let Modify do it)")
	return nil
}

// adaStats holds counters about Ada. Its type has no index, so a Patch of it is one
// request.
var adaStats = ryno.Key{Scope: "acme", Type: "stats", ID: "ada"}

func countVisits(ctx context.Context, db *ryno.Client) error {
	if _, err := db.Set(ctx, &ryno.Entity{Key: adaStats, Attributes: map[string]any{"visits": 0}}); err != nil {
		return err
	}
	var wg sync.WaitGroup
	errs := make(chan error, 10)
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := db.Patch(ctx, adaStats, ryno.Patch{Add: map[string]any{"visits": 1}})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	stats, err := db.Get(ctx, adaStats)
	if err != nil {
		return err
	}
	fmt.Printf("   10 goroutines at once: Patch(stats, Add visits 1), one UpdateItem each\n")
	fmt.Printf("   visits %v, version %d: no increment lost\n", stats.Attributes["visits"], stats.Version)

	e, err := db.Modify(ctx, ada, func(e *ryno.Entity) error {
		e.Attributes["title"] = "Countess of Lovelace"
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Printf("   Modify(ada, set title): read, change, write conditional on the version read\n")
	fmt.Printf("   (retried on conflict): title %q, version %d\n", e.Attributes["title"], e.Version)
	return nil
}

func pagePeople(ctx context.Context, db *ryno.Client) error {
	p := ryno.PageOptions{Limit: 2, Descending: true}
	for n := 1; ; n++ {
		page, err := db.ListByType(ctx, ryno.Type{Scope: "acme", Name: "person"}, p)
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

// person is how a service holds a person: a struct of its own, with the entity's
// key, timestamps and version in the embedded ryno.Record.
type person struct {
	ryno.Record
	Name  string `dynamodbav:"name" json:"name"`
	Email string `dynamodbav:"email" json:"email"`
	Age   int    `dynamodbav:"age" json:"age"`
}

func readAsStruct(ctx context.Context, db *ryno.Client) error {
	p, err := ryno.GetAs[person](ctx, db, alan)
	if err != nil {
		return err
	}
	fmt.Printf("   GetAs[person](alan): %s <%s>, %d, version %d\n", p.Name, p.Email, p.Age, p.Version)
	e, err := db.Get(ctx, alan)
	if err != nil {
		return err
	}
	attrs, err := json.Marshal(e.Attributes)
	if err != nil {
		return err
	}
	fmt.Printf("   Get(alan) attributes as JSON: %s (numbers stay numbers)\n", attrs)
	return nil
}
