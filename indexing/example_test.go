package indexing_test

import (
	"fmt"
	"math"
	"time"

	"github.com/rynodb/rynodb/indexing"
)

func ExampleValue_String() {
	fmt.Println(indexing.String("ada"))
	fmt.Println(indexing.Bool(true))
	fmt.Println(indexing.Int(-1))
	fmt.Println(indexing.Float(1))
	fmt.Println(indexing.Time(time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)))
	// Output:
	// "ada"
	// true
	// -1
	// 1.0
	// 2024-05-01T12:00:00Z
}

func ExampleValue_Encoding() {
	fmt.Println(indexing.String("ada").Encoding())
	fmt.Println(indexing.Bool(true).Encoding())
	fmt.Println(indexing.Int(-1).Encoding())
	fmt.Println(indexing.Int(5).Encoding())
	fmt.Println(indexing.Float(1.5).Encoding())
	fmt.Println(indexing.Float(math.Inf(-1)).Encoding())
	fmt.Println(indexing.Time(time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)).Encoding())
	// Output:
	// 'ada
	// b1
	// i7fffffffffffffff
	// i8000000000000005
	// fbff8000000000000
	// f000fffffffffffff
	// t2024-05-01T12:00:00.000000000Z
}

func ExampleCondition_Expression() {
	x, err := indexing.Less(indexing.Int(18)).Expression("acme", "by_age")
	if err != nil {
		panic(err)
	}
	fmt.Println(x.KeyCondition)
	fmt.Println(x.Names["#pk"], x.Names["#sk"])
	fmt.Println(len(x.Values), "values")
	// Output:
	// #pk = :pk AND #sk BETWEEN :lo AND :hi
	// _scope_index_name _index_key
	// 3 values
}

func ExampleTuple() {
	opened := time.Date(2026, 3, 9, 10, 0, 0, 0, time.UTC)
	v := indexing.Tuple(indexing.String("acme|web"), indexing.String("open"), indexing.Time(opened))
	fmt.Println(v)
	fmt.Println(v.Parts()[1])

	open := indexing.BeginsWith(indexing.Tuple(indexing.String("acme|web"), indexing.String("open")))
	fmt.Println(open.Match(v))
	fmt.Println(open.Match(indexing.Tuple(indexing.String("acme|web"), indexing.String("open|stale"))))
	// Output:
	// ("acme|web", "open", 2026-03-09T10:00:00Z)
	// "open"
	// true
	// false
}
