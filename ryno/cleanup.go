package ryno

import (
	"context"
)

// Cleanup deletes what refers to the entity k while k does not exist: the
// relationship entries to and from it (the lists that held them stay exact), its
// index entries and the unique values it claimed, as Delete does for an entity that
// is gone. It is for an entity item removed alone, as DynamoDB's time to live
// removes one: a stream consumer calls it for each changes.EntityDeleted that is
// Expired (see package changes). When k's type owns anything (Options.Owns), it
// first deletes the entities k's owned lists still name, as a Delete of k would.
//
// What fits in one transaction is deleted in one that checks that k is still
// missing, so it is safe to call twice, and late: once k is created anew, it stops
// and changes nothing. More than that is swept as Delete sweeps: k gets a
// tombstone first (an item that reads as missing, deleted last), so a Create of k
// meanwhile completes the sweep before it writes rather than take a list half
// swept as its own. A tombstone it meets (a Delete's, or that of a Cleanup cut
// off) or an expired entity has its deletion completed, as every writer meeting
// one does. It never deletes a live entity of k, nor any entity but those a
// missing owner owned; use Delete for that.
//
// It sends at least the 3 Queries of a Delete's sweep (one round), then a consistent
// GetItem of k (another round); what refers to k adds one TransactWriteItems while
// it fits in one, and beyond that the tombstone and the sweep of Delete.
func (c *Client) Cleanup(ctx context.Context, k Key) (err error) {
	ctx, call, err := c.begin(ctx, "Cleanup")
	defer call.end(&err)
	if err != nil {
		return err
	}
	if err := k.Validate(); err != nil {
		return err
	}
	if _, err := c.core.SweepMissing(ctx, k); err != nil {
		return wrap(err, "clean up after %s", k)
	}
	return nil
}

// CompleteDelete completes the deletion under way of the entity k, if there is one:
// a Delete whose tombstone is still there (cut off, or still running elsewhere, as
// a Delete InBackground may be), with what k owns (Options.Owns), or the deletion
// of k once it has expired. Otherwise it does nothing: it never starts a Delete, so
// a stream consumer may call it for a record that comes late, after k was deleted
// or created anew. It sends one consistent GetItem (one round) when there is nothing
// to complete (see changes.Complete), and otherwise, after it, what the rest of the
// Delete sends.
//
// It may run beside the Delete it completes: each step of a Delete checks the
// tombstone, so the two share the work and neither leaves anything behind.
func (c *Client) CompleteDelete(ctx context.Context, k Key) (err error) {
	ctx, call, err := c.begin(ctx, "CompleteDelete")
	defer call.end(&err)
	if err != nil {
		return err
	}
	if err := k.Validate(); err != nil {
		return err
	}
	return c.core.FinishDelete(ctx, k)
}
