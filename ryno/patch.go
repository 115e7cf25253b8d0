package ryno

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/numbers"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

// Patch is a partial update of an entity: the attributes it names are set, removed
// or added to, and the others stay as they are stored. Each name appears once.
type Patch struct {
	// Set sets attributes to values, which are anything Entity.Attributes holds.
	Set map[string]any
	// Remove removes attributes; removing one that does not exist is not an error.
	Remove []string
	// Add adds numbers to number attributes, as DynamoDB's ADD does: an attribute
	// that does not exist counts as 0. Values are Go numbers or
	// json.Number; adding to an attribute that is not a number fails.
	Add map[string]any
	// Expires, when not zero, sets the entity's expiry (see Entity.Expires); zero
	// keeps the stored one.
	Expires time.Time
}

// Patch applies p to the entity k and returns the entity as stored. The entity must
// exist (ErrNotFound otherwise); with IfVersion, it must have that version
// (*ConflictError otherwise); with IfCreated, it must be the life created then (a
// *ConflictError matching ErrNotFound too otherwise), so that an ETag of a life
// since deleted does not patch the key's new one. Nothing is written when the call
// fails.
//
// On a type without indexes it is one UpdateItem, which also bumps the version and
// Updated, and checks the version and the life asked for in its own condition:
// concurrent patches all apply, in some order, and no addition is ever lost or
// applied twice (a patch whose response is lost recognises its own write, or fails
// with ErrOutcomeUnknown). On an indexed type the map functions must see the new
// attributes, so the entity is read and written back as Modify does, with its index
// entries in the same transaction.
//
// It sends one UpdateItem (one round). On a type with index entries it sends what
// Modify does: one GetItem, one Query of the entries, one TransactWriteItems (3
// rounds); with inline indexes only, one GetItem and one PutItem (2 rounds). A
// conflict there adds an attempt.
func (c *Client) Patch(ctx context.Context, k Key, p Patch, opts ...WriteOption) (_ *Entity, err error) {
	ctx, call, err := c.begin(ctx, "Patch")
	defer call.end(&err)
	if err != nil {
		return nil, err
	}
	if err := k.Validate(); err != nil {
		return nil, err
	}
	o, err := writeOptionsOf("Patch", opts)
	if err == nil {
		err = o.withoutLists("Patch")
	}
	if err != nil {
		return nil, err
	}
	ep, err := encodePatch(p)
	if err != nil {
		return nil, err
	}
	if c.indexes.Has(k.Type) {
		return c.patchIndexed(ctx, k, ep, o)
	}
	return c.patchItem(ctx, k, ep, o)
}

// encodePatch checks p as a put checks an entity, before any request.
func encodePatch(p Patch) (store.Patch, error) {
	ep := store.Patch{Set: map[string]types.AttributeValue{}, Add: map[string]string{}}
	named := map[string]bool{}
	name := func(n string) error {
		if err := schema.ValidateAttributeName(n); err != nil {
			return err
		}
		if named[n] {
			return invalid("Patch", n, "names the attribute twice")
		}
		named[n] = true
		return nil
	}
	for _, n := range slices.Sorted(maps.Keys(p.Set)) {
		if err := name(n); err != nil {
			return ep, err
		}
		av, err := encodeValue("Patch.Set."+n, p.Set[n])
		if err != nil {
			return ep, err
		}
		ep.Set[n] = av
	}
	for _, n := range p.Remove {
		if err := name(n); err != nil {
			return ep, err
		}
		ep.Remove = append(ep.Remove, n)
	}
	for _, n := range slices.Sorted(maps.Keys(p.Add)) {
		if err := name(n); err != nil {
			return ep, err
		}
		av, err := encodeValue("Patch.Add."+n, p.Add[n])
		if err != nil {
			return ep, err
		}
		num, ok := av.(*types.AttributeValueMemberN)
		if !ok {
			return ep, invalid("Patch.Add."+n, fmt.Sprint(p.Add[n]), "is not a number")
		}
		ep.Add[n] = num.Value
	}
	if err := validateExpiry("Patch.Expires", p.Expires); err != nil {
		return ep, err
	}
	ep.Expires = p.Expires
	if len(named) == 0 && p.Expires.IsZero() {
		return ep, invalid("Patch", "", "changes nothing")
	}
	if size := schema.ItemSize(ep.Set); size > schema.MaxItemBytes {
		return ep, invalid("Patch.Set", "", fmt.Sprintf("is %d bytes; an item holds at most %d", size, schema.MaxItemBytes))
	}
	return ep, nil
}

// patchItem applies ep with one UpdateItem.
func (c *Client) patchItem(ctx context.Context, k Key, ep store.Patch, o writeOptions) (*Entity, error) {
	item, err := c.core.PatchItem(ctx, k, ep, store.PatchOptions{Version: o.version, Created: o.created, Cond: o.cond.store()})
	if err != nil {
		return nil, err
	}
	return decodeStored(k, item)
}

// patchIndexed applies ep to an entity of an indexed type as Modify does, so that
// its index entries change with it.
func (c *Client) patchIndexed(ctx context.Context, k Key, ep store.Patch, o writeOptions) (*Entity, error) {
	return c.modify(ctx, k, o, func(e *Entity) error { return applyPatch(e, ep) })
}

// patched returns the base item (see store.Put) of the entity stored as item, with
// ep applied.
func patched(item map[string]types.AttributeValue, ep store.Patch) (map[string]types.AttributeValue, error) {
	e, err := decodeListed(item)
	if err != nil {
		return nil, err
	}
	if err := applyPatch(e, ep); err != nil {
		return nil, err
	}
	return encodeEntity(e)
}

// applyPatch changes e as DynamoDB would apply ep.
func applyPatch(e *Entity, ep store.Patch) error {
	for n, av := range ep.Set {
		v, err := numbers.Decode(av)
		if err != nil {
			return err
		}
		e.Attributes[n] = v
	}
	for _, n := range ep.Remove {
		delete(e.Attributes, n)
	}
	if !ep.Expires.IsZero() {
		e.Expires = ep.Expires
	}
	for n, delta := range ep.Add {
		current := "0"
		switch v, ok := e.Attributes[n]; v := v.(type) {
		case nil:
			if ok { // a NULL: DynamoDB adds only to numbers and sets
				return invalid("Patch.Add."+n, e.Key.String(), "the stored value is NULL, not a number")
			}
		case json.Number:
			current = string(v)
		default:
			return invalid("Patch.Add."+n, e.Key.String(), fmt.Sprintf("the stored value is a %T, not a number", v))
		}
		sum, err := numbers.Add(current, delta)
		if err != nil {
			return invalid("Patch.Add."+n, e.Key.String(), err.Error())
		}
		e.Attributes[n] = json.Number(sum)
	}
	return nil
}
