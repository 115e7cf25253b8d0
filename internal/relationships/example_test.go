package relationships_test

import (
	"fmt"

	"github.com/rynodb/rynodb/entity"
	"github.com/rynodb/rynodb/internal/relationships"
)

func ExamplePlanReplace() {
	ada := entity.Key{Scope: "acme", Type: "person", ID: "ada"}
	book := func(id string) entity.Key { return entity.Key{Scope: "acme", Type: "book", ID: id} }

	// The list as a Query returned it: a, b, c, d, e.
	var existing []relationships.Entry
	for i, id := range []string{"a", "b", "c", "d", "e"} {
		existing = append(existing, relationships.Entry{Subject: ada, Predicate: "likes", Index: i, Object: book(id)})
	}

	objects := []entity.Key{book("a"), book("c"), book("x"), book("e")}
	if err := relationships.Validate(ada, "likes", objects); err != nil {
		panic(err)
	}
	// a, c and e keep their entries; x takes the free index between c and e.
	plan := relationships.PlanReplace(ada, "likes", existing, objects)
	for _, e := range plan.Puts {
		fmt.Println("put   ", e.Index, e.Object.ID)
	}
	for _, e := range plan.Deletes {
		fmt.Println("delete", e.Index, e.Object.ID)
	}
	// Output:
	// put    3 x
	// delete 1 b
	// delete 3 d
}
