package store

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestShareOutGivesEachObjectToTheFirstCallNamingIt(t *testing.T) {
	rk := func(id string) Key { return Key{Scope: "s", Type: "t", ID: id} }
	call := func(ids ...string) ListOp {
		var op ListOp
		for _, id := range ids {
			op.Objects = append(op.Objects, rk(id))
		}
		return op
	}
	tests := []struct {
		name    string
		changed []Key
		batch   []ListOp
		want    [][]Key
	}{
		{"one call", []Key{rk("a"), rk("b")}, []ListOp{call("a", "b")},
			[][]Key{{rk("a"), rk("b")}}},
		{"an object two calls name goes to the first", []Key{rk("a"), rk("b")},
			[]ListOp{call("a"), call("b", "a")}, [][]Key{{rk("a")}, {rk("b")}}},
		{"an object that did not change goes to none", []Key{rk("b")},
			[]ListOp{call("a"), call("b")}, [][]Key{nil, {rk("b")}}},
		{"in each call's own order", []Key{rk("a"), rk("b"), rk("c")},
			[]ListOp{call("c", "a"), call("b")}, [][]Key{{rk("c"), rk("a")}, {rk("b")}}},
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
		t.Run(tt.name, func(t *testing.T) { require.Equal(t, tt.want, (&Core{}).combinable(tt.op)) })
	}
}
