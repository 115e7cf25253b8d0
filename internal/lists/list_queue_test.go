package lists

import (
	"testing"

	"github.com/rynodb/rynodb/internal/store"
	"github.com/stretchr/testify/require"
)

func TestShareOutGivesEachObjectToTheFirstCallNamingIt(t *testing.T) {
	rk := func(id string) store.Key { return store.Key{Scope: "s", Type: "t", ID: id} }
	call := func(ids ...string) ListOp {
		var op ListOp
		for _, id := range ids {
			op.Objects = append(op.Objects, rk(id))
		}
		return op
	}
	tests := []struct {
		name    string
		changed []store.Key
		batch   []ListOp
		want    [][]store.Key
	}{
		{"one call", []store.Key{rk("a"), rk("b")}, []ListOp{call("a", "b")},
			[][]store.Key{{rk("a"), rk("b")}}},
		{"an object two calls name goes to the first", []store.Key{rk("a"), rk("b")},
			[]ListOp{call("a"), call("b", "a")}, [][]store.Key{{rk("a")}, {rk("b")}}},
		{"an object that did not change goes to none", []store.Key{rk("b")},
			[]ListOp{call("a"), call("b")}, [][]store.Key{nil, {rk("b")}}},
		{"in each call's own order", []store.Key{rk("a"), rk("b"), rk("c")},
			[]ListOp{call("c", "a"), call("b")}, [][]store.Key{{rk("c"), rk("a")}, {rk("b")}}},
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
		op   ListOp
		want bool
	}{
		{"an add", ListOp{Kind: ListAdd}, true},
		{"a remove", ListOp{Kind: ListRemove}, true},
		{"a replace", ListOp{Kind: ListReplace}, false},
		{"an add checking its objects", ListOp{Kind: ListAdd, CheckObjects: true}, false},
		{"an add requiring a version", ListOp{Kind: ListAdd, IfVersion: "v", Pinned: true}, false},
		{"a remove requiring a version", ListOp{Kind: ListRemove, Pinned: true}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { require.Equal(t, tt.want, New(&store.Core{}).combinable(tt.op)) })
	}
}
