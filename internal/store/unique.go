package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/internal/entitystate"
	"github.com/rynodb/rynodb/internal/errs"
	"github.com/rynodb/rynodb/internal/indexentries"
)

// LookupUnique reads the claim of value in the unique index of scope and returns
// the key it names. A claim whose holder has expired is held by none.
func (c *Core) LookupUnique(ctx context.Context, scope, index string, value indexing.Value, consistent bool) (Key, error) {
	in := GetInput(c.Names.IndexEntries, indexentries.ClaimPrimaryKey(scope, index, value))
	in.ConsistentRead = aws.Bool(consistent)
	out, err := c.API.GetItem(ctx, in)
	if err != nil {
		return Key{}, errs.Wrap(err, "lookup %v in %s of %s", value.Interface(), index, scope)
	}
	if out.Item == nil {
		return Key{}, Unheld(scope, index, value)
	}
	cl, err := indexentries.ClaimFromItem(out.Item)
	if err != nil {
		return Key{}, err
	}
	holder := Key{Scope: cl.Scope, Type: cl.Type, ID: cl.ID}
	if !entitystate.ExpiredAt(entitystate.ExpiresOf(out.Item), c.Now()) {
		return holder, nil
	}
	// The holder has expired, unless a write extended it since the claim was put.
	item, err := c.GetItem(ctx, holder, consistent)
	switch {
	case err != nil:
		return Key{}, err
	case item == nil || c.Hidden(item):
		return Key{}, Unheld(scope, index, value)
	}
	return holder, nil
}

// Unheld is the error of a value no entity holds.
func Unheld(scope, index string, value indexing.Value) error {
	return fmt.Errorf("%w: no entity of %s holds %v in %s", errs.ErrNotFound, scope, value.Interface(), index)
}
