package integration_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/ryno"
)

// ownsTreeChecked is ownsTree with the type of each list's objects declared, so
// that reads of issues and comments check their owners.
var ownsTreeChecked = []ryno.Owns{
	{Type: "project", Predicate: "issues", ObjectType: "issue"},
	{Type: "issue", Predicate: "comments", ObjectType: "comment"},
}

// issueIDs indexes issues by their id, unique: a way to reach an issue by value.
var issueIDs = []ryno.Index{{Type: "issue", Name: "issue-id", Unique: true, Map: func(e *ryno.Entity, emit func(indexing.Value)) {
	emit(indexing.String(e.ID))
}}}

// tombstoneGate lets the first UpdateItem of the client it wraps through once
// armed (the tombstone of an owner's Delete), then holds every later request until
// released: the Delete's marking pass never begins.
type tombstoneGate struct {
	armed, passed atomic.Bool
	release       chan struct{}
}

func (g *tombstoneGate) wrap(api ryno.DynamoDBAPI) ryno.DynamoDBAPI {
	return dynamotest.Wrap(api, func(ctx context.Context, op string, send func(context.Context) error) error {
		if g.armed.Load() {
			if op == "UpdateItem" && g.passed.CompareAndSwap(false, true) {
				return send(ctx)
			}
			<-g.release
		}
		return send(ctx)
	})
}

// visibleOf returns the keys of what a BatchGet of keys returns.
func visibleOf(t *testing.T, db *ryno.Client, keys []ryno.Key) []ryno.Key {
	t.Helper()
	got, err := db.BatchGet(ctx, keys, ryno.Consistent())
	require.NoError(t, err)
	var visible []ryno.Key
	for i, e := range got {
		if e != nil {
			visible = append(visible, keys[i])
		}
	}
	return visible
}

// TestAnOwnersTombstoneHidesTheTreeFromReadsAtOnce deletes a project in the
// background and holds every request after its tombstone, so that no entity of the
// tree is marked: a reader that declares the lists' object types finds the whole
// tree missing, through every read, while another project's tree reads as it was;
// a reader that does not finds the issues and comments until the marking pass.
func TestAnOwnersTombstoneHidesTheTreeFromReadsAtOnce(t *testing.T) {
	dynamotest.Parallel(t)
	gate := &tombstoneGate{release: make(chan struct{})}
	s := newStoreOpts(t, gate.wrap, ryno.Options{Owns: ownsTree, Indexes: issueIDs})
	keys := seedTree(t, s, "rocket", 6, 2)
	other := seedTree(t, s, "boat", 2, 1)
	checked := newClientOn(t, s, ryno.Options{Owns: ownsTreeChecked, Indexes: issueIDs})
	unchecked := newClientOn(t, s, ryno.Options{Owns: ownsTree, Indexes: issueIDs})
	require.Equal(t, keys, visibleOf(t, checked, keys), "before the Delete, the tree reads as it is")

	gate.armed.Store(true)
	require.NoError(t, s.Delete(ctx, keys[0], ryno.InBackground()))
	defer func() {
		close(gate.release)
		require.NoError(t, s.Wait(ctx))
		requireTreeGone(t, s, keys)
		require.Equal(t, other, visibleOf(t, checked, other))
	}()

	require.Empty(t, visibleOf(t, checked, keys), "the whole tree reads as missing at the owner's tombstone")
	require.Equal(t, keys[1:], visibleOf(t, unchecked, keys), "without ObjectType, only the owner, until the marking pass")
	require.Equal(t, other, visibleOf(t, checked, other), "another project's tree reads as it was")

	issue, comment := treeKey("issue", "rocket-0"), treeKey("comment", "rocket-0-1")
	for _, k := range []ryno.Key{issue, comment} {
		_, err := checked.Get(ctx, k)
		require.ErrorIs(t, err, ryno.ErrNotFound, "Get %s", k)
		_, err = checked.Get(ctx, k, ryno.Consistent(), ryno.WithRelationships())
		require.ErrorIs(t, err, ryno.ErrNotFound, "Get %s with its relationships", k)
		_, err = unchecked.Get(ctx, k)
		require.NoError(t, err, "Get %s without ObjectType", k)
	}
	for _, typ := range []string{"issue", "comment"} {
		page, err := checked.ListByType(ctx, ryno.Type{Scope: "acme", Name: typ}, ryno.PageOptions{Limit: 100})
		require.NoError(t, err)
		for _, e := range page.Items {
			require.Contains(t, other, e.Key, "ListByType %s lists only the other tree", typ)
		}
		require.NotEmpty(t, page.Items, "ListByType %s lists the other tree", typ)
	}
	ids := ryno.ScopedIndex{Scope: "acme", Index: "issue-id"}
	for _, db := range []*ryno.Client{checked, unchecked} {
		page, err := db.QueryIndex(ctx, ids, indexing.BeginsWith(indexing.String("rocket-")), ryno.PageOptions{})
		require.NoError(t, err)
		if db == checked {
			require.Empty(t, page.Items, "QueryIndex of the hidden issues")
		} else {
			require.Len(t, page.Items, 6, "QueryIndex without ObjectType")
		}
	}
	_, err := checked.GetByUnique(ctx, ids, indexing.String("rocket-0"))
	require.ErrorIs(t, err, ryno.ErrNotFound, "GetByUnique of a hidden issue")
	found, err := checked.GetByUnique(ctx, ids, indexing.String("boat-0"))
	require.NoError(t, err, "GetByUnique of the other tree's issue")
	require.Equal(t, treeKey("issue", "boat-0"), found.Key)

	related, err := checked.RelatedEntities(ctx, issue, "comments", ryno.PageOptions{Limit: 10})
	require.NoError(t, err)
	require.Empty(t, related.Items, "the comments of a hidden issue")
	related, err = checked.RelatedEntities(ctx, pk("fan-rocket"), "follows", ryno.PageOptions{Limit: 10})
	require.NoError(t, err)
	require.Empty(t, related.Items, "what the fan follows of the tree: the project and an issue")
	related, err = checked.ReverseRelatedEntities(ctx, comment, "comments", ryno.PageOptions{Limit: 10})
	require.NoError(t, err)
	require.Empty(t, related.Items, "the issue listing a comment")
}

// TestReadsCheckingOwnersHideOnlyAnEndedOwnersTree checks what else the owners'
// check decides: an issue taken out of its project's list before the project's
// Delete stays, with its comments; an owner removed alone, as DynamoDB's time to
// live removes one, hides what it still lists until Cleanup deletes it; an
// ownership that loops is read once around; and a Get of a comment costs a round a
// level of owners.
func TestReadsCheckingOwnersHideOnlyAnEndedOwnersTree(t *testing.T) {
	dynamotest.Parallel(t)
	s := newStoreOpts(t, nil, ryno.Options{Owns: ownsTree})
	checked := newClientOn(t, s, ryno.Options{Owns: ownsTreeChecked})

	t.Run("taken out before the Delete", func(t *testing.T) {
		keys := seedTree(t, s, "rocket", 3, 1)
		moved, movedComment := treeKey("issue", "rocket-1"), treeKey("comment", "rocket-1-0")
		require.NoError(t, changed(s.RemoveRelationships(ctx, keys[0], "issues", []ryno.Key{moved})))
		require.NoError(t, s.Delete(ctx, keys[0]))
		require.Equal(t, []ryno.Key{moved, movedComment}, visibleOf(t, checked, keys))
	})

	t.Run("an owner removed alone", func(t *testing.T) {
		keys := seedTree(t, s, "boat", 3, 1)
		_, err := s.raw.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(s.Names().Entities),
			Key: entityKeyItem(keys[0])})
		require.NoError(t, err)
		require.Empty(t, visibleOf(t, checked, keys), "its issues and comments, still listed, read as missing")
		require.Equal(t, keys[1:], visibleOf(t, s.Client, keys), "to a reader that does not check, they read as they are")
		require.NoError(t, s.Cleanup(ctx, keys[0]))
		requireTreeGone(t, s, keys)
	})

	t.Run("ownership that loops", func(t *testing.T) {
		loop := []ryno.Owns{{Type: "node", Predicate: "children", ObjectType: "node"}}
		db := newClientOn(t, s, ryno.Options{Owns: loop})
		a, b := treeKey("node", "a"), treeKey("node", "b")
		createSubjects(t, db, a, b)
		require.NoError(t, db.ReplaceRelationships(ctx, a, "children", []ryno.Key{b}))
		require.NoError(t, db.ReplaceRelationships(ctx, b, "children", []ryno.Key{a}))
		require.Equal(t, []ryno.Key{a, b}, visibleOf(t, db, []ryno.Key{a, b}))
	})

	t.Run("what a Get of a comment costs", func(t *testing.T) {
		keys := seedTree(t, s, "kite", 1, 1)
		var report ryno.CallReport
		db := newClientOn(t, s, ryno.Options{Owns: ownsTreeChecked, OnCall: func(_ context.Context, r ryno.CallReport) {
			if r.Op == "Get" {
				report = r
			}
		}})
		_, err := db.Get(ctx, keys[2])
		require.NoError(t, err)
		require.Equal(t, map[string]int{"GetItem": 1, "Query": 2, "BatchGetItem": 2}, report.Requests,
			"the comment and its issue's lookup, the issue and the project's lookup, the project")
		require.Equal(t, 3, report.Rounds)
	})
}
