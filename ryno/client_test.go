package ryno

import (
	"context"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/indexing"
)

func TestNewRefusesANilClient(t *testing.T) {
	var client *dynamodb.Client
	var fake *nilAPI
	tests := []struct {
		name string
		api  DynamoDBAPI
	}{
		{"nil", nil},
		{"nil *dynamodb.Client", client},
		{"nil pointer of another type", fake},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, err := New(tt.api, Options{TablePrefix: "app"})
			require.Nil(t, db)
			requireInvalidField(t, err, "api")
		})
	}
}

func TestNewRefusesInvalidOwns(t *testing.T) {
	tests := []struct {
		name  string
		owns  Owns
		field string
	}{
		{"no owner type", Owns{Predicate: "issues"}, "Options.Owns[0].Type"},
		{"no predicate", Owns{Type: "project"}, "predicate"}, // wrapped in "Options.Owns[0].Predicate"
		{"an object type with a control character", Owns{Type: "project", Predicate: "issues", ObjectType: "is\x00sue"}, "Options.Owns[0].ObjectType"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, err := New(&nilAPI{}, Options{TablePrefix: "app", Owns: []Owns{tt.owns}})
			require.Nil(t, db)
			requireInvalidField(t, err, tt.field)
		})
	}
	db, err := New(&nilAPI{}, Options{TablePrefix: "app", Owns: []Owns{{Type: "project", Predicate: "issues", ObjectType: "issue"}}})
	require.NoError(t, err)
	require.True(t, db.core.ChecksOwners("issue"), "reads of issues check their owners")
	require.False(t, db.core.ChecksOwners("project"))

	db, err = New(&nilAPI{}, Options{TablePrefix: "app", Owns: []Owns{
		{Type: "project", Predicate: "items", ObjectType: "issue"},
		{Type: "project", Predicate: "items", ObjectType: "note"},
	}})
	require.NoError(t, err)
	require.Equal(t, []string{"items"}, db.core.Owns["project"], "a list owning two object types is deleted once")
	require.True(t, db.core.ChecksOwners("note"))
}

// TestNilContextIsRefused calls every method that takes a context with a nil one:
// each returns an error matching ErrInvalid, sends no request and does not panic,
// whether the client is observed or not.
func TestNilContextIsRefused(t *testing.T) {
	var nilCtx context.Context // a nil context, as a caller may pass by mistake
	k := Key{Scope: "s", Type: "t", ID: "i"}
	si := ScopedIndex{Scope: "s", Index: "age"}
	cond := indexing.Equal(indexing.Int(1))
	type book struct {
		Record
		Title string `dynamodbav:"title"`
	}
	first := func(seqErr func(yield func(error) bool)) error {
		var err error
		seqErr(func(e error) bool { err = e; return false })
		return err
	}
	calls := map[string]func(db *Client) error{
		"Get":          func(db *Client) error { _, err := db.Get(nilCtx, k); return err },
		"BatchGet":     func(db *Client) error { _, err := db.BatchGet(nilCtx, []Key{k}); return err },
		"Create":       func(db *Client) error { _, err := db.Create(nilCtx, &Entity{Key: k}); return err },
		"Update":       func(db *Client) error { _, err := db.Update(nilCtx, &Entity{Key: k}); return err },
		"Set":          func(db *Client) error { _, err := db.Set(nilCtx, &Entity{Key: k}); return err },
		"Modify":       func(db *Client) error { _, err := db.Modify(nilCtx, k, func(*Entity) error { return nil }); return err },
		"Patch":        func(db *Client) error { _, err := db.Patch(nilCtx, k, Patch{Set: map[string]any{"a": 1}}); return err },
		"Delete":       func(db *Client) error { return db.Delete(nilCtx, k) },
		"ListByType":   func(db *Client) error { _, err := db.ListByType(nilCtx, k.TypeOf(), PageOptions{}); return err },
		"CheckSchema":  func(db *Client) error { return db.CheckSchema(nilCtx) },
		"Check":        func(db *Client) error { _, err := db.Check(nilCtx, CheckOptions{}); return err },
		"Reindex":      func(db *Client) error { _, err := db.Reindex(nilCtx, k.TypeOf(), nil); return err },
		"Transact":     func(db *Client) error { _, err := db.Transact(nilCtx, TxSet(&Entity{Key: k})); return err },
		"LookupUnique": func(db *Client) error { _, err := db.LookupUnique(nilCtx, si, indexing.Int(1)); return err },
		"GetByUnique":  func(db *Client) error { _, err := db.GetByUnique(nilCtx, si, indexing.Int(1)); return err },
		"QueryIndex":   func(db *Client) error { _, err := db.QueryIndex(nilCtx, si, cond, PageOptions{}); return err },
		"QueryIndexEntries": func(db *Client) error {
			_, err := db.QueryIndexEntries(nilCtx, si, cond, PageOptions{})
			return err
		},
		"Relationships": func(db *Client) error { _, err := db.Relationships(nilCtx, k, "p", PageOptions{}); return err },
		"RelatedEntities": func(db *Client) error {
			_, err := db.RelatedEntities(nilCtx, k, "p", PageOptions{})
			return err
		},
		"ReverseRelationships": func(db *Client) error {
			_, err := db.ReverseRelationships(nilCtx, k, "p", PageOptions{})
			return err
		},
		"HasRelationship":    func(db *Client) error { _, err := db.HasRelationship(nilCtx, k, "p", k); return err },
		"CountRelationships": func(db *Client) error { _, err := db.CountRelationships(nilCtx, k, "p"); return err },
		"AddRelationships":   func(db *Client) error { _, err := db.AddRelationships(nilCtx, k, "p", []Key{k}); return err },
		"RemoveRelationships": func(db *Client) error {
			_, err := db.RemoveRelationships(nilCtx, k, "p", []Key{k})
			return err
		},
		"ReplaceRelationships": func(db *Client) error { return db.ReplaceRelationships(nilCtx, k, "p", []Key{k}) },
		"GetAs":                func(db *Client) error { _, err := GetAs[book](nilCtx, db, k); return err },
		"CreateAs":             func(db *Client) error { return CreateAs(nilCtx, db, &book{Record: Record{Key: k}}) },
		"UpdateAs":             func(db *Client) error { return UpdateAs(nilCtx, db, &book{Record: Record{Key: k}}) },
		"SetAs":                func(db *Client) error { return SetAs(nilCtx, db, &book{Record: Record{Key: k}}) },
		"AllByType": func(db *Client) error {
			return first(func(yield func(error) bool) {
				for _, err := range db.AllByType(nilCtx, k.TypeOf(), PageOptions{}) {
					if !yield(err) {
						return
					}
				}
			})
		},
		"AllInIndex": func(db *Client) error {
			return first(func(yield func(error) bool) {
				for _, err := range db.AllInIndex(nilCtx, si, cond, PageOptions{}) {
					if !yield(err) {
						return
					}
				}
			})
		},
		"AllIndexEntries": func(db *Client) error {
			return first(func(yield func(error) bool) {
				for _, err := range db.AllIndexEntries(nilCtx, si, cond, PageOptions{}) {
					if !yield(err) {
						return
					}
				}
			})
		},
		"AllRelationships": func(db *Client) error {
			return first(func(yield func(error) bool) {
				for _, err := range db.AllRelationships(nilCtx, k, "p", PageOptions{}) {
					if !yield(err) {
						return
					}
				}
			})
		},
		"AllRelatedEntities": func(db *Client) error {
			return first(func(yield func(error) bool) {
				for _, err := range db.AllRelatedEntities(nilCtx, k, "p", PageOptions{}) {
					if !yield(err) {
						return
					}
				}
			})
		},
		"AllReverseRelationships": func(db *Client) error {
			return first(func(yield func(error) bool) {
				for _, err := range db.AllReverseRelationships(nilCtx, k, "p", PageOptions{}) {
					if !yield(err) {
						return
					}
				}
			})
		},
	}
	indexes := []Index{{Type: "t", Name: "age", Unique: true, Map: func(*Entity, func(indexing.Value)) {}}}
	for _, observed := range []bool{false, true} {
		opts := Options{TablePrefix: "app", Indexes: indexes}
		if observed {
			opts.OnCall = func(context.Context, CallReport) {}
		}
		for name, call := range calls {
			t.Run(fmt.Sprintf("%s, observed %t", name, observed), func(t *testing.T) {
				api, sent := scriptedClient(t, 1, func(int, string, map[string]any) (int, string) { return 200, "{}" })
				db, err := New(api, opts)
				require.NoError(t, err)
				var got error
				require.NotPanics(t, func() { got = call(db) })
				requireInvalidField(t, got, "ctx")
				require.Empty(t, sent.bodies, "no request was sent")
			})
		}
	}
}
