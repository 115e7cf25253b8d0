package ryno

import (
	"fmt"
	"maps"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

// Projection names what a read returns of each entity: the user's attributes it
// names, and Meta when Meta is set. The zero Projection reads whole entities;
// Attributes empty but not nil reads none of them. Get, BatchGet and GetByUnique
// take it with Project, the listings of entities (ListByType, RelatedEntities,
// ReverseRelatedEntities, QueryIndex and their iterators) in PageOptions.
//
// It is sent as DynamoDB's ProjectionExpression, so the attributes left out cross
// neither the wire nor the decoder. DynamoDB still bills a read by the size of the
// whole item: a projection saves bytes and memory, not read capacity. Beside the
// attributes named, a read returns the key, Created, Updated, Version and Expires
// of each entity, and reads the store's own attributes that tell it whether the
// entity is being deleted, and for QueryIndex and GetByUnique which index values
// it holds; none of those is returned.
//
// An entity read in part is marked so (Entity.Partial, and Record.Partial of a
// typed one): Create, Update and Set of it, in every form (typed, in a
// transaction), fail with a *ValidationError before any request, since writing
// it whole would drop the attributes it did not read. Change it with Patch.
type Projection struct {
	// Attributes are the user's attributes to return. One the entity does not
	// hold is absent from Entity.Attributes.
	Attributes []string
	// Meta returns Entity.Meta too; otherwise it is nil.
	Meta bool
}

// maxProjected bounds Projection.Attributes, well within DynamoDB's limits on the
// size of an expression.
const maxProjected = 256

// whole reports whether p asks for whole entities.
func (p Projection) whole() bool { return p.Attributes == nil && !p.Meta }

func (p Projection) validate(field string) error {
	if len(p.Attributes) > maxProjected {
		return invalid(field+".Attributes", fmt.Sprint(len(p.Attributes)), fmt.Sprintf("names more than %d attributes", maxProjected))
	}
	for i, name := range p.Attributes {
		if err := schema.ValidateAttributeName(name); err != nil {
			return wrap(err, "%s.Attributes[%d]", field, i)
		}
	}
	return nil
}

// names returns the attributes a read of entity items in part names, with the
// record of index values when records, and the update time of sharded types'
// entities when sharded; nil for a whole read.
func (p Projection) names(records, sharded bool) []string {
	if p.whole() {
		return nil
	}
	return store.EntityProjection(p.Attributes, p.Meta, records, sharded)
}

// apply leaves in e only what p names, and marks e partial; it leaves a whole
// entity as it is for the zero p. A read in part holds nothing more already; a
// whole entity read for a check that needed more is cut down here.
func (p Projection) apply(e *Entity) {
	if e == nil || p.whole() {
		return
	}
	named := make(map[string]bool, len(p.Attributes))
	for _, name := range p.Attributes {
		named[name] = true
	}
	maps.DeleteFunc(e.Attributes, func(name string, _ any) bool { return !named[name] })
	if !p.Meta {
		e.Meta = nil
	}
	e.partial = true
}

// applyAll applies p to each of entities.
func (p Projection) applyAll(entities []*Entity) {
	for _, e := range entities {
		p.apply(e)
	}
}

// entityRead is how a call reads entity items: strongly consistent or not, whole
// or in part, and with the record of index values when the call checks which
// values an entity holds.
type entityRead struct {
	consistent bool
	projection Projection
	records    bool
	sharded    bool                                       // the store has sharded types
	inspect    func(item map[string]types.AttributeValue) // when set, sees the item Get reads
}

// options are the read options of the store for r.
func (r entityRead) options() batching.ReadOptions {
	return batching.ReadOptions{Consistent: r.consistent, Projection: r.projection.names(r.records, r.sharded)}
}

// decode decodes the item read as k, marked partial when read in part.
func (r entityRead) decode(k Key, item map[string]types.AttributeValue) (*Entity, error) {
	e, err := decodeStored(k, item)
	r.projection.apply(e)
	return e, err
}

// errPartial is the refusal of a whole write of an entity read in part.
func errPartial(k Key) error {
	return invalid("Entity", k.String(), "was read in part (a Projection): writing it whole would drop the attributes it did not read; change it with Patch")
}
