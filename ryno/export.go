package ryno

import (
	"context"
	"io"

	"github.com/rynodb/rynodb/bulk"
)

// Export writes the entities opts chooses to w as JSON Lines, one bulk.Line per
// entity with its lists and sequences, and nothing of the store's bookkeeping (see
// package bulk). It reads the entities table with a parallel Scan of
// opts.Segments segments, each holding one page at a time, and for the entities
// of each page, up to Options.MaxConcurrency at once, a Query of their lists and
// sequences. Entities being deleted or expired are left out.
//
// An entity item it cannot read (one another program wrote) is left out, counted
// in Report.Bad and named in Report.Errors, and the export, otherwise complete,
// returns an error matching ErrUnreadable.
//
// The lines of one page are written together, in no set order across pages. A
// list a writer is changing meanwhile is exported as it stands: export when writes
// are quiet for a copy of one instant, or after `ryno check --repair`.
func (c *Client) Export(ctx context.Context, w io.Writer, opts bulk.ExportOptions) (_ bulk.Report, err error) {
	ctx, call, err := c.begin(ctx, "Export")
	defer call.end(&err)
	if err != nil {
		return bulk.Report{}, err
	}
	return c.transfer.Export(ctx, w, opts)
}
