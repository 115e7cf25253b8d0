// Package indexentries computes the items of the index entries table: an Entry per
// value a map function emits, the Claim a unique index holds per value, and the
// puts and deletes (Diff) that bring stored entries to the wanted ones. It performs
// no I/O. Package indexing defines the values and conditions it stores.
package indexentries

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/schema"
)

func str(s string) *types.AttributeValueMemberS { return &types.AttributeValueMemberS{Value: s} }

func invalid(field, value, reason string) error {
	return &schema.ValidationError{Field: field, Value: value, Reason: reason}
}
