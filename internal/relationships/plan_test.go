package relationships_test

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/relationships"
)

func TestPlanReplace(t *testing.T) {
	since := map[string]types.AttributeValue{"since": n("2017")}
	withSince := func(e Entry) Entry {
		e.Attributes = since
		return e
	}
	tests := []struct {
		name     string
		existing []Entry
		objects  []Key
		puts     []Entry
		deletes  []Entry
	}{
		{name: "nothing to nothing"},
		{name: "empty list",
			objects: []Key{A, B},
			puts:    []Entry{at(0, A), at(1, B)}},
		{name: "identical list",
			existing: list(A, B, C),
			objects:  []Key{A, B, C}},
		{name: "identical list with gaps",
			existing: []Entry{at(0, A), at(5, B), at(9, C)},
			objects:  []Key{A, B, C}},
		{name: "existing in any order",
			existing: []Entry{at(2, C), at(0, A), at(1, B)},
			objects:  []Key{A, B, C}},
		{name: "keep some, drop some, add some",
			existing: list(A, B, C, D, E),
			objects:  []Key{A, C, X, E},
			puts:     []Entry{at(3, X)},
			deletes:  []Entry{at(1, B), at(3, D)}},
		{name: "append",
			existing: list(A, B),
			objects:  []Key{A, B, C},
			puts:     []Entry{at(2, C)}},
		{name: "drop the last",
			existing: list(A, B, C),
			objects:  []Key{A, B},
			deletes:  []Entry{at(2, C)}},
		{name: "insert into a gap, evenly spaced",
			existing: []Entry{at(0, A), at(10, D)},
			objects:  []Key{A, B, C, D},
			puts:     []Entry{at(3, B), at(6, C)}},
		{name: "prepend into room below the first",
			existing: []Entry{at(5, B), at(6, C)},
			objects:  []Key{X, A, B, C},
			puts:     []Entry{at(3, X), at(4, A)}},
		{name: "prepend with no room renumbers",
			existing: list(A, B),
			objects:  []Key{X, A, B},
			puts:     []Entry{at(0, X), at(1, A), at(2, B)},
			deletes:  []Entry{at(0, A), at(1, B)}},
		{name: "insert with no room renumbers only what follows",
			existing: list(A, B, C, D),
			objects:  []Key{A, X, B, C, D},
			puts:     []Entry{at(1, X), at(2, B), at(3, C), at(4, D)},
			deletes:  []Entry{at(1, B), at(2, C), at(3, D)}},
		{name: "reversed",
			existing: list(A, B, C),
			objects:  []Key{C, B, A},
			puts:     []Entry{at(0, C), at(2, A)},
			deletes:  []Entry{at(0, A), at(2, C)}},
		{name: "move the first to the end",
			existing: list(A, B, C),
			objects:  []Key{B, C, A},
			puts:     []Entry{at(3, A)},
			deletes:  []Entry{at(0, A)}},
		{name: "duplicates in the new list",
			existing: list(A),
			objects:  []Key{A, B, A},
			puts:     []Entry{at(1, B), at(2, A)}},
		{name: "duplicates in both lists",
			existing: list(A, A, B),
			objects:  []Key{A, B, A},
			puts:     []Entry{at(3, A)},
			deletes:  []Entry{at(1, A)}},
		{name: "drop duplicates",
			existing: list(A, A, A),
			objects:  []Key{A},
			deletes:  []Entry{at(1, A), at(2, A)}},
		{name: "replace with an empty list deletes all",
			existing: []Entry{at(0, A), at(4, B), at(5, A)},
			deletes:  []Entry{at(0, A), at(4, B), at(5, A)}},
		{name: "other scope at the same index overwrites",
			existing: list(A, B),
			objects:  []Key{A, B2},
			puts:     []Entry{at(1, B2)}},
		{name: "other scope at another index",
			existing: list(B, A),
			objects:  []Key{A, B2},
			puts:     []Entry{at(2, B2)},
			deletes:  []Entry{at(0, B)}},
		{name: "repeated existing entries",
			existing: []Entry{at(0, A), at(0, A), at(1, B)},
			objects:  []Key{B},
			deletes:  []Entry{at(0, A)}},
		{name: "room below the highest index",
			existing: []Entry{at(maxIndex, A)},
			objects:  []Key{X, A},
			puts:     []Entry{at(maxIndex-1, X)}},
		{name: "no room above the highest index",
			existing: []Entry{at(maxIndex, A)},
			objects:  []Key{A, B},
			puts:     []Entry{at(0, A), at(1, B)},
			deletes:  []Entry{at(maxIndex, A)}},
		{name: "a moved edge keeps its attributes",
			existing: []Entry{withSince(at(0, A)), at(1, B)},
			objects:  []Key{B, A},
			puts:     []Entry{withSince(at(2, A))},
			deletes:  []Entry{withSince(at(0, A))}},
		{name: "a kept edge keeps its attributes",
			existing: []Entry{withSince(at(0, A)), at(1, B)},
			objects:  []Key{A, B, C},
			puts:     []Entry{at(2, C)}},
		{name: "attributes go to one new edge only",
			existing: []Entry{withSince(at(0, A)), at(1, B)},
			objects:  []Key{B, A, A},
			puts:     []Entry{withSince(at(2, A)), at(3, A)},
			deletes:  []Entry{withSince(at(0, A))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := relationships.PlanReplace(subject, predicate, tt.existing, tt.objects)
			requirePlan(t, tt.existing, got, tt.puts, tt.deletes)
			require.Equal(t, tt.objects, nonEmptyKeys(relationships.Objects(apply(t, tt.existing, got))))
			require.Equal(t, len(tt.puts) == 0 && len(tt.deletes) == 0, got.Empty())
		})
	}
}

func nonEmptyKeys(keys []Key) []Key {
	if len(keys) == 0 {
		return nil
	}
	return keys
}

func TestPlanReplaceDoesNotModifyExisting(t *testing.T) {
	existing := []Entry{at(2, C), at(0, A), at(1, B)}
	want := append([]Entry(nil), existing...)
	relationships.PlanReplace(subject, predicate, existing, []Key{B})
	require.Equal(t, want, existing)
}

func TestPlanAdd(t *testing.T) {
	tests := []struct {
		name             string
		highest          int
		present, objects []Key
		puts             []Entry
	}{
		{name: "nothing", highest: -1},
		{name: "to an empty list", highest: -1,
			objects: []Key{A, B},
			puts:    []Entry{at(0, A), at(1, B)}},
		{name: "after the highest index", highest: 7,
			present: []Key{A},
			objects: []Key{A, B, C},
			puts:    []Entry{at(8, B), at(9, C)}},
		{name: "repeats added once", highest: -1,
			objects: []Key{A, B, A, B2, B},
			puts:    []Entry{at(0, A), at(1, B), at(2, B2)}},
		{name: "all present", highest: 3,
			present: []Key{A, B},
			objects: []Key{B, A, B}},
		{name: "up to the maximum index", highest: maxIndex - 2,
			objects: []Key{A, B},
			puts:    []Entry{at(maxIndex-1, A), at(maxIndex, B)}},
		{name: "present objects need no room", highest: maxIndex,
			present: []Key{A},
			objects: []Key{A}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := relationships.PlanAdd(subject, predicate, tt.highest, tt.present, tt.objects)
			require.NoError(t, err)
			requirePlan(t, nil, got, tt.puts, nil)
		})
	}
}

func TestPlanAddRejects(t *testing.T) {
	tests := []struct {
		name    string
		highest int
		objects []Key
		prefix  string
		field   string
	}{
		{"past the maximum index", maxIndex - 1, []Key{A, B, A},
			fmt.Sprintf("invalid objects: appending 2 objects after index %d would pass the maximum index %d",
				maxIndex-1, maxIndex), "objects"},
		{"highest below -1", -2, []Key{A}, `invalid highest index "-2"`, "highest index"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := relationships.PlanAdd(subject, predicate, tt.highest, nil, tt.objects)
			requireInvalid(t, err, tt.prefix, tt.field)
		})
	}
}

func TestPlanAddRejectsHighestBeyondMax(t *testing.T) {
	_, err := relationships.PlanAdd(subject, predicate, beyondMaxIndex(t), nil, nil)
	requireInvalid(t, err, `invalid highest index "10000000000"`, "highest index")
}

func TestPlanRemove(t *testing.T) {
	tests := []struct {
		name     string
		existing []Entry
		objects  []Key
		deletes  []Entry
	}{
		{name: "nothing"},
		{name: "one object",
			existing: list(A, B, C),
			objects:  []Key{B},
			deletes:  []Entry{at(1, B)}},
		{name: "objects not present are ignored",
			existing: list(A, B),
			objects:  []Key{C, X}},
		{name: "every entry of an object",
			existing: list(A, B, A, C, A),
			objects:  []Key{A},
			deletes:  []Entry{at(0, A), at(2, A), at(4, A)}},
		{name: "repeats in objects",
			existing: list(A, B),
			objects:  []Key{A, A, B},
			deletes:  []Entry{at(0, A), at(1, B)}},
		{name: "only the same scope",
			existing: list(B, B2),
			objects:  []Key{B2},
			deletes:  []Entry{at(1, B2)}},
		{name: "existing in any order, repeated",
			existing: []Entry{at(4, A), at(1, A), at(4, A)},
			objects:  []Key{A},
			deletes:  []Entry{at(1, A), at(4, A)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := relationships.PlanRemove(tt.existing, tt.objects)
			requirePlan(t, tt.existing, got, nil, tt.deletes)
		})
	}
}
