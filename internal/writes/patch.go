package writes

import (
	"context"
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

	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/entitystate"
	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/schema"
	"github.com/rynodb/rynodb/internal/store"
)

// Patch is a partial update of an entity, checked and encoded by package ryno.
type Patch struct {
	Set     map[string]types.AttributeValue
	Remove  []string
	Add     map[string]string // decimal numbers
	Expires time.Time         // zero: kept
}

// Size is the bytes the patch sends beside the key: the attributes it sets, the
// names it removes and the numbers it adds.
func (p Patch) Size() int {
	n := schema.ItemSize(p.Set)
	for _, name := range p.Remove {
		n += len(name)
	}
	adds := make(map[string]types.AttributeValue, len(p.Add))
	for name, v := range p.Add {
		adds[name] = &types.AttributeValueMemberN{Value: v}
	}
	if !p.Expires.IsZero() {
		adds[schema.AttrExpires] = store.ExpiresAttr(p.Expires)
	}
	return n + schema.ItemSize(adds)
}

// PatchOptions are the conditions of a patch: the version it requires (0: any), the
// life (zero: any) and the caller's condition.
type PatchOptions struct {
	Version int64
	Created time.Time // the entity's Created (IfCreated), when not zero
	Cond    store.Condition
	// StoredCreated is the stored _created, in another layout than the store's, that
	// the patch requires and writes anew in the store's; "" for one in the store's
	// layout, which the patch keeps. A refusal shows which.
	StoredCreated string
}

// maxPatchAttempts bounds the attempts of a patch refused only for the layout of
// the stored _created (see CreatedRefused).
const maxPatchAttempts = 3

// PatchItem applies p to the entity k, of a type without indexes, with one
// UpdateItem, and returns the item as stored. An entity whose _created another
// program wrote in another layout takes one more, which writes it in the store's.
func (c *Writer) PatchItem(ctx context.Context, k store.Key, p Patch, o PatchOptions) (map[string]types.AttributeValue, error) {
	token := commit.NewToken() // a refused attempt wrote nothing: the next one keeps it
	// The last attempt refused for the layout of _created alone: the item that
	// refused it and its options. No attempt landed, so the refusal is no item.
	var refused map[string]types.AttributeValue
	var refusedAs PatchOptions
	giveUp := func(_, _ error) error {
		_, err := c.patchRefused(ctx, k, refusedAs, token, refused)
		return err
	}
	return batching.Attempts(ctx, batching.Tries(maxPatchAttempts), giveUp, func(ctx context.Context) (map[string]types.AttributeValue, batching.Step, error) {
		a := c.patchOnce(ctx, k, p, o, token)
		switch a.Outcome {
		case commit.Committed:
			return a.Item, batching.Done, nil
		case commit.ConditionFailed:
			if created, ok := c.createdRefused(k, o, token, a.Item); ok {
				refused, refusedAs = a.Item, o
				o.StoredCreated = created
				return nil, batching.Retry, nil
			}
			item, err := c.patchRefused(ctx, k, o, token, a.Item)
			return item, batching.Done, err
		}
		var api smithy.APIError
		if errors.As(a.Err, &api) && api.ErrorCode() == "ValidationException" {
			return nil, batching.Done, &schema.ValidationError{Field: "Patch", Value: k.String(), Reason: api.ErrorMessage()}
		}
		return nil, batching.Done, errs.Wrap(a.Err, "patch %s", k)
	})
}

// patchOnce sends the UpdateItem of p, resolving a lost response from the item.
func (c *Writer) patchOnce(ctx context.Context, k store.Key, p Patch, o PatchOptions, token string) commit.Attempt {
	send := c.core.UpdateSend(c.PatchInput(k, p, o, token))
	unapplied := func(s entitystate.State) bool {
		return o.Version > 0 && s.Live() && s.Version == o.Version &&
			(o.Created.IsZero() || s.Created.Equal(schema.TruncateTime(o.Created)))
	}
	resolve := func(ctx context.Context) commit.Attempt {
		return c.core.Resolve(ctx, k, token, unapplied, send)
	}
	return c.core.Settle(ctx, send, resolve)
}

// createdRefused reports whether the stored _created alone refused the patch o,
// item being the item then stored: the entity is otherwise as o requires (its
// version, and the life IfCreated names), and its _created is in another layout
// than o required. It returns what the next attempt requires
// (PatchOptions.StoredCreated).
func (c *Writer) createdRefused(k store.Key, o PatchOptions, token string, item map[string]types.AttributeValue) (string, bool) {
	s, err := c.core.ReadStored(k, item)
	if err != nil || !s.Live() || s.Token == token || s.Indexes != "" || s.Unreadable != nil ||
		(o.Version > 0 && s.Version != o.Version) || store.OtherLife(k, o.Version, o.Created, s.Life()) != nil {
		return "", false
	}
	created := s.CreatedAttr
	if created == "" || schema.InLayout(created) {
		created = ""
	}
	return created, created != o.StoredCreated
}

// PatchInput is the UpdateItem of p: the changes, the version and Updated bumped,
// the token recorded, under the condition that the entity exists, is not being
// deleted, is indexed by no client (its type has no index here), has the version
// and the life asked for, does not already hold this write, and has its _created in
// the store's layout, or the one o.StoredCreated names, which it writes in the
// store's.
func (c *Writer) PatchInput(k store.Key, p Patch, o PatchOptions, token string) *dynamodb.UpdateItemInput {
	now := schema.TruncateTime(c.core.Now())
	u := expression.Set(expression.Name(schema.AttrToken), expression.Value(store.AttrS(token))).
		Add(expression.Name(schema.AttrVersion), expression.Value(store.AttrN(1)))
	u = c.core.UpdateByType(u, k, schema.FormatTime(now))
	created := actions.CreatedInLayout()
	if !o.Created.IsZero() {
		created = entitystate.CreatedIs(o.Created) // in the store's layout, then
	}
	if t, err := schema.ReadTime(o.StoredCreated); err == nil {
		// The life IfCreated names was found stored in this layout (CreatedRefused).
		u = u.Set(expression.Name(schema.AttrCreated), expression.Value(store.AttrS(schema.FormatTime(t))))
		created = entitystate.StoredCreatedIs(o.StoredCreated)
	}
	// The builder reads '.' and '[' in a name as a path into nested attributes; user
	// names are top-level attributes whatever they hold, so it gets aliases.
	var a aliases
	for _, n := range slices.Sorted(maps.Keys(p.Set)) {
		u = u.Set(a.name(n), expression.Value(p.Set[n]))
	}
	for _, n := range p.Remove {
		u = u.Remove(a.name(n))
	}
	if !p.Expires.IsZero() {
		u = u.Set(expression.Name(schema.AttrExpires), expression.Value(store.ExpiresAttr(p.Expires)))
	}
	// The patch may add or remove names: the item's shape is no longer known.
	u = u.Remove(expression.Name(schema.AttrShape))
	for _, n := range slices.Sorted(maps.Keys(p.Add)) {
		u = u.Add(a.name(n), expression.Value(&types.AttributeValueMemberN{Value: p.Add[n]}))
	}
	cond := expression.AttributeExists(expression.Name(schema.AttrID)).
		And(expression.AttributeNotExists(expression.Name(schema.AttrDeleting)),
			actions.NotExpired(now),
			expression.AttributeNotExists(expression.Name(schema.AttrIndexes)),
			expression.Name(schema.AttrToken).NotEqual(expression.Value(store.AttrS(token))),
			created)
	if o.Version > 0 {
		cond = cond.And(expression.Name(schema.AttrVersion).Equal(expression.Value(store.AttrN(o.Version))))
	}
	if o.Cond != nil {
		cond = cond.And(o.Cond.Expression(now))
	}
	b := commit.Build(cond, &u)
	a.resolve(b.Names)
	return c.core.EntityUpdate(k, b)
}

// aliases stands in for attribute names in an expression builder: plain names the
// builder parses as they are, swapped for the real ones in the built names.
type aliases struct{ names []string }

// aliasPrefix starts every alias: reserved, so no user attribute a condition
// names is taken for one, and none of the store's own names starts so.
const aliasPrefix = schema.ReservedPrefix + "alias"

// name returns the builder for the attribute named n.
func (a *aliases) name(n string) expression.NameBuilder {
	a.names = append(a.names, n)
	return expression.Name(aliasPrefix + strconv.Itoa(len(a.names)-1))
}

// resolve swaps the aliases in built names for the names they stand for.
func (a *aliases) resolve(built map[string]string) {
	for placeholder, name := range built {
		if i, ok := strings.CutPrefix(name, aliasPrefix); ok {
			if n, err := strconv.Atoi(i); err == nil && n < len(a.names) {
				built[placeholder] = a.names[n]
			}
		}
	}
}

// patchRefused explains a patch whose condition failed on the stored item.
func (c *Writer) patchRefused(ctx context.Context, k store.Key, o PatchOptions, token string, item map[string]types.AttributeValue) (map[string]types.AttributeValue, error) {
	version := o.Version
	s, err := c.core.ReadStored(k, item)
	if err != nil {
		return nil, err
	}
	life := store.OtherLife(k, version, o.Created, s.Life())
	switch {
	case s.Exists() && s.Token == token: // an earlier attempt landed
		return item, nil
	case s.Ending():
		if err := c.core.Deletes.CompleteDelete(ctx, k, s); err != nil {
			return nil, errs.Wrap(err, "patch %s: completing a delete", k)
		}
		if life != nil {
			return nil, life
		}
		return nil, store.NotFound(k)
	case life != nil:
		return nil, life
	case !s.Exists() && version > 0:
		return nil, &entity.ConflictError{Key: k, Expected: version, Missing: true, Reason: fmt.Sprintf("expected version %d, the entity does not exist", version)}
	case !s.Exists():
		return nil, store.NotFound(k)
	case s.Indexes != "":
		return nil, &entity.UnknownIndexError{Key: k, Indexes: UnknownIndexes(s.Indexes, "")}
	case s.Unreadable != nil:
		return nil, store.Unreadable(k, s.Unreadable)
	case o.Cond != nil && (version == 0 || s.Version == version):
		return nil, &entity.ConditionError{Key: k, Condition: o.Cond.String()}
	}
	return nil, &entity.ConflictError{Key: k, Expected: version, Stored: s.Version, Reason: fmt.Sprintf("expected version %d, stored is %d", version, s.Version)}
}
