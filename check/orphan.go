package check

import (
	"fmt"

	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/tables"
)

// Orphan is an entry that refers to an entity that does not exist.
type Orphan struct {
	Entry tables.ItemKey // the entry's table and primary key
	// Role says what is missing: the "subject", "object" or "entity" the entry
	// names; or for a RoleClaimed claim on a unique value, the entity holds no
	// entry of that value.
	Role    string
	Missing entity.Key // the missing entity, or the claim's owner; zero when the entry names none
}

// RoleClaimed is the Role of an orphan claim of a unique value whose entity exists
// but no longer holds the value.
const RoleClaimed = "claim"

func (o Orphan) String() string {
	if o.Missing == (entity.Key{}) {
		return fmt.Sprintf("%s: malformed entry", o.Entry)
	}
	if o.Role == RoleClaimed {
		return fmt.Sprintf("%s: entity %s no longer holds the value it claims", o.Entry, o.Missing)
	}
	return fmt.Sprintf("%s: %s %s does not exist", o.Entry, o.Role, o.Missing)
}
