package ryno

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/entitystate"
	"github.com/rynodb/rynodb/internal/numbers"
	"github.com/rynodb/rynodb/internal/relationships"
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
// (*ConflictError otherwise). Nothing is written when the call fails.
//
// On a type without indexes it is one UpdateItem, which also bumps the version and
// Updated: concurrent patches all apply, in some order, and no addition is ever lost
// or applied twice (a patch whose response is lost recognises its own write, or fails
// with ErrOutcomeUnknown). On an indexed type the map functions must see the new
// attributes, so the entity is read and written back as Modify does, with its index
// entries in the same transaction.
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

// encodedPatch is a Patch checked and encoded.
type encodedPatch struct {
	set     map[string]types.AttributeValue
	remove  []string
	add     map[string]string // decimal numbers
	expires time.Time         // zero: kept
}

// encodePatch checks p as a put checks an entity, before any request.
func encodePatch(p Patch) (encodedPatch, error) {
	ep := encodedPatch{set: map[string]types.AttributeValue{}, add: map[string]string{}}
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
		ep.set[n] = av
	}
	for _, n := range p.Remove {
		if err := name(n); err != nil {
			return ep, err
		}
		ep.remove = append(ep.remove, n)
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
		ep.add[n] = num.Value
	}
	if err := validateExpiry("Patch.Expires", p.Expires); err != nil {
		return ep, err
	}
	ep.expires = p.Expires
	if len(named) == 0 && p.Expires.IsZero() {
		return ep, invalid("Patch", "", "changes nothing")
	}
	if size := schema.ItemSize(ep.set); size > schema.MaxItemBytes {
		return ep, invalid("Patch.Set", "", fmt.Sprintf("is %d bytes; an item holds at most %d", size, schema.MaxItemBytes))
	}
	return ep, nil
}

// size is the bytes the patch sends beside the key: the attributes it sets, the
// names it removes and the numbers it adds.
func (ep encodedPatch) size() int {
	n := schema.ItemSize(ep.set)
	for _, name := range ep.remove {
		n += len(name)
	}
	adds := make(map[string]types.AttributeValue, len(ep.add))
	for name, v := range ep.add {
		adds[name] = &types.AttributeValueMemberN{Value: v}
	}
	if !ep.expires.IsZero() {
		adds[schema.AttrExpires] = expiresAttr(ep.expires)
	}
	return n + schema.ItemSize(adds)
}

// patchItem applies ep with one UpdateItem.
func (c *Client) patchItem(ctx context.Context, k Key, ep encodedPatch, o writeOptions) (*Entity, error) {
	version := o.version
	token := commit.NewToken()
	in := c.patchInput(k, ep, o, token)
	send := c.core.UpdateSend(in)
	unapplied := func(s entitystate.State) bool { return version > 0 && s.Live() && s.Version == version }
	resolve := func(ctx context.Context) commit.Attempt {
		return c.core.Resolve(ctx, relationships.Key(k), token, unapplied, send)
	}
	a := c.core.Settle(ctx, send, resolve)
	switch a.Outcome {
	case commit.Committed:
		return decodeEntity(a.Item)
	case commit.ConditionFailed:
		return c.patchRefused(ctx, k, o, token, a.Item)
	}
	var api smithy.APIError
	if errors.As(a.Err, &api) && api.ErrorCode() == "ValidationException" {
		return nil, invalid("Patch", k.String(), api.ErrorMessage())
	}
	return nil, wrap(a.Err, "patch %s", k)
}

// patchInput is the UpdateItem of ep: the changes, the version and Updated bumped,
// the token recorded, under the condition that the entity exists, is not being
// deleted, is indexed by no client (its type has no index here), has the version
// asked for, and does not already hold this write.
func (c *Client) patchInput(k Key, ep encodedPatch, o writeOptions, token string) *dynamodb.UpdateItemInput {
	now := c.now()
	u := expression.Set(expression.Name(schema.AttrUpdated), expression.Value(str(schema.FormatTime(now)))).
		Set(expression.Name(schema.AttrToken), expression.Value(str(token))).
		Add(expression.Name(schema.AttrVersion), expression.Value(number(1)))
	// The builder reads '.' and '[' in a name as a path into nested attributes; user
	// names are top-level attributes whatever they hold, so it gets aliases.
	var a aliases
	for _, n := range slices.Sorted(maps.Keys(ep.set)) {
		u = u.Set(a.name(n), expression.Value(ep.set[n]))
	}
	for _, n := range ep.remove {
		u = u.Remove(a.name(n))
	}
	if !ep.expires.IsZero() {
		u = u.Set(expression.Name(schema.AttrExpires), expression.Value(expiresAttr(ep.expires)))
	}
	// The patch may add or remove names: the item's shape is no longer known.
	u = u.Remove(expression.Name(schema.AttrShape))
	for _, n := range slices.Sorted(maps.Keys(ep.add)) {
		u = u.Add(a.name(n), expression.Value(&types.AttributeValueMemberN{Value: ep.add[n]}))
	}
	cond := expression.AttributeExists(expression.Name(schema.AttrID)).
		And(expression.AttributeNotExists(expression.Name(schema.AttrDeleting)),
			actions.NotExpired(now),
			expression.AttributeNotExists(expression.Name(schema.AttrIndexes)),
			expression.Name(schema.AttrToken).NotEqual(expression.Value(str(token))))
	if o.version > 0 {
		cond = cond.And(expression.Name(schema.AttrVersion).Equal(expression.Value(number(o.version))))
	}
	if o.cond != nil {
		cond = cond.And(o.cond.build(now))
	}
	b := commit.Build(cond, &u)
	a.resolve(b.Names)
	return c.core.EntityUpdate(relationships.Key(k), b)
}

// aliases stands in for attribute names in an expression builder: plain names the
// builder parses as they are, swapped for the real ones in the built names.
type aliases struct{ names []string }

// name returns the builder for the attribute named n.
func (a *aliases) name(n string) expression.NameBuilder {
	a.names = append(a.names, n)
	return expression.Name("alias" + strconv.Itoa(len(a.names)-1))
}

// resolve swaps the aliases in built names for the names they stand for. Aliases
// never meet the store's own names, which all start with '_'.
func (a *aliases) resolve(built map[string]string) {
	for placeholder, name := range built {
		if i, ok := strings.CutPrefix(name, "alias"); ok {
			if n, err := strconv.Atoi(i); err == nil && n < len(a.names) {
				built[placeholder] = a.names[n]
			}
		}
	}
}

// patchRefused explains a patch whose condition failed on the stored item.
func (c *Client) patchRefused(ctx context.Context, k Key, o writeOptions, token string, item map[string]types.AttributeValue) (*Entity, error) {
	version := o.version
	s, err := c.core.ReadStored(relationships.Key(k), item)
	switch {
	case err != nil:
		return nil, err
	case s.Exists() && s.Token == token: // an earlier attempt landed
		return decodeEntity(item)
	case s.Ending():
		if err := c.core.CompleteDelete(ctx, relationships.Key(k), s); err != nil {
			return nil, wrap(err, "patch %s: completing a delete", k)
		}
		return nil, notFound(k)
	case !s.Exists() && version > 0:
		return nil, &ConflictError{Key: k, Expected: version, Missing: true, Reason: fmt.Sprintf("expected version %d, the entity does not exist", version)}
	case !s.Exists():
		return nil, notFound(k)
	case s.Indexes != "":
		return nil, &UnknownIndexError{Key: k, Indexes: store.UnknownIndexes(s.Indexes, "")}
	case o.cond != nil && (version == 0 || s.Version == version):
		return nil, &ConditionError{Key: k, Condition: o.cond.String()}
	}
	return nil, &ConflictError{Key: k, Expected: version, Stored: s.Version, Reason: fmt.Sprintf("expected version %d, stored is %d", version, s.Version)}
}

// patchIndexed applies ep to an entity of an indexed type as Modify does, so that
// its index entries change with it.
func (c *Client) patchIndexed(ctx context.Context, k Key, ep encodedPatch, o writeOptions) (*Entity, error) {
	return c.modify(ctx, k, o, func(e *Entity) error { return ep.apply(e) })
}

// apply changes e as DynamoDB would apply the patch.
func (ep encodedPatch) apply(e *Entity) error {
	for n, av := range ep.set {
		v, err := numbers.Decode(av)
		if err != nil {
			return err
		}
		e.Attributes[n] = v
	}
	for _, n := range ep.remove {
		delete(e.Attributes, n)
	}
	if !ep.expires.IsZero() {
		e.Expires = ep.expires
	}
	for n, delta := range ep.add {
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
