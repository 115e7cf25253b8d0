package entitystate

import (
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/schema"
)

// IndexSet encodes index names as the _indexes attribute: sorted, escaped, joined
// by ':'. No names encode as "", which the store writes as no attribute.
func IndexSet(names []string) string {
	escaped := make([]string, len(names))
	for i, n := range names {
		escaped[i] = schema.Escape(n)
	}
	slices.Sort(escaped)
	return strings.Join(slices.Compact(escaped), string(schema.Delimiter))
}

// Expectation is what a write requires of the stored item, as its condition.
type Expectation struct {
	Absent  bool      // no item at all
	Version int64     // when !Absent; 0 for an item written before versions
	Created time.Time // checked when not zero
	// CreatedAttr is the stored _created the condition pins, when the write read it:
	// another program may have written Created in another layout. Otherwise the
	// condition pins Created as the store writes it.
	CreatedAttr string

	// Carried says the version came from the caller, not from a read of this call.
	// A read would have shown whether index entries are being written and which
	// indexes the last writer maintained; the condition checks both instead: no
	// pending write, and the index set indexes.
	Carried bool
	Indexes string

	// Pending says the item holds the mark of a writer still writing its index
	// entries: the write takes the large path, which takes over from that writer.
	// Not part of the condition: the version pins it. Left is what that writer's
	// record says it emitted: values of unique indexes it claimed, perhaps before
	// writing their entries, which the write releases unless it emits them too.
	Pending bool
	Left    []indexentries.Entry

	// Cond is the caller's condition on the stored entity (If), checked with the
	// rest; Holds does not evaluate it.
	Cond func(now time.Time) expression.ConditionBuilder

	// Now, when set, adds that the stored entity has not expired by then: a write
	// that expects a version it did not read must not bring an expired entity back.
	Now time.Time

	// Expires is the stored entity's expiry (Unix seconds; 0 for none) when the write
	// read it (ExpiresKnown): the claims of its unique values record it.
	Expires      int64
	ExpiresKnown bool
}

// Expect returns the expectation that the item still is s.
func Expect(s State) Expectation {
	if !s.Exists() {
		return Expectation{Absent: true}
	}
	return Expectation{Version: s.Version, Created: s.Created, CreatedAttr: s.CreatedAttr}
}

// StoredCreated is the _created the condition of x requires: as read, or Created
// in the store's layout; "" for none.
func (x Expectation) StoredCreated() string { return StoredCreated(x.CreatedAttr, x.Created) }

// StoredCreated is the _created a condition requires of an entity: attr, as read,
// when the write read it; otherwise created in the store's layout; "" for none.
func StoredCreated(attr string, created time.Time) string {
	switch {
	case attr != "":
		return attr
	case !created.IsZero():
		return schema.FormatTime(created)
	}
	return ""
}

// Condition returns the condition that holds while the stored item meets x. Every
// write bumps the version, so an equal version means the same item.
func (x Expectation) Condition() expression.ConditionBuilder {
	if x.Absent {
		c := expression.AttributeNotExists(expression.Name(schema.AttrID))
		if x.Cond != nil { // a write that creates the entity holds it too: Exists refuses it
			c = c.And(x.Cond(x.Now))
		}
		return c
	}
	var c expression.ConditionBuilder
	if x.Version == 0 {
		c = expression.AttributeExists(expression.Name(schema.AttrID)).
			And(expression.AttributeNotExists(expression.Name(schema.AttrVersion)))
	} else {
		c = expression.Name(schema.AttrVersion).Equal(expression.Value(number(x.Version)))
	}
	if created := x.StoredCreated(); created != "" {
		c = c.And(StoredCreatedIs(created))
	}
	if x.Carried {
		c = c.And(expression.AttributeNotExists(expression.Name(schema.AttrPending)), IndexSetIs(x.Indexes))
	}
	if x.Cond != nil {
		c = c.And(x.Cond(x.Now))
	}
	if !x.Now.IsZero() {
		c = c.And(actions.NotExpired(x.Now))
	}
	return c
}

// CreatedIs is the condition that the stored entity is the life of its key created
// at t, to the millisecond: an entity deleted and created again counts its versions
// from 1 again, and only Created tells its lives apart.
func CreatedIs(t time.Time) expression.ConditionBuilder { return StoredCreatedIs(schema.FormatTime(t)) }

// StoredCreatedIs is the condition that the stored _created is attr, as stored: a
// time another program wrote in another layout than the store's is pinned as read.
func StoredCreatedIs(attr string) expression.ConditionBuilder {
	return expression.Name(schema.AttrCreated).Equal(expression.Value(&types.AttributeValueMemberS{Value: attr}))
}

// IndexSetIs is the condition that the stored index set is set.
func IndexSetIs(set string) expression.ConditionBuilder {
	if set == "" {
		return expression.AttributeNotExists(expression.Name(schema.AttrIndexes))
	}
	return expression.Name(schema.AttrIndexes).Equal(expression.Value(&types.AttributeValueMemberS{Value: set}))
}

// Next returns the version a write meeting x stores.
func (x Expectation) Next() int64 {
	if x.Absent {
		return 1
	}
	return x.Version + 1
}

// Holds reports whether s meets x: what the condition of x checks, evaluated on a
// read of the item.
func (x Expectation) Holds(s State) bool {
	switch {
	case x.Absent:
		return !s.Exists()
	case !s.Exists() || s.Version != x.Version:
		return false
	case x.StoredCreated() != "" && s.storedCreated() != x.StoredCreated(): // as the condition compares them
		return false
	case x.Carried && (s.Pending != "" || s.Indexes != x.Indexes):
		return false
	}
	return true
}
