package lists

import (
	"testing"

	"github.com/rynodb/rynodb/internal/store"
	"github.com/stretchr/testify/require"
)

func TestShareOutGivesEachObjectToTheFirstCallNamingIt(t *testing.T) {
	rk := func(id string) store.Key { return store.Key{Scope: "s", Type: "t", ID: id} }
	call := func(ids ...string) Op {
		var op Op
		for _, id := range ids {
			op.Objects = append(op.Objects, rk(id))
		}
		return op
	}
	tests := []struct {
		name    string
		changed []store.Key
		batch   []Op
		want    [][]store.Key
	}{
		{"one call", []store.Key{rk("a"), rk("b")}, []Op{call("a", "b")},
			[][]store.Key{{rk("a"), rk("b")}}},
		{"an object two calls name goes to the first", []store.Key{rk("a"), rk("b")},
			[]Op{call("a"), call("b", "a")}, [][]store.Key{{rk("a")}, {rk("b")}}},
		{"an object that did not change goes to none", []store.Key{rk("b")},
			[]Op{call("a"), call("b")}, [][]store.Key{nil, {rk("b")}}},
		{"in each call's own order", []store.Key{rk("a"), rk("b"), rk("c")},
			[]Op{call("c", "a"), call("b")}, [][]store.Key{{rk("c"), rk("a")}, {rk("b")}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, shareOut(tt.changed, tt.batch))
		})
	}
}

func TestOnlyPlainAddsAndRemovesShareABatch(t *testing.T) {
	tests := []struct {
		name string
		op   Op
		want bool
	}{
		{"an add", Op{Kind: Add}, true},
		{"a remove", Op{Kind: Remove}, true},
		{"a replace", Op{Kind: Replace}, false},
		{"an add checking its objects", Op{Kind: Add, CheckObjects: true}, false},
		{"an add requiring a version", Op{Kind: Add, IfVersion: "v", Pinned: true}, false},
		{"a remove requiring a version", Op{Kind: Remove, Pinned: true}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { require.Equal(t, tt.want, New(&store.Core{}).combinable(tt.op)) })
	}
}
