package actions

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/internal/exprtest"
	"github.com/rynodb/rynodb/internal/schema"
)

var (
	now  = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	at   = strconv.FormatInt(now.Unix(), 10)
	ada  = entity.Key{Scope: "acme", Type: "person", ID: "ada"}
	bob  = entity.Key{Scope: "acme", Type: "person", ID: "bob"}
	tbls = Tables{Entities: "t_entities", Relationships: "t_relationships"}
)

func TestEntityConditions(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want string
	}{
		// No expiry, a later one, and one held as a string (which DynamoDB does not
		// compare with a number) all fail "expired".
		{"not expired", exprtest.Condition(t, NotExpired(now)), "NOT(_expires<=" + at + ")"},
		{"expired", exprtest.Condition(t, Expired(now)), "_expires<=" + at},
		{"live", exprtest.Condition(t, Live(now)),
			"(attribute_exists(_id))AND(attribute_not_exists(_deleting))AND(NOT(_expires<=" + at + "))"},
		{"created in the store's layout", exprtest.Condition(t, CreatedInLayout()),
			`(attribute_not_exists(_created))OR((size(_created)=24)AND(contains(_created,"T"))AND(contains(_created,"."))AND(contains(_created,"Z")))`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { require.Equal(t, tt.want, tt.got) })
	}
}

func TestCheckEntityChecksEachEntityOnce(t *testing.T) {
	var tx Transaction
	tx.MarkChecked(bob) // written by the transaction: its put checks it
	CheckEntity(&tx, tbls.Entities, ada, Role{Kind: RoleEntity}, now, nil)
	CheckEntity(&tx, tbls.Entities, ada, Role{Kind: RoleObject, Object: ada}, now, nil)
	CheckEntity(&tx, tbls.Entities, bob, Role{Kind: RoleObject, Object: bob}, now, nil)
	require.Len(t, tx.Actions, 1)
	check := tx.Actions[0].ConditionCheck
	require.NotNil(t, check)
	require.Equal(t, tbls.Entities, *check.TableName)
	require.Equal(t, EntityKey(ada), check.Key)
	require.Equal(t, schema.ItemSize(EntityKey(ada)), tx.Bytes)
	require.Empty(t, check.ReturnValuesOnConditionCheckFailure, "a plain check returns nothing")
	require.Contains(t, exprtest.Render(t, check.ConditionExpression, check.ExpressionAttributeNames, check.ExpressionAttributeValues),
		"attribute_not_exists(_deleting)")

	var also Transaction
	version := Expired(now).Not()
	CheckEntity(&also, tbls.Entities, ada, Role{Kind: RoleEntity}, now, &version)
	check = also.Actions[0].ConditionCheck
	require.Equal(t, "ALL_OLD", string(check.ReturnValuesOnConditionCheckFailure), "a joined condition returns the item that failed it")
	require.Contains(t, exprtest.Render(t, check.ConditionExpression, check.ExpressionAttributeNames, check.ExpressionAttributeValues),
		"NOT(_expires<="+at+")")
}
