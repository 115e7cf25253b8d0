package ryno

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/schema"
)

// stored is what a write needs to know of a stored entity item: its version and the
// marks that concurrency control leaves on it.
type stored struct {
	item     map[string]types.AttributeValue // nil when there is no item
	version  int64                           // 0 for an item written before versions
	created  time.Time
	indexes  string // the _indexes set of the last writer; "" for none
	token    string // the token of the write that stored it
	pending  string // token of a writer still writing index entries
	deleting string // token of a Delete in progress
	expires  int64  // the expiry, in Unix seconds; 0 for none
	expired  bool   // whether it had passed when the item was read
}

// readStored decodes the state of item, nil for no item, as of the client's clock.
func (c *Client) readStored(k Key, item map[string]types.AttributeValue) (stored, error) {
	return decodeStored(k, item, c.opts.Now())
}

// decodeStored decodes the state of item, nil for no item, as of now.
func decodeStored(k Key, item map[string]types.AttributeValue, now time.Time) (stored, error) {
	s := stored{item: item}
	if item == nil {
		return s, nil
	}
	s.expires = expiresOf(item)
	s.expired = expiredAt(s.expires, now)
	var err error
	if s.version, err = versionValue(item[schema.AttrVersion]); err != nil {
		return s, wrap(err, "stored entity %s", k)
	}
	if av, ok := item[schema.AttrCreated]; ok {
		if s.created, err = timeValue(schema.AttrCreated, av); err != nil {
			return s, wrap(err, "stored entity %s", k)
		}
	}
	s.indexes = optionalString(item, schema.AttrIndexes)
	s.token = optionalString(item, schema.AttrToken)
	s.pending = optionalString(item, schema.AttrPending)
	s.deleting = optionalString(item, schema.AttrDeleting)
	return s, nil
}

func (s stored) exists() bool { return s.item != nil }

// live reports whether the item is an entity that exists: there, not being
// deleted, and not expired.
func (s stored) live() bool { return s.exists() && s.deleting == "" && !s.expired }

// ending reports whether the item is an entity whose deletion a writer meeting it
// completes: a Delete in progress, or an entity that has expired.
func (s stored) ending() bool { return s.deleting != "" || (s.exists() && s.expired) }

func versionValue(av types.AttributeValue) (int64, error) {
	if av == nil {
		return 0, nil
	}
	n, ok := av.(*types.AttributeValueMemberN)
	if !ok {
		return 0, fmt.Errorf("%s is %T, want a number", schema.AttrVersion, av)
	}
	v, err := strconv.ParseInt(n.Value, 10, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%s is %q, want a version", schema.AttrVersion, n.Value)
	}
	return v, nil
}

func optionalString(item map[string]types.AttributeValue, name string) string {
	if s, ok := item[name].(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

func number(n int64) *types.AttributeValueMemberN {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

// indexSet encodes index names as the _indexes attribute: sorted, escaped, joined
// by ':'. No names encode as "", which the store writes as no attribute.
func indexSet(names []string) string {
	escaped := make([]string, len(names))
	for i, n := range names {
		escaped[i] = schema.Escape(n)
	}
	slices.Sort(escaped)
	return strings.Join(slices.Compact(escaped), string(schema.Delimiter))
}

// unknownIndexes returns the names in the encoded set stored that are not in mine.
func unknownIndexes(stored, mine string) []string {
	if stored == "" || stored == mine {
		return nil
	}
	known := strings.Split(mine, string(schema.Delimiter))
	var unknown []string
	for _, escaped := range strings.Split(stored, string(schema.Delimiter)) {
		if slices.Contains(known, escaped) {
			continue
		}
		name, err := schema.Unescape(escaped)
		if err != nil {
			name = escaped
		}
		unknown = append(unknown, displayIndex(name))
	}
	return unknown
}

// expectation is what a write requires of the stored item, as its condition.
type expectation struct {
	absent  bool      // no item at all
	version int64     // when !absent; 0 for an item written before versions
	created time.Time // checked when not zero

	// carried says the version came from the caller, not from a read of this call.
	// A read would have shown whether index entries are being written and which
	// indexes the last writer maintained; the condition checks both instead: no
	// pending write, and the index set indexes.
	carried bool
	indexes string

	// pending says the item holds the mark of a writer still writing its index
	// entries: the write takes the large path, which takes over from that writer.
	// Not part of the condition: the version pins it. left is what that writer's
	// record says it emitted: values of unique indexes it claimed, perhaps before
	// writing their entries, which the write releases unless it emits them too.
	pending bool
	left    []indexentries.Entry

	// cond is the caller's condition on the stored entity (If), checked with the
	// rest; holds does not evaluate it.
	cond *Condition

	// now, when set, adds that the stored entity has not expired by then: a write
	// that expects a version it did not read must not bring an expired entity back.
	now time.Time

	// expires is the stored entity's expiry (Unix seconds; 0 for none) when the write
	// read it (expiresKnown): the claims of its unique values record it.
	expires      int64
	expiresKnown bool
}

// expect returns the expectation that the item still is s.
func expect(s stored) expectation {
	if !s.exists() {
		return expectation{absent: true}
	}
	return expectation{version: s.version, created: s.created}
}

// condition returns the condition that holds while the stored item meets x. Every
// write bumps the version, so an equal version means the same item.
func (x expectation) condition() expression.ConditionBuilder {
	if x.absent {
		return expression.AttributeNotExists(expression.Name(schema.AttrID))
	}
	var c expression.ConditionBuilder
	if x.version == 0 {
		c = expression.AttributeExists(expression.Name(schema.AttrID)).
			And(expression.AttributeNotExists(expression.Name(schema.AttrVersion)))
	} else {
		c = expression.Name(schema.AttrVersion).Equal(expression.Value(number(x.version)))
	}
	if !x.created.IsZero() {
		c = c.And(expression.Name(schema.AttrCreated).Equal(expression.Value(str(schema.FormatTime(x.created)))))
	}
	if x.carried {
		c = c.And(expression.AttributeNotExists(expression.Name(schema.AttrPending)), indexSetIs(x.indexes))
	}
	if x.cond != nil {
		c = c.And(x.cond.build(x.now))
	}
	if !x.now.IsZero() {
		c = c.And(actions.NotExpired(x.now))
	}
	return c
}

// indexSetIs is the condition that the stored index set is set.
func indexSetIs(set string) expression.ConditionBuilder {
	if set == "" {
		return expression.AttributeNotExists(expression.Name(schema.AttrIndexes))
	}
	return expression.Name(schema.AttrIndexes).Equal(expression.Value(str(set)))
}

// next returns the version a write meeting x stores.
func (x expectation) next() int64 {
	if x.absent {
		return 1
	}
	return x.version + 1
}

// holds reports whether s meets x: what the condition of x checks, evaluated on a
// read of the item.
func (x expectation) holds(s stored) bool {
	switch {
	case x.absent:
		return !s.exists()
	case !s.exists() || s.version != x.version:
		return false
	case !x.created.IsZero() && !s.created.Equal(x.created):
		return false
	case x.carried && (s.pending != "" || s.indexes != x.indexes):
		return false
	}
	return true
}
