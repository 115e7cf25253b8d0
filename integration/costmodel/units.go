package costmodel

import (
	"fmt"
	"math"
	"strings"

	"github.com/rynodb/rynodb/internal/schema"
)

// Units is the capacity consumed on one table, or one index of it.
type Units struct {
	Table string
	Index string // empty for the table itself
	Read  float64
	Write float64
}

// Cost is the capacity some requests consumed: the totals, and Units by table and
// index (those with a non-zero figure, sorted by table then index).
type Cost struct {
	Read  float64
	Write float64
	Units []Units
}

// Add returns the sum of c and d.
func (c Cost) Add(d Cost) Cost {
	var b bill
	b.addCost(c)
	b.addCost(d)
	return b.cost()
}

// Sum returns the sum of costs.
func Sum(costs ...Cost) Cost {
	var b bill
	for _, c := range costs {
		b.addCost(c)
	}
	return b.cost()
}

func (c Cost) String() string {
	var s strings.Builder
	fmt.Fprintf(&s, "%g RCU, %g WCU", c.Read, c.Write)
	for _, u := range c.Units {
		name := u.Table
		if u.Index != "" {
			name += "/" + u.Index
		}
		fmt.Fprintf(&s, "; %s: %g R %g W", name, u.Read, u.Write)
	}
	return s.String()
}

// Rates of transactional writes relative to standard ones, and the size units of
// writes and reads.
const (
	TransactionFactor = 2
	writeUnitBytes    = 1024
	readUnitBytes     = 4096
)

// WCU returns the write capacity units of writing an item of n bytes: n in 1 KB
// units, rounded up, at least 1.
func WCU(n int) float64 { return max(1, math.Ceil(float64(n)/writeUnitBytes)) }

// RCU returns the read capacity units of reading n bytes: n in 4 KB units, rounded
// up, at least 1; half that when the read is eventually consistent.
func RCU(n int, consistent bool) float64 {
	u := max(1, math.Ceil(float64(n)/readUnitBytes))
	if !consistent {
		u /= 2
	}
	return u
}

// Size returns the size of item as DynamoDB counts it; 0 for no item.
func Size(item Item) int {
	if item == nil {
		return 0
	}
	return schema.ItemSize(item)
}
