package ryno

import "github.com/rynodb/rynodb/internal/batching"

// conflictPacer returns the pacer of a write that may lose races to other writers,
// within Options.Conflicts.
func (c *Client) conflictPacer() *batching.Pacer {
	return batching.NewPacer(batching.Policy(c.opts.Conflicts), c.batch.Sleep, retrying)
}
