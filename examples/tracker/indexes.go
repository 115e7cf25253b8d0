package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/ryno"
)

// Index names. A query names an index together with a scope.
const (
	byEmail     = "email"
	byAge       = "age"
	byPublished = "published"
)

// indexes are registered with ryno.New. Each map function emits the values an entity
// is found under; the store keeps the index entries in step with every write.
var indexes = []ryno.Index{
	{Type: "person", Name: byEmail, Map: emitEmail, Project: []string{"name"}, Unique: true},
	{Type: "person", Name: byAge, Map: emitAge},
	{Type: "post", Name: byPublished, Map: emitPublished},
	// One tuple per issue: inline, on the issue item itself, so creating an issue
	// writes no index entry and a page of the query is one Query.
	{Type: "issue", Name: byStatus, Map: emitStatus, Inline: 1},
}

func emitEmail(e *ryno.Entity, emit func(indexing.Value)) {
	if email, ok := e.Attributes["email"].(string); ok {
		emit(indexing.String(email))
	}
}

// emitAge sees the entity as stored: its numbers are json.Number.
func emitAge(e *ryno.Entity, emit func(indexing.Value)) {
	if n, ok := e.Attributes["age"].(json.Number); ok {
		if age, err := n.Int64(); err == nil {
			emit(indexing.Int(age))
		}
	}
}

// emitPublished indexes a post under its publication time, written in RFC 3339.
func emitPublished(e *ryno.Entity, emit func(indexing.Value)) {
	if s, ok := e.Attributes["published"].(string); ok {
		if t, err := time.Parse(time.RFC3339, s); err == nil {
			emit(indexing.Time(t))
		}
	}
}

func listIndexes(ctx context.Context, db *ryno.Client) error {
	for _, ix := range indexes {
		page, err := db.QueryIndexEntries(ctx, ryno.ScopedIndex{Scope: "acme", Index: ix.Name}, indexing.All(), ryno.PageOptions{})
		if err != nil {
			return err
		}
		projects := ""
		if len(ix.Project) > 0 {
			projects = ", projecting " + strings.Join(ix.Project, ", ")
		}
		fmt.Printf("   %-9s on %s%s: %d entries\n", ix.Name, ix.Type, projects, len(page.Items))
	}
	return nil
}

func findByEmail(ctx context.Context, db *ryno.Client) error {
	cond := indexing.Equal(indexing.String("grace@acme.example"))
	page, err := db.QueryIndex(ctx, ryno.ScopedIndex{Scope: "acme", Index: byEmail}, cond, ryno.PageOptions{})
	if err != nil {
		return err
	}
	fmt.Printf("   QueryIndex(%q, Equal(\"grace@acme.example\")):\n", byEmail)
	for _, e := range page.Items {
		fmt.Printf("     %-6s %v\n", e.ID, e.Attributes)
	}
	fmt.Println("   (one Query on the index, then the entity read fresh: two rounds)")
	return nil
}

func emailsBeginningWithA(ctx context.Context, db *ryno.Client) error {
	if err := printEntries(ctx, db, byEmail, `BeginsWith("a")`, indexing.BeginsWith(indexing.String("a"))); err != nil {
		return err
	}
	fmt.Println("   (one Query: each entry carries the name it projects, no entity is read)")
	return nil
}

func agedBetween(ctx context.Context, db *ryno.Client) error {
	cond := indexing.Between(indexing.Int(30), indexing.Int(45))
	page, err := db.QueryIndex(ctx, ryno.ScopedIndex{Scope: "acme", Index: byAge}, cond, ryno.PageOptions{})
	if err != nil {
		return err
	}
	fmt.Printf("   QueryIndex(%q, Between(30, 45)):\n", byAge)
	for _, e := range page.Items {
		fmt.Printf("     %-6s %-13s age %v\n", e.ID, e.Attributes["name"], e.Attributes["age"])
	}
	return nil
}

func graceBirthday(ctx context.Context, db *ryno.Client) error {
	from80 := indexing.GreaterOrEqual(indexing.Int(80))
	if err := printEntries(ctx, db, byAge, "GreaterOrEqual(80)", from80); err != nil {
		return err
	}
	e, err := db.Patch(ctx, grace, ryno.Patch{Add: map[string]any{"age": 1}})
	if err != nil {
		return err
	}
	fmt.Printf("   Patch(grace, Add age 1): her type is indexed, so the map functions must see the sum:\n")
	fmt.Printf("   read her, read her entries, then one transaction writes her (age %v) with the\n", e.Attributes["age"])
	fmt.Printf("   entry changes: the entry for 85 deleted, the one for 86 put\n")
	return printEntries(ctx, db, byAge, "GreaterOrEqual(80)", from80)
}

func publishedInMarch(ctx context.Context, db *ryno.Client) error {
	from := time.Date(2026, time.March, 1, 0, 0, 0, 0, time.UTC)
	to := from.AddDate(0, 1, 0).Add(-time.Nanosecond) // Between includes both ends
	cond := indexing.Between(indexing.Time(from), indexing.Time(to))
	page, err := db.QueryIndex(ctx, ryno.ScopedIndex{Scope: "acme", Index: byPublished}, cond, ryno.PageOptions{Descending: true})
	if err != nil {
		return err
	}
	fmt.Printf("   QueryIndex(%q, Between(%s, %s), Descending):\n",
		byPublished, from.Format(time.RFC3339Nano), to.Format(time.RFC3339Nano))
	for _, p := range page.Items {
		fmt.Printf("     %-6s %s  %q\n", p.ID, p.Attributes["published"], p.Attributes["title"])
	}
	fmt.Println("   (p1, published in February, is outside the window)")
	return nil
}

func nothingOfAlanIsLeft(ctx context.Context, db *ryno.Client) error {
	if err := alanHasNoEdges(ctx, db); err != nil {
		return err
	}
	return printEntries(ctx, db, byEmail, `BeginsWith("a")`, indexing.BeginsWith(indexing.String("a")))
}

// printEntries prints the entries of the index that match cond, which condition
// describes.
func printEntries(ctx context.Context, db *ryno.Client, index, condition string, cond indexing.Condition) error {
	page, err := db.QueryIndexEntries(ctx, ryno.ScopedIndex{Scope: "acme", Index: index}, cond, ryno.PageOptions{})
	if err != nil {
		return err
	}
	fmt.Printf("   QueryIndexEntries(%q, %s):", index, condition)
	if len(page.Items) == 0 {
		fmt.Print(" none")
	}
	fmt.Println()
	for _, line := range entryLines(page.Items) {
		fmt.Println("     " + line)
	}
	return nil
}

// entryLines describes entries as "value -> entity id", the values aligned, followed
// by the projected attributes.
func entryLines(entries []ryno.IndexEntry) []string {
	values, width := make([]string, len(entries)), 0
	for i, e := range entries {
		values[i] = fmt.Sprint(e.Value.Interface())
		width = max(width, len(values[i]))
	}
	lines := make([]string, len(entries))
	for i, e := range entries {
		lines[i] = fmt.Sprintf("%-*s -> %s", width, values[i], e.Key.ID)
		if len(e.Attributes) > 0 {
			lines[i] += fmt.Sprintf(" %v", e.Attributes)
		}
	}
	return lines
}
