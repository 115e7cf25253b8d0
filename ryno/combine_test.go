package ryno

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/store"
)

func TestShareOutGivesEachObjectToTheFirstCallNamingIt(t *testing.T) {
	k := func(id string) Key { return Key{Scope: "s", Type: "t", ID: id} }
	rk := func(id string) relationships.Key { return relationships.Key(k(id)) }
	call := func(ids ...string) store.ListOp {
		var op store.ListOp
		for _, id := range ids {
			op.Objects = append(op.Objects, rk(id))
		}
		return op
	}
	tests := []struct {
		name    string
		changed []relationships.Key
		batch   []store.ListOp
		want    [][]relationships.Key
	}{
		{"one call", []relationships.Key{rk("a"), rk("b")}, []store.ListOp{call("a", "b")},
			[][]relationships.Key{{rk("a"), rk("b")}}},
		{"an object two calls name goes to the first", []relationships.Key{rk("a"), rk("b")},
			[]store.ListOp{call("a"), call("b", "a")}, [][]relationships.Key{{rk("a")}, {rk("b")}}},
		{"an object that did not change goes to none", []relationships.Key{rk("b")},
			[]store.ListOp{call("a"), call("b")}, [][]relationships.Key{nil, {rk("b")}}},
		{"in each call's own order", []relationships.Key{rk("a"), rk("b"), rk("c")},
			[]store.ListOp{call("c", "a"), call("b")}, [][]relationships.Key{{rk("c"), rk("a")}, {rk("b")}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, shareOut(tt.changed, tt.batch))
		})
	}
}
