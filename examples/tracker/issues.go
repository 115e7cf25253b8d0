package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/ryno"
)

// An issue tracker in a few lines: issues numbered per project from a sequence,
// listed and owned by their project (Options.Owns), found by an inline tuple index
// (project, status, opened), starred through a set, and watched through an ordered
// set.

var rocket = ryno.Key{Scope: "acme", Type: "project", ID: "rocket"}

// Index, list and set names of the issue tracker.
const (
	issues   = "issues" // the project's list of its issues, which it owns: declared in Options.Owns
	byStatus = "issues-by-status"
	stars    = "stars"    // a set: declared in Options.Sets
	watchers = "watchers" // an ordered set: declared in Options.OrderedSets
)

// owns declares that a project owns the issues of its list: deleting the project
// deletes them. ObjectType makes reads of issues check their project, so the
// project's Delete hides them all at its first request.
var owns = []ryno.Owns{{Type: "project", Predicate: issues, ObjectType: "issue"}}

// emitStatus indexes an issue under (project, status, opened): one tuple, ordered
// part by part, with no separator or padding to choose.
func emitStatus(e *ryno.Entity, emit func(indexing.Value)) {
	project, _ := e.Attributes["project"].(string)
	status, _ := e.Attributes["status"].(string)
	opened, err := time.Parse(time.RFC3339, fmt.Sprint(e.Attributes["opened"]))
	if project != "" && status != "" && err == nil {
		emit(indexing.Tuple(indexing.String(project), indexing.String(status), indexing.Time(opened)))
	}
}

// issueKey is the key of issue n of a project.
func issueKey(project ryno.Key, n int64) ryno.Key {
	return ryno.Key{Scope: project.Scope, Type: "issue", ID: fmt.Sprintf("%s-%d", project.ID, n)}
}

// cleanIssues deletes the project (its sequence goes with it) and its issues.
func cleanIssues(ctx context.Context, db *ryno.Client) error {
	for e, err := range db.AllByType(ctx, ryno.Type{Scope: "acme", Name: "issue"}, ryno.PageOptions{}) {
		if err != nil {
			return err
		}
		if err := db.Delete(ctx, e.Key); err != nil {
			return err
		}
	}
	return db.Delete(ctx, rocket)
}

func fileIssues(ctx context.Context, db *ryno.Client) error {
	if _, err := db.Create(ctx, &ryno.Entity{Key: rocket, Attributes: map[string]any{"name": "Rocket"}}); err != nil {
		return err
	}
	titles := []string{"Fuel leak", "Wobbly fin", "Paint peels", "Countdown skips 7", "Hatch sticks"}
	base := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	numbers := make([]int64, len(titles))
	errs := make([]error, len(titles))
	var wg sync.WaitGroup
	for i := range titles { // filed at once, by five requests
		wg.Add(1)
		go func() {
			defer wg.Done()
			numbers[i], _, errs[i] = db.TransactNext(ctx, rocket, "issues", func(n int64) ([]ryno.Op, error) {
				issue := issueKey(rocket, n)
				return []ryno.Op{ryno.TxCreate(&ryno.Entity{Key: issue, Attributes: map[string]any{
					"project": rocket.ID, "number": n, "title": titles[(n-1)%int64(len(titles))], "status": "open",
					"opened": base.Add(time.Duration(n) * 24 * time.Hour).Format(time.RFC3339),
				}}), ryno.TxAddRelationships(rocket, issues, []ryno.Key{issue})}, nil
			})
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	slices.Sort(numbers)
	last, err := db.Sequence(ctx, rocket, "issues")
	if err != nil {
		return err
	}
	fmt.Printf("   five issues filed at once got the numbers %v; the sequence's last is %d\n", numbers, last)
	fmt.Println("   (each number is drawn in the same transaction as its issue, which the project's list gains: no gap, no repeat)")
	return nil
}

func deleteProject(ctx context.Context, db *ryno.Client) error {
	n, err := db.CountRelationships(ctx, rocket, issues)
	if err != nil {
		return err
	}
	fmt.Printf("   the project lists %d issues, and Options.Owns says it owns them\n", n)
	if err := db.Delete(ctx, rocket, ryno.InBackground()); err != nil {
		return err
	}
	_, err = db.Get(ctx, issueKey(rocket, 1), ryno.Consistent())
	if err != nil && !errors.Is(err, ryno.ErrNotFound) {
		return err
	}
	fmt.Printf("   Delete(project, InBackground) returned at its tombstone, and issue 1 already reads as missing: %v\n", errors.Is(err, ryno.ErrNotFound))
	if err := db.Wait(ctx); err != nil {
		return err
	}
	left := 0
	for _, err := range db.AllByType(ctx, ryno.Type{Scope: "acme", Name: "issue"}, ryno.PageOptions{}) {
		if err != nil {
			return err
		}
		left++
	}
	fmt.Printf("   Delete(project) marked the issues, then deleted them with their stars and watchers: %d issues left\n", left)
	return nil
}

func openIssuesNewestFirst(ctx context.Context, db *ryno.Client) error {
	// Close issue 2, through a struct that knows only the status.
	type statusOnly struct {
		ryno.Record
		Status string `dynamodbav:"status"`
	}
	if _, err := ryno.ModifyAs(ctx, db, issueKey(rocket, 2), func(s *statusOnly) error {
		s.Status = "closed"
		return nil
	}); err != nil {
		return err
	}
	fmt.Println("   closed issue 2 with ModifyAs: its title, number and dates stay as they were")
	open := indexing.BeginsWith(indexing.Tuple(indexing.String(rocket.ID), indexing.String("open")))
	page, err := db.QueryIndex(ctx, ryno.ScopedIndex{Scope: "acme", Index: byStatus}, open, ryno.PageOptions{Descending: true})
	if err != nil {
		return err
	}
	for _, e := range page.Items {
		fmt.Printf("   #%v %-18s opened %v\n", e.Attributes["number"], e.Attributes["title"], e.Attributes["opened"])
	}
	return nil
}

func starIssue(ctx context.Context, db *ryno.Client) error {
	issue := issueKey(rocket, 1)
	people := []ryno.Key{ada, grace, ada, grace, ada}
	var wg sync.WaitGroup
	errs := make([]error, len(people))
	for i, p := range people { // concurrent writers of one set never conflict
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = db.AddRelationships(ctx, issue, stars, []ryno.Key{p})
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	n, err := db.CountRelationships(ctx, issue, stars)
	if err != nil {
		return err
	}
	fmt.Printf("   five stars from Ada and Grace, given at once: issue 1 has %d, one per person\n", n)
	return nil
}

func watchIssue(ctx context.Context, db *ryno.Client) error {
	issue := issueKey(rocket, 3)
	for _, p := range []ryno.Key{grace, ada} { // in turn: each comes after those there
		if _, err := db.AddRelationships(ctx, issue, watchers, []ryno.Key{p}); err != nil {
			return err
		}
	}
	added, err := db.AddRelationships(ctx, issue, watchers, []ryno.Key{grace})
	if err != nil {
		return err
	}
	fmt.Printf("   Grace, then Ada, start watching issue 3; Grace again adds %d: she keeps her place\n", len(added))
	if err := printWatchers(ctx, db, issue, "in the order they came"); err != nil {
		return err
	}
	// Ada first: one put, before Grace; Grace's entry stays as it is.
	if err := db.ReplaceRelationships(ctx, issue, watchers, []ryno.Key{ada, grace}); err != nil {
		return err
	}
	return printWatchers(ctx, db, issue, "after ReplaceRelationships")
}

func printWatchers(ctx context.Context, db *ryno.Client, issue ryno.Key, when string) error {
	page, err := db.Relationships(ctx, issue, watchers, ryno.PageOptions{})
	if err != nil {
		return err
	}
	var ids []string
	for _, r := range page.Items {
		ids = append(ids, r.Object.ID)
	}
	fmt.Printf("   watchers %s: %v\n", when, ids)
	return nil
}
