package ryno

import (
	"maps"
	"slices"
)

// validateLists checks every list a write replaces; sets are not written there.
func (c *Client) validateLists(subject Key, lists map[string][]Key) error {
	for _, predicate := range slices.Sorted(maps.Keys(lists)) {
		if err := c.validateList(subject, predicate, lists[predicate]); err != nil {
			return wrap(err, "ReplaceLists[%q]", predicate)
		}
		if err := c.listsOnly("ReplaceLists", predicate); err != nil {
			return err
		}
	}
	return nil
}
