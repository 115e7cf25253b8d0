package indexentries_test

import (
	"fmt"
	"math"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/internal/indexentries"
)

func ExampleEmit() {
	type person struct {
		Name string
		Tags []string
	}
	p := person{Name: "Ada", Tags: []string{"math", "computing", "math"}}

	values, err := indexentries.Emit("by_tag", func(emit func(indexing.Value)) {
		for _, tag := range p.Tags {
			emit(indexing.String(tag))
		}
	})
	fmt.Println(values, err)

	_, err = indexentries.Emit("by_score", func(emit func(indexing.Value)) {
		emit(indexing.Float(math.NaN()))
	})
	fmt.Println(err)
	// Output:
	// ["math" "computing"] <nil>
	// ryno: map function of index "by_score": emitted value 1: invalid float value: NaN has no place in an order and cannot be indexed
}

func ExampleDiff() {
	entry := func(age int64) indexentries.Entry {
		return indexentries.Entry{Scope: "acme", Type: "person", ID: "ada", IndexName: "by_age", Value: indexing.Int(age)}
	}
	stored := []indexentries.Entry{entry(35), entry(40)}
	emitted := []indexentries.Entry{entry(36), entry(40)}

	puts, deletes := indexentries.Diff(stored, emitted)
	for _, e := range puts {
		fmt.Println("put", e.Value.Interface())
	}
	for _, e := range deletes {
		fmt.Println("delete", e.Value.Interface())
	}
	// Output:
	// put 36
	// delete 35
}
