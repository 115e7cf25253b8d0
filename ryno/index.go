package ryno

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/entitystate"
	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
)

// Index derives index entries from the entities of one type. Register indexes in
// Options.Indexes; the store then keeps the index entries table in step with every
// Create, Update, Set and Delete, and QueryIndex answers range queries on them.
type Index struct {
	// Type is the entity type the index applies to.
	Type string
	// Name names the index; unique among all registered indexes. Queries name it
	// together with a scope.
	Name string
	// Map emits the index values of an entity: none, one or many. It sees the entity
	// as it is stored, so numbers are json.Number (Entity.Decode gives typed
	// fields), Updated is the time of the write and Created the entity's
	// creation time. It must be deterministic. A panic or an invalid value fails the
	// write before any request is sent.
	Map func(e *Entity, emit func(indexing.Value))
	// Project names attributes copied into every entry, so QueryIndexEntries can
	// answer without reading the entities. Optional.
	Project []string
	// Unique makes the index hold each value for at most one entity of a scope: a
	// write that would give a second entity a value another holds fails with a
	// *UniqueError (ErrExists) and writes nothing. Each value held is claimed by an
	// item of its own, changed in the same transaction as the entity; LookupUnique
	// and GetByUnique find an entity by value. Every client writing the type must
	// declare the index unique.
	Unique bool
	// Inline, 1 or 2, keeps the index on the entity item itself instead of in the
	// index entries table: its value goes into two attributes of the item that the
	// entities table's GSI entities_inline_<Inline> is keyed by, so DynamoDB keeps
	// the index with the item. A write then sends no request for the index and
	// needs no transaction for it, and QueryIndex reads its page in one Query.
	// The index must emit at most one value per entity (a second fails the write
	// with a *ValidationError before any request) and cannot be Unique; two inline
	// indexes of one type need different numbers. Every attribute of the entity
	// is projected. 0, the default, keeps the index in the index entries table.
	// Every client writing the type must declare the same Inline.
	Inline int
}

// indexRegistry holds the registered indexes by entity type.
type indexRegistry map[string][]Index

func newIndexRegistry(indexes []Index) (indexRegistry, error) {
	reg := make(indexRegistry)
	names := make(map[string]bool, len(indexes))
	slots := make(map[string]string, len(indexes)) // type and slot: index name
	for i, ix := range indexes {
		field := fmt.Sprintf("Options.Indexes[%d]", i)
		if err := ix.validate(field); err != nil {
			return nil, err
		}
		if names[ix.Name] {
			return nil, invalid(field+".Name", ix.Name, "another index has this name")
		}
		names[ix.Name] = true
		if ix.Inline > 0 {
			slot := fmt.Sprint(ix.Type, "\x00", ix.Inline)
			if other, taken := slots[slot]; taken {
				return nil, invalid(field+".Inline", fmt.Sprint(ix.Inline), fmt.Sprintf("index %s of type %s is inline %d too", other, ix.Type, ix.Inline))
			}
			slots[slot] = ix.Name
		}
		reg[ix.Type] = append(reg[ix.Type], ix)
	}
	return reg, nil
}

// unique reports whether the index named name of typ is unique.
func (reg indexRegistry) unique(typ, name string) bool {
	for _, ix := range reg[typ] {
		if ix.Name == name {
			return ix.Unique
		}
	}
	return false
}

// byName returns the registered index named name, of any type.
func (reg indexRegistry) byName(name string) (Index, bool) {
	for _, indexes := range reg {
		for _, ix := range indexes {
			if ix.Name == name {
				return ix, true
			}
		}
	}
	return Index{}, false
}

// errUnregistered is the error of a call naming an index the client does not
// register, before any request.
func errUnregistered(index string) error {
	return invalid("index", index, "is not registered")
}

// has reports whether typ has indexes: its writes run their map functions.
func (reg indexRegistry) has(typ string) bool { return len(reg[typ]) > 0 }

// hasEntries reports whether typ has indexes kept in the index entries table: its
// writes read and write entries there.
func (reg indexRegistry) hasEntries(typ string) bool {
	for _, ix := range reg[typ] {
		if ix.Inline == 0 {
			return true
		}
	}
	return false
}

// set returns the encoded set of the names of typ's indexes: the _indexes attribute
// of the entities this client writes. An inline index is recorded with its slot,
// after a control character no name holds, so that a client declaring it
// otherwise finds it unknown and refuses to write the entity.
func (reg indexRegistry) set(typ string) string {
	names := make([]string, len(reg[typ]))
	for i, ix := range reg[typ] {
		names[i] = ix.Name
		if ix.Inline > 0 {
			names[i] += fmt.Sprint(inlineMark, ix.Inline)
		}
	}
	return entitystate.IndexSet(names)
}

// inlineMark separates an inline index's name from its slot in _indexes.
const inlineMark = "\x01inline "

// displayIndex returns the name of an index as recorded in _indexes, for people:
// "status (inline 1)".
func displayIndex(recorded string) string {
	if name, slot, ok := strings.Cut(recorded, inlineMark); ok {
		return name + " (inline " + slot + ")"
	}
	return recorded
}

func (ix Index) validate(field string) error {
	if err := schema.ValidateComponent(field+".Type", ix.Type); err != nil {
		return err
	}
	if err := schema.ValidateComponent(field+".Name", ix.Name); err != nil {
		return err
	}
	if ix.Map == nil {
		return invalid(field+".Map", ix.Name, "must not be nil")
	}
	for _, name := range ix.Project {
		if err := schema.ValidateAttributeName(name); err != nil {
			return wrap(err, "%s.Project", field)
		}
	}
	switch {
	case ix.Inline < 0 || ix.Inline > schema.InlineSlots:
		return invalid(field+".Inline", fmt.Sprint(ix.Inline), fmt.Sprintf("must be 0 (the index entries table) or 1 to %d", schema.InlineSlots))
	case ix.Inline > 0 && ix.Unique:
		return invalid(field+".Inline", fmt.Sprint(ix.Inline), "a unique index needs its claims: it cannot be inline")
	}
	return nil
}

// emitEntries runs the map functions of the indexes of the entity stored as item and
// returns its entries. The entity the map functions see is decoded from item, with
// the given timestamps.
func (reg indexRegistry) emitEntries(item map[string]types.AttributeValue, created, updated time.Time) ([]indexentries.Entry, error) {
	e, err := decodeEntity(item)
	if err != nil {
		return nil, err
	}
	e.Created, e.Updated = created, updated
	var entries []indexentries.Entry
	for _, ix := range reg[e.Type] {
		view := *e // a shallow copy: a map function cannot change what the next one sees of the fields
		values, err := indexentries.Emit(ix.Name, func(emit func(indexing.Value)) { ix.Map(&view, emit) })
		if err != nil {
			return nil, err
		}
		projected := batching.Project(item, ix.Project)
		for name, v := range projected {
			if v == nil {
				delete(projected, name)
			}
		}
		for _, v := range values {
			entries = append(entries, indexentries.Entry{
				Scope: e.Scope, Type: e.Type, ID: e.ID, IndexName: ix.Name, Value: v, Attributes: projected,
			})
		}
	}
	return entries, nil
}

// inlineSplit separates the entries of typ's inline indexes from the others, the
// entries of the index entries table, which it returns. attrs holds, for each
// inline slot of typ, the item attributes that key the slot's GSI: the values of
// the entry, or nil where the index emitted nothing. An inline index emitting more
// than one value is a *ValidationError.
func (reg indexRegistry) inlineSplit(typ string, entries []indexentries.Entry) (attrs map[string]types.AttributeValue, rest []indexentries.Entry, err error) {
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
			return nil, nil, invalid("Index.Map", e.IndexName, "emitted more than one value into an inline index, which holds one per entity")
		default:
			attrs[schema.AttrInlineName[slot-1]] = str(schema.ScopeIndexName(e.Scope, e.IndexName))
			attrs[schema.AttrInlineKey[slot-1]] = str(e.Value.Encoding())
		}
	}
	return attrs, rest, nil
}

// holdsInline reports whether item holds exactly the inline attributes of attrs
// (nil: none).
func holdsInline(item, attrs map[string]types.AttributeValue) bool {
	for name, v := range attrs {
		if !sameValue(item[name], v) {
			return false
		}
	}
	return true
}

// sameValue reports whether a and b, attribute values or nil, are equal.
func sameValue(a, b types.AttributeValue) bool { return reflect.DeepEqual(a, b) }

// putInline sets the inline attributes of attrs that hold a value on item.
func putInline(item, attrs map[string]types.AttributeValue) {
	for name, v := range attrs {
		if v != nil {
			item[name] = v
		}
	}
}

// indexRecord is the _index_entries attribute of an entity item: the index keys each
// of its indexes emitted at the last write. A record for people; the index entries
// table is the truth.
func indexRecord(entries []indexentries.Entry) types.AttributeValue {
	byIndex := make(map[string][]types.AttributeValue)
	for _, e := range entries {
		byIndex[e.IndexName] = append(byIndex[e.IndexName], str(e.Value.Encoding()))
	}
	record := make(map[string]types.AttributeValue, len(byIndex))
	for name, keys := range byIndex {
		record[name] = &types.AttributeValueMemberL{Value: keys}
	}
	return mapValue(record)
}

// readIndexEntries returns the stored index entries of the entity k: the truth that
// writes are diffed against, so a write retried after a half-failed one still removes
// stale entries.
func (c *Client) readIndexEntries(ctx context.Context, k Key) ([]map[string]types.AttributeValue, error) {
	return c.core.QueryAll(ctx, c.core.IndexEntriesQuery(relationships.Key(k)))
}

// indexOps returns the writes that turn the stored entries into the emitted ones.
// A stored item this store did not write is deleted.
func indexOps(table string, stored []map[string]types.AttributeValue, emitted []indexentries.Entry) ([]batching.WriteOp, error) {
	var ops []batching.WriteOp
	existing := make([]indexentries.Entry, 0, len(stored))
	for _, item := range stored {
		e, err := indexentries.FromItem(item)
		if err != nil {
			ops = append(ops, batching.DeleteOp(table, batching.Project(item, schema.IndexEntryKeyAttrs())))
			continue
		}
		existing = append(existing, e)
	}
	puts, deletes := indexentries.Diff(existing, emitted)
	for _, e := range deletes {
		ops = append(ops, batching.DeleteOp(table, e.PrimaryKey()))
	}
	for _, e := range puts {
		item, err := e.Item()
		if err != nil {
			return nil, err
		}
		ops = append(ops, batching.PutOp(table, e.PrimaryKey(), item))
	}
	return ops, nil
}
