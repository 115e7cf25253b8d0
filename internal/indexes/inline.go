package indexes

import (
	"reflect"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/schema"
)

// InlineSplit separates the entries of typ's inline indexes from the others, the
// entries of the index entries table, which it returns. attrs holds, for each
// inline slot of typ, the item attributes that key the slot's GSI: the values of
// the entry, or nil where the index emitted nothing. An inline index emitting more
// than one value is a *ValidationError.
func (reg Registry[E]) InlineSplit(typ string, entries []indexentries.Entry) (attrs map[string]types.AttributeValue, rest []indexentries.Entry, err error) {
	inline := make(map[string]int) // index name: slot
	for _, ix := range reg[typ] {
		if ix.Inline > 0 {
			inline[ix.Name] = ix.Inline
		}
	}
	if len(inline) == 0 {
		return nil, entries, nil
	}
	attrs = make(map[string]types.AttributeValue, 2*len(inline))
	for _, slot := range inline {
		attrs[schema.AttrInlineName[slot-1]], attrs[schema.AttrInlineKey[slot-1]] = nil, nil
	}
	rest = make([]indexentries.Entry, 0, len(entries))
	for _, e := range entries {
		slot, ok := inline[e.IndexName]
		switch {
		case !ok:
			rest = append(rest, e)
		case attrs[schema.AttrInlineKey[slot-1]] != nil:
			return nil, nil, &schema.ValidationError{Field: "Index.Map", Value: e.IndexName, Reason: "emitted more than one value into an inline index, which holds one per entity"}
		default:
			attrs[schema.AttrInlineName[slot-1]] = attrS(schema.ScopeIndexName(e.Scope, e.IndexName))
			attrs[schema.AttrInlineKey[slot-1]] = attrS(e.Value.Encoding())
		}
	}
	return attrs, rest, nil
}

// HoldsInline reports whether item holds exactly the inline attributes of attrs
// (nil: none).
func HoldsInline(item, attrs map[string]types.AttributeValue) bool {
	for name, v := range attrs {
		if !SameValue(item[name], v) {
			return false
		}
	}
	return true
}

// SameValue reports whether a and b, attribute values or nil, are equal.
func SameValue(a, b types.AttributeValue) bool { return reflect.DeepEqual(a, b) }

// PutInline sets the inline attributes of attrs that hold a value on item.
func PutInline(item, attrs map[string]types.AttributeValue) {
	for name, v := range attrs {
		if v != nil {
			item[name] = v
		}
	}
}

func attrS(s string) *types.AttributeValueMemberS { return &types.AttributeValueMemberS{Value: s} }
