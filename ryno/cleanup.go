package ryno

import "context"

// Cleanup deletes what refers to the entity k while k does not exist: the
// relationship entries to and from it (the lists that held them stay exact), its
// index entries and the unique values it claimed, as Delete does for an entity that
// is gone. It is for an entity item removed alone, as DynamoDB's time to live
// removes one: a stream consumer calls it for each changes.EntityDeleted that is
// Expired (see package changes).
//
// Each of its transactions checks that k is still missing, so it is safe to call
// twice, and late: once k exists again (created anew, or being deleted by a Delete
// that will finish), it stops and changes nothing. It never deletes an entity; use
// Delete for that.
func (c *Client) Cleanup(ctx context.Context, k Key) (err error) {
	ctx, call, err := c.begin(ctx, "Cleanup")
	defer call.end(&err)
	if err != nil {
		return err
	}
	if err := k.Validate(); err != nil {
		return err
	}
	if err := c.sweep(ctx, k, guard{key: k, absent: true}, nil); err != nil {
		return wrap(err, "clean up after %s", k)
	}
	return nil
}
