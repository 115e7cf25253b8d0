package actions

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/exprtest"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
)

func TestHeadCondition(t *testing.T) {
	digest := relationships.Digest{}
	tests := []struct {
		name string
		x    relationships.HeadExpectation
		want string
	}{
		{"no head yet", relationships.HeadExpectation{}, "attribute_not_exists(_version)"},
		{"an Add: the next position read", relationships.HeadExpectation{Exists: true, Next: 7, CheckNext: true},
			"(attribute_exists(_version))AND(_next=7)AND(attribute_not_exists(_lease))"},
		{"an Add to a list emptied to position 0", relationships.HeadExpectation{Exists: true, CheckNext: true},
			"(attribute_exists(_version))AND((_next=0)OR(attribute_not_exists(_next)))AND(attribute_not_exists(_lease))"},
		{"commutative: any version", relationships.HeadExpectation{Exists: true},
			"(attribute_exists(_version))AND(attribute_not_exists(_lease))"},
		{"the version read", relationships.HeadExpectation{Exists: true, Version: 4},
			"(_version=4)AND(attribute_not_exists(_lease))"},
		{"a whole-list read", relationships.HeadExpectation{Exists: true, Version: 4, Digest: digest, CheckDigest: true},
			"((_version=4)AND(attribute_not_exists(_lease)))AND(_digest=" + digest.String() + ")"},
		{"a pinned Add: the next position and the version", relationships.HeadExpectation{Exists: true, Next: 7, CheckNext: true, Pin: 4, Pinned: true},
			"((attribute_exists(_version))AND(_next=7)AND(attribute_not_exists(_lease)))AND(_version=4)"},
		{"a pinned Remove: the version", relationships.HeadExpectation{Exists: true, Pin: 4, Pinned: true},
			"((attribute_exists(_version))AND(attribute_not_exists(_lease)))AND(_version=4)"},
		{"a pinned Replace: the version once", relationships.HeadExpectation{Exists: true, Version: 4, Pin: 4, Pinned: true},
			"(_version=4)AND(attribute_not_exists(_lease))"},
		{"pinned to no head", relationships.HeadExpectation{Pinned: true}, "attribute_not_exists(_version)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { require.Equal(t, tt.want, exprtest.Condition(t, HeadCondition(tt.x))) })
	}
}

func TestAddChangeWritesTheHeadMarkersAndEntries(t *testing.T) {
	head := relationships.Head{Subject: ada, Predicate: "follows"}
	ch := relationships.ChangeAdd(head, nil, []entity.Key{bob})
	var tx Transaction
	AddChange(&tx, tbls, ch, true, now)

	var kinds []RoleKind
	for _, r := range tx.Roles {
		kinds = append(kinds, r.Kind)
		require.Equal(t, "follows", r.List)
	}
	require.Equal(t, []RoleKind{RoleHead, RoleMarker, RoleEntry, RoleObject}, kinds)
	require.Equal(t, bob, tx.Roles[1].Object, "the marker names its object")
	require.Equal(t, bob, tx.Roles[3].Object, "and so does the object's check")

	update := tx.Actions[0].Update
	require.Equal(t, relationships.HeadPrimaryKey(ada, "follows"), update.Key)
	require.Equal(t, "attribute_not_exists(_version)", exprtest.Render(t, update.ConditionExpression, update.ExpressionAttributeNames, update.ExpressionAttributeValues))
	require.Equal(t, "ALL_OLD", string(update.ReturnValuesOnConditionCheckFailure))
	marker := tx.Actions[1].Put
	require.Equal(t, relationships.MarkerPrimaryKey(ada, "follows", bob)[schema.AttrPredicateKey], marker.Item[schema.AttrPredicateKey])
	require.Equal(t, "attribute_not_exists(_positions)", exprtest.Render(t, marker.ConditionExpression, marker.ExpressionAttributeNames, marker.ExpressionAttributeValues))
	require.NotNil(t, tx.Actions[2].Put, "the entry")
	require.Equal(t, EntityKey(bob), tx.Actions[3].ConditionCheck.Key)

	var unchecked Transaction
	AddChange(&unchecked, tbls, ch, false, now)
	require.Len(t, unchecked.Actions, 3, "no object check unless asked")
}

func TestAPinnedChangeWritingNoEntryChecksTheHead(t *testing.T) {
	head := relationships.Head{Subject: ada, Predicate: "follows", Version: 3, Next: 1, Count: 1}
	markers := map[entity.Key]relationships.Marker{bob: {Object: bob, Positions: []int{0}}}
	for name, pinned := range map[string]bool{"unpinned": false, "pinned": true} {
		t.Run(name, func(t *testing.T) {
			ch := relationships.ChangeAdd(head, markers, []entity.Key{bob}) // bob is there: no entry
			if pinned {
				ch.PinTo(head)
			}
			var tx Transaction
			AddChange(&tx, tbls, ch, false, now)
			if !pinned {
				require.Equal(t, []Role{{Kind: RoleMarker, Object: bob, List: "follows"}}, tx.Roles, "the marker alone")
				return
			}
			require.Equal(t, RoleHead, tx.Roles[0].Kind)
			check := tx.Actions[0].ConditionCheck
			require.Equal(t, relationships.HeadPrimaryKey(ada, "follows"), check.Key)
			require.Equal(t, "((attribute_exists(_version))AND(_next=1)AND(attribute_not_exists(_lease)))AND(_version=3)",
				exprtest.Render(t, check.ConditionExpression, check.ExpressionAttributeNames, check.ExpressionAttributeValues))
		})
	}
}

func TestEntryOpsDeleteBeforeTheyPut(t *testing.T) {
	e := relationships.Entry{Subject: ada, Predicate: "follows", Index: 2, Object: bob}
	old := relationships.Entry{Subject: ada, Predicate: "follows", Index: 1, Object: bob}
	ops := RelationshipOps("t_relationships", nil, relationships.Plan{Puts: []relationships.Entry{e}, Deletes: []relationships.Entry{old}})
	require.Len(t, ops, 2)
	require.Nil(t, ops[0].Item, "the delete first")
	require.Equal(t, old.PrimaryKey(), ops[0].Key)
	require.Equal(t, e.Item(), ops[1].Item)
	for _, op := range ops {
		require.Equal(t, "t_relationships", op.Table)
	}
	last := batching.LastWriteWins(EntryOps("t", nil, []relationships.Entry{e}, []map[string]types.AttributeValue{e.PrimaryKey()}))
	require.Len(t, last, 1)
	require.NotNil(t, last[0].Item, "a key both put and deleted is put")
}

func TestACombinedChangeTakesItsRequestsOffTheHead(t *testing.T) {
	head := relationships.Head{Subject: ada, Predicate: "follows", Version: 3, Next: 1, Count: 1}
	ch := relationships.ChangeCombined(head, nil, nil, []entity.Key{bob}) // bob is not there: nothing to write
	ch.Applied = []relationships.Applied{{ID: "mine", Own: true}, {ID: "theirs", Changed: []entity.Key{}}}
	ch.Prune = []string{schema.DonePrefix + "left"}
	ch.At = now
	var tx Transaction
	AddChange(&tx, tbls, ch, false, now)
	require.Equal(t, RoleHead, tx.Roles[0].Kind, "the head is written though no entry is")
	u := tx.Actions[0].Update
	require.Equal(t, "(((attribute_exists(_version))AND(attribute_not_exists(_lease)))AND(attribute_exists(_w_mine)))AND(attribute_exists(_w_theirs))",
		exprtest.Render(t, u.ConditionExpression, u.ExpressionAttributeNames, u.ExpressionAttributeValues),
		"each request must still wait: a request taken back is not committed")
	update := exprtest.Render(t, u.UpdateExpression, u.ExpressionAttributeNames, u.ExpressionAttributeValues)
	require.Contains(t, update, "_d_theirs=*types.AttributeValueMemberM", "another writer's request leaves its result")
	require.NotContains(t, update, "_d_mine", "the committer's own does not")
	require.Contains(t, update, "REMOVE_w_mine,_w_theirs,_d_left")
}
