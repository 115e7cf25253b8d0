package ryno

import (
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/internal/actions"
)

// Key identifies an entity: its scope (a tenant, an account, ...), its type and its
// id. Each part must be non-empty UTF-8 without control characters; ':' and '%' are
// allowed. Its String method returns the key as the store writes it in compound
// keys, scope:type:id, each part escaped ('%' as %25, ':' as %3A); Validate reports
// whether it can be stored (a *ValidationError otherwise); TypeOf returns its Type.
// It is package entity's type, which the machinery under ryno works on too.
type Key = entity.Key

// itemKey returns the primary key of the entity k's item in the entities table.
func itemKey(k Key) map[string]types.AttributeValue { return actions.EntityKey(k) }

func str(s string) *types.AttributeValueMemberS { return &types.AttributeValueMemberS{Value: s} }

// Type names the entities of one type within one scope: what ListByType, AllByType
// and Reindex read. Its named fields keep a scope and a type from being swapped. Its
// String method returns it as the store writes it: scope:type, each part escaped. It
// is package entity's type.
type Type = entity.Type

// ScopedIndex names a registered index within one scope: what QueryIndex,
// QueryIndexEntries, their iterators, LookupUnique and GetByUnique read.
type ScopedIndex struct {
	Scope string
	Index string // the Name of a registered Index
}

func number(n int64) *types.AttributeValueMemberN {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}
