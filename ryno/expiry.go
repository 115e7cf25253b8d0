package ryno

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/rynodb/rynodb/internal/actions"
	"github.com/rynodb/rynodb/internal/commit"
	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
)

// An entity written with an Expires time reads as missing from that second on,
// whether or not DynamoDB's time to live has removed its item yet. Readers hide it
// (hidden); a writer that meets it completes its deletion first, as it completes a
// Delete cut off half-way (stored.ending), so nothing that referred to it outlives
// it; writes that do not read the item first carry actions.NotExpired in their condition.

// expirySeconds is t as the entities table stores an expiry: Unix seconds, rounded
// up, so that an entity never expires before the time it was given.
func expirySeconds(t time.Time) int64 {
	s := t.Unix()
	if t.Nanosecond() > 0 {
		s++
	}
	return s
}

// validateExpiry checks an Expires time before any request: zero (no expiry), or a
// time DynamoDB's time to live can hold, after the Unix epoch and before year 10000.
func validateExpiry(field string, t time.Time) error {
	if t.IsZero() {
		return nil
	}
	if t.Unix() < 1 || t.UTC().Year() > 9999 {
		return invalid(field, t.UTC().Format(time.RFC3339), "must fall after 1970-01-01 and before year 10000")
	}
	return nil
}

// expiresAttr is the stored form of t, an entity's expiry.
func expiresAttr(t time.Time) types.AttributeValue {
	return number(expirySeconds(t))
}

// freeHeld makes the value of claim cl, which a write found held (item is the claim
// as stored), free when its holder has ended: expired, being deleted, or gone
// without its claims (removed by DynamoDB's time to live before a consumer ran). It
// completes the holder's deletion, or releases the claim while the holder is still
// missing, and reports whether the write should try again. A live holder keeps it.
func (c *Client) freeHeld(ctx context.Context, cl indexentries.Claim, item map[string]types.AttributeValue) (bool, error) {
	held, err := indexentries.ClaimFromItem(item)
	if err != nil {
		return false, nil // not a claim the store wrote: the refusal stands
	}
	holder := Key{Scope: held.Scope, Type: held.Type, ID: held.ID}
	if holder == (Key{Scope: cl.Scope, Type: cl.Type, ID: cl.ID}) {
		return false, nil
	}
	stored, err := c.core.GetItem(ctx, relationships.Key(holder), true)
	if err != nil {
		return false, err
	}
	s, err := c.core.ReadStored(relationships.Key(holder), stored)
	switch {
	case err != nil:
		return false, err
	case s.Live():
		return false, nil
	case s.Ending():
		if err := c.core.CompleteDelete(ctx, relationships.Key(holder), s); err != nil {
			return false, wrap(err, "completing the deletion of %s, which held %v in %s", holder, cl.Value.Interface(), cl.IndexName)
		}
		return true, nil
	}
	absent := commit.Build(expression.AttributeNotExists(expression.Name(schema.AttrID)), nil)
	a := c.core.Transact(ctx, []types.TransactWriteItem{
		{ConditionCheck: &types.ConditionCheck{TableName: aws.String(c.names.Entities), Key: holder.item(),
			ConditionExpression: absent.Condition, ExpressionAttributeNames: absent.Names}},
		actions.Release(c.names.IndexEntries, held),
	}, commit.NewToken())

	switch a.Outcome {
	case commit.Committed:
		return true, nil
	case commit.ConditionFailed: // the holder exists again, or the claim moved: read anew
		return a.Action == 1, nil
	}
	return false, a.Err
}
