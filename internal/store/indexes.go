package store

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/indexentries"
)

// Indexes is what the store needs of the index registry, which package ryno
// holds over its Entity.
type Indexes interface {
	// Emit returns the entries the entity stored as item emits, seen with the
	// timestamps given.
	Emit(item map[string]types.AttributeValue, created, updated time.Time) ([]indexentries.Entry, error)
	// InlineSplit separates the values of typ's inline indexes from the entries of
	// the index entries table.
	InlineSplit(typ string, entries []indexentries.Entry) (map[string]types.AttributeValue, []indexentries.Entry, error)
	// ClaimChanges returns the claims a write makes and releases.
	ClaimChanges(stored, emitted []indexentries.Entry) (claims, releases []indexentries.Claim)
	// ClaimsOf returns the claims of the values entries hold in unique indexes.
	ClaimsOf(entries []indexentries.Entry) []indexentries.Claim
	// Has reports whether typ has indexes; HasEntries, whether any of them keeps
	// entries in the index entries table (is not inline).
	Has(typ string) bool
	HasEntries(typ string) bool
	// UniqueClaims returns the claims of the values entries emit into unique
	// indexes, once each.
	UniqueClaims(entries []indexentries.Entry) []indexentries.Claim
	// Set returns the encoded set of the indexes registered for typ.
	Set(typ string) string
	// Unique reports whether the index name of typ is unique.
	Unique(typ, name string) bool
}
