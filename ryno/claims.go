package ryno

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/schema"
)

// UniqueError reports a write refused because another entity holds a value of a
// unique index: Index and Value (as the map function emitted it) name it, Owner is
// the entity holding it. It matches ErrExists (and so ErrConflict).
type UniqueError struct {
	Index string
	Value any
	Owner Key
}

func (e *UniqueError) Error() string {
	return fmt.Sprintf("ryno: %v is taken in unique index %s by %s", e.Value, e.Index, e.Owner)
}

func (e *UniqueError) Is(target error) bool { return target == ErrExists || target == ErrConflict }

// claimChanges returns the claims a write of an entity makes and releases: the
// values of its unique indexes it emits and the stored entries do not hold, and
// those they hold that it no longer emits.
func (reg indexRegistry) claimChanges(stored, emitted []indexentries.Entry) (claims, releases []indexentries.Claim) {
	held := map[string]bool{}
	for _, e := range stored {
		held[e.IndexName+"\x00"+e.Value.Encoding()] = true
	}
	wanted := map[string]bool{}
	for _, e := range emitted {
		k := e.IndexName + "\x00" + e.Value.Encoding()
		if !reg.unique(e.Type, e.IndexName) || wanted[k] {
			continue
		}
		wanted[k] = true
		if !held[k] {
			claims = append(claims, indexentries.ClaimOf(e))
		}
	}
	for _, e := range stored {
		k := e.IndexName + "\x00" + e.Value.Encoding()
		if reg.unique(e.Type, e.IndexName) && !wanted[k] {
			releases = append(releases, indexentries.ClaimOf(e))
			wanted[k] = true // once
		}
	}
	return claims, releases
}

// ownedByOrFree is the condition that a claim's item is absent or owned by the
// entity typ/id.
func ownedByOrFree(typ, id string) expression.ConditionBuilder {
	return expression.AttributeNotExists(expression.Name(schema.AttrSubjectKey)).Or(
		expression.Name(schema.AttrType).Equal(expression.Value(str(typ))).
			And(expression.Name(schema.AttrID).Equal(expression.Value(str(id)))))
}

// claimAction puts c, unless another entity owns it; a refusal returns the claim.
func (c *Client) claimAction(cl indexentries.Claim) types.TransactWriteItem {
	b := build(ownedByOrFree(cl.Type, cl.ID), nil)
	return types.TransactWriteItem{Put: &types.Put{
		TableName: aws.String(c.names.IndexEntries), Item: cl.Item(),
		ConditionExpression: b.condition, ExpressionAttributeNames: b.names, ExpressionAttributeValues: b.values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}}
}

// releaseAction deletes c, unless another entity owns it by now.
func (c *Client) releaseAction(cl indexentries.Claim) types.TransactWriteItem {
	b := build(ownedByOrFree(cl.Type, cl.ID), nil)
	return types.TransactWriteItem{Delete: &types.Delete{
		TableName: aws.String(c.names.IndexEntries), Key: cl.PrimaryKey(),
		ConditionExpression: b.condition, ExpressionAttributeNames: b.names, ExpressionAttributeValues: b.values,
	}}
}

// addClaims adds the claims and releases of a write to t.
func (c *Client) addClaims(t *listTransaction, claims, releases []indexentries.Claim) {
	for _, cl := range claims {
		t.add(c.claimAction(cl), actionRole{kind: roleClaim, claim: cl}, schema.ItemSize(cl.Item()))
	}
	for _, cl := range releases {
		t.add(c.releaseAction(cl), actionRole{kind: roleClaim, claim: cl, release: true}, schema.ItemSize(cl.PrimaryKey()))
	}
}

// uniqueTaken is the error of a claim refused: who holds the value.
func uniqueTaken(cl indexentries.Claim, item map[string]types.AttributeValue) error {
	owner := Key{Scope: cl.Scope}
	if held, err := indexentries.ClaimFromItem(item); err == nil {
		owner.Type, owner.ID = held.Type, held.ID
	}
	return &UniqueError{Index: cl.IndexName, Value: cl.Value.Interface(), Owner: owner}
}

// LookupUnique returns the key of the entity holding value in the unique index in,
// or an error matching ErrNotFound when none does. One GetItem,
// strongly consistent with Options.ConsistentRead.
func (c *Client) LookupUnique(ctx context.Context, si ScopedIndex, value indexing.Value) (_ Key, err error) {
	ctx, call, err := c.begin(ctx, "LookupUnique")
	defer call.end(&err)
	if err != nil {
		return Key{}, err
	}
	scope, index := si.Scope, si.Index
	ix, ok := c.indexes.byName(index)
	switch {
	case !ok:
		return Key{}, errUnregistered(index)
	case !ix.Unique:
		return Key{}, invalid("index", index, "is not unique")
	}
	if err := schema.ValidateComponent("scope", scope); err != nil {
		return Key{}, err
	}
	if err := value.Validate(); err != nil {
		return Key{}, err
	}
	in := getInput(c.names.IndexEntries, indexentries.ClaimPrimaryKey(scope, index, value))
	in.ConsistentRead = aws.Bool(c.opts.ConsistentRead)
	out, err := c.api.GetItem(ctx, in)
	if err != nil {
		return Key{}, wrap(err, "lookup %v in %s of %s", value.Interface(), index, scope)
	}
	if out.Item == nil {
		return Key{}, fmt.Errorf("%w: no entity of %s holds %v in %s", ErrNotFound, scope, value.Interface(), index)
	}
	cl, err := indexentries.ClaimFromItem(out.Item)
	if err != nil {
		return Key{}, err
	}
	return Key{Scope: cl.Scope, Type: cl.Type, ID: cl.ID}, nil
}

// GetByUnique returns the entity holding value in the unique index in, or an
// error matching ErrNotFound: two requests, the claim then the entity.
func (c *Client) GetByUnique(ctx context.Context, in ScopedIndex, value indexing.Value, opts ...GetOption) (_ *Entity, err error) {
	ctx, call, err := c.begin(ctx, "GetByUnique")
	defer call.end(&err)
	if err != nil {
		return nil, err
	}
	k, err := c.LookupUnique(ctx, in, value)
	if err != nil {
		return nil, err
	}
	return c.Get(ctx, k, opts...)
}
