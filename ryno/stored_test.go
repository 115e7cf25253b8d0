package ryno

import (
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/entitystate"
	"github.com/rynodb/rynodb/internal/exprtest"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

var (
	stateKey = Key{Scope: "s", Type: "t", ID: "i"}
	created1 = time.Date(2024, 1, 2, 3, 4, 5, 6e6, time.UTC)
	created2 = created1.Add(time.Millisecond)
)

// renderExpr returns expr with its placeholders replaced by the names and values
// they stand for (strings quoted) and without spaces, so that tests read
// `_version=3` whatever numbering the builder chose.
func renderExpr(t *testing.T, expr *string, names map[string]string, values map[string]types.AttributeValue) string {
	t.Helper()
	return exprtest.Render(t, expr, names, values)
}

// renderCondition builds c as the store does and renders it.
func renderCondition(t *testing.T, c expression.ConditionBuilder) string {
	t.Helper()
	return exprtest.Condition(t, c)
}

// storedItem returns an entity item with the given store attributes (S unless
// given as an AttributeValue) on top of the key.
func storedItem(attrs map[string]any) map[string]types.AttributeValue {
	item := stateKey.item()
	for name, v := range attrs {
		switch v := v.(type) {
		case string:
			item[name] = str(v)
		case types.AttributeValue:
			item[name] = v
		default:
			panic(fmt.Sprintf("storedItem: %T", v))
		}
	}
	return item
}

func TestReadStored(t *testing.T) {
	full := storedItem(map[string]any{
		schema.AttrVersion:  number(7),
		schema.AttrCreated:  schema.FormatTime(created1),
		schema.AttrIndexes:  "a:b",
		schema.AttrToken:    "tok",
		schema.AttrPending:  "pend",
		schema.AttrDeleting: "del",
	})
	tests := []struct {
		name string
		item map[string]types.AttributeValue
		want entitystate.State
	}{
		{"no item", nil, entitystate.State{}},
		{"every mark", full, entitystate.State{Item: full, Version: 7, Created: created1, Indexes: "a:b", Token: "tok", Pending: "pend", Deleting: "del"}},
		{"legacy item without version or marks", stateKey.item(), entitystate.State{Item: stateKey.item()}},
		{"marks that are not strings are absent", storedItem(map[string]any{schema.AttrVersion: number(1), schema.AttrToken: number(3), schema.AttrPending: &types.AttributeValueMemberBOOL{Value: true}}),
			entitystate.State{Version: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := store.DecodeStored(relationships.Key(stateKey), tt.item, time.Now())
			require.NoError(t, err)
			tt.want.Item = tt.item
			require.Equal(t, tt.want, got)
		})
	}
}

func TestReadStoredRejectsMalformedMarks(t *testing.T) {
	tests := []struct {
		name  string
		attrs map[string]any
		attr  string // named in the error
	}{
		{"version as a string", map[string]any{schema.AttrVersion: "3"}, schema.AttrVersion},
		{"negative version", map[string]any{schema.AttrVersion: number(-1)}, schema.AttrVersion},
		{"fractional version", map[string]any{schema.AttrVersion: &types.AttributeValueMemberN{Value: "1.5"}}, schema.AttrVersion},
		{"version beyond int64", map[string]any{schema.AttrVersion: &types.AttributeValueMemberN{Value: "9223372036854775808"}}, schema.AttrVersion},
		{"created as a number", map[string]any{schema.AttrVersion: number(1), schema.AttrCreated: number(1)}, schema.AttrCreated},
		{"created not a time", map[string]any{schema.AttrVersion: number(1), schema.AttrCreated: "yesterday"}, "yesterday"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := store.DecodeStored(relationships.Key(stateKey), storedItem(tt.attrs), time.Now())
			require.Error(t, err)
			require.ErrorContains(t, err, stateKey.String())
			require.ErrorContains(t, err, tt.attr)
		})
	}
}
