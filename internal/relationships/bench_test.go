package relationships_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
)

func BenchmarkPlanReplace(b *testing.B) {
	for _, size := range []int{100, 10_000} {
		objects := make([]Key, size)
		for i := range objects {
			objects[i] = Key{Scope: "acme", Type: "book", ID: schema.FormatIndex(i)}
		}
		existing := list(objects...)
		moved := slices.Clone(objects)
		moved = append(moved[1:], moved[0])
		shuffled := slices.Clone(objects)
		rand.New(rand.NewPCG(1, 1)).Shuffle(size, func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		for _, c := range []struct {
			name    string
			objects []Key
		}{{"same", objects}, {"first moved last", moved}, {"shuffled", shuffled}} {
			b.Run(fmt.Sprintf("%d/%s", size, c.name), func(b *testing.B) {
				for b.Loop() {
					relationships.PlanReplace(subject, predicate, existing, c.objects)
				}
			})
		}
	}
}
