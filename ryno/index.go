package ryno

import (
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/indexes"
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
	// Shards spreads the index's entries in a scope over this many partition keys
	// of the lookup index (at most 64), each entity's in one chosen by a hash of its
	// key, so that writes of the index are not bound by what one partition key
	// takes (1,000 write units a second) even when its values only grow, as
	// times do. QueryIndex and QueryIndexEntries then send one Query per shard,
	// in parallel, and merge them in index order: a page costs Shards queries in
	// one round. 0 or 1, the default, keeps one partition key. Every client of
	// the store must declare the same Shards; changing it needs the index's
	// entries written again (see Resharding). It cannot be set on an inline index.
	Shards int
	// Resharding, while the index's entries move to Shards from another count,
	// is that count (1 for an index that was not sharded): queries then read the
	// shards of both layouts and return each entry once a page, so that they find
	// every entry wherever it stands. Set it with the new Shards in every client,
	// run Reindex for the type, which moves the entries, then remove it. 0, the
	// default, says no entry is moving.
	Resharding int
}

// indexRegistry holds the registered indexes by entity type, with the map
// functions they run on an Entity.
type indexRegistry = indexes.Registry[Entity]

func newIndexRegistry(registered []Index) (indexRegistry, error) {
	defs := make([]indexes.Def[Entity], 0, len(registered))
	names := make(map[string]bool, len(registered))
	slots := make(map[string]string, len(registered)) // type and slot: index name
	for i, ix := range registered {
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
		defs = append(defs, ix.def())
	}
	return indexes.New(defs), nil
}

// def is ix as the registry holds it: its map function given its own copy of the
// entity.
func (ix Index) def() indexes.Def[Entity] {
	return indexes.Def[Entity]{
		Type: ix.Type, Name: ix.Name, Project: ix.Project, Unique: ix.Unique, Inline: ix.Inline, Shards: ix.Shards, Resharding: ix.Resharding,
		Map: func(e Entity, emit func(indexing.Value)) { ix.Map(&e, emit) },
	}
}

// registryView is the registry as the store reads it (store.Indexes).
type registryView struct{ indexRegistry }

// Emit is emitEntries of the registry.
func (v registryView) Emit(item map[string]types.AttributeValue, created, updated time.Time) ([]indexentries.Entry, error) {
	return emitEntries(v.indexRegistry, item, created, updated)
}

// emitEntries runs the map functions of the indexes of the entity stored as item and
// returns its entries. The entity the map functions see is decoded from item, with
// the given timestamps.
func emitEntries(reg indexRegistry, item map[string]types.AttributeValue, created, updated time.Time) ([]indexentries.Entry, error) {
	e, err := decodeEntity(item)
	if err != nil {
		return nil, err
	}
	e.Created, e.Updated = created, updated
	return reg.Emit(e.Key, *e, item)
}

// errUnregistered is the error of a call naming an index the client does not
// register, before any request.
func errUnregistered(index string) error {
	return invalid("index", index, "is not registered")
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
	case ix.Shards < 0 || ix.Shards > schema.MaxShards:
		return invalid(field+".Shards", fmt.Sprint(ix.Shards), fmt.Sprintf("must be 0 to %d", schema.MaxShards))
	case ix.Shards > 1 && ix.Inline > 0:
		return invalid(field+".Shards", fmt.Sprint(ix.Shards), "an inline index is kept with the entity items: it cannot be sharded")
	case ix.Resharding < 0 || ix.Resharding > schema.MaxShards:
		return invalid(field+".Resharding", fmt.Sprint(ix.Resharding), fmt.Sprintf("must be 0 to %d", schema.MaxShards))
	case ix.Resharding > 0 && ix.Inline > 0:
		return invalid(field+".Resharding", fmt.Sprint(ix.Resharding), "an inline index cannot be sharded")
	}
	return nil
}
