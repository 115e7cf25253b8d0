package ryno

import (
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/schema"
)

func TestPrepareTxCountsWhatPatchesSend(t *testing.T) {
	c, err := New(&recordingReads{}, Options{TablePrefix: "t"})
	require.NoError(t, err)
	big := strings.Repeat("x", 390_000)
	patches := func(n int, p Patch) []Op {
		ops := make([]Op, n)
		for i := range ops {
			ops[i] = TxPatch(Key{Scope: "s", Type: "t", ID: strconv.Itoa(i)}, p)
		}
		return ops
	}
	tests := []struct {
		name string
		ops  []Op
		over bool
	}{
		{"10 sets of 390 KB", patches(10, Patch{Set: map[string]any{"big": big}}), false},
		{"11 sets of 390 KB", patches(11, Patch{Set: map[string]any{"big": big}}), true},
		{"11 small patches", patches(11, Patch{Add: map[string]any{"n": 1}, Remove: []string{"old"}}), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.prepareTx(tt.ops)
			if !tt.over {
				require.NoError(t, err)
				return
			}
			var limit *TransactionLimitError
			require.ErrorAs(t, err, &limit)
			require.Equal(t, "bytes", limit.Limit)
		})
	}
}

func TestEncodedPatchSize(t *testing.T) {
	ep, err := encodePatch(Patch{Set: map[string]any{"name": "ada"}, Remove: []string{"old"}, Add: map[string]any{"n": 5}})
	require.NoError(t, err)
	require.Equal(t, len("name")+len("ada")+len("old")+len("n")+schema.ItemSize(map[string]types.AttributeValue{"": number(5)}), ep.Size())
}
