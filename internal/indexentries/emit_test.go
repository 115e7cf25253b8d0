package indexentries_test

import (
	"errors"
	"io"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/internal/indexentries"
)

func TestEmit(t *testing.T) {
	got, err := indexentries.Emit("by_tag", func(emit func(indexing.Value)) {
		for _, tag := range []string{"b", "a", "b", "c", "a"} {
			emit(indexing.String(tag))
		}
	})
	require.NoError(t, err)
	require.Equal(t, []indexing.Value{indexing.String("b"), indexing.String("a"), indexing.String("c")}, got)
}

func TestEmitNothing(t *testing.T) {
	got, err := indexentries.Emit("by_tag", func(func(indexing.Value)) {})
	require.NoError(t, err)
	require.Empty(t, got)
}

func TestEmitMixedKinds(t *testing.T) {
	got, err := indexentries.Emit("by_x", func(emit func(indexing.Value)) {
		emit(indexing.Int(1))
		emit(indexing.Float(1))
		emit(indexing.String("1"))
	})
	require.NoError(t, err)
	require.Len(t, got, 3)
}

func TestEmitRejectsInvalidValues(t *testing.T) {
	tests := []struct {
		name   string
		index  string
		values []indexing.Value
		reason string
	}{
		{"NaN", "by_score", []indexing.Value{indexing.Float(1), indexing.Float(math.NaN())}, "emitted value 2: invalid float value: NaN"},
		{"empty string", "by_name", []indexing.Value{indexing.String("")}, "emitted value 1: invalid string value: must not be empty"},
		{"zero Value", "by_name", []indexing.Value{{}}, "zero Value"},
		{"too long with the index name", strings.Repeat("n", 100), []indexing.Value{indexing.String(strings.Repeat("x", 923))},
			"is 1025 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := indexentries.Emit(tt.index, func(emit func(indexing.Value)) {
				for _, v := range tt.values {
					emit(v)
				}
				emit(indexing.Int(7)) // ignored after the first invalid value
			})
			require.Nil(t, got, "a failed map function emits nothing")
			requireInvalid(t, err, tt.reason)
			require.Contains(t, err.Error(), `map function of index "`+tt.index[:min(len(tt.index), 10)])
			var eerr *indexing.EmitError
			require.ErrorAs(t, err, &eerr)
			require.Equal(t, tt.index, eerr.Index)
			require.NotErrorIs(t, err, indexing.ErrPanic)
		})
	}
}

func TestEmitRecoversPanics(t *testing.T) {
	tests := []struct {
		name   string
		panic  any
		reason string
	}{
		{"string", "boom", `ryno: map function of index "by_age" panicked: boom`},
		{"error", io.ErrUnexpectedEOF, "panicked: unexpected EOF"},
		{"nil", nil, "panicked: panic called with nil argument"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := indexentries.Emit("by_age", func(emit func(indexing.Value)) {
				emit(indexing.Int(1))
				panic(tt.panic)
			})
			require.Nil(t, got)
			require.ErrorContains(t, err, tt.reason)
			require.ErrorIs(t, err, indexing.ErrPanic)
			var eerr *indexing.EmitError
			require.ErrorAs(t, err, &eerr)
			require.Equal(t, "by_age", eerr.Index)
			require.NotEmpty(t, eerr.Stack)
			if perr, ok := tt.panic.(error); ok {
				require.ErrorIs(t, err, perr)
			}
		})
	}
}

func TestEmitRecoversRuntimeErrors(t *testing.T) {
	_, err := indexentries.Emit("by_age", func(emit func(indexing.Value)) {
		var m map[string]int
		//lint:ignore SA5000 the map function must fail with a runtime panic
		m["x"] = 1
	})
	require.ErrorIs(t, err, indexing.ErrPanic)
	require.ErrorContains(t, err, "assignment to entry in nil map")
}

func TestEmitIgnoresCallsAfterReturn(t *testing.T) {
	var late func(indexing.Value)
	got, err := indexentries.Emit("by_age", func(emit func(indexing.Value)) {
		emit(indexing.Int(1))
		late = emit
	})
	require.NoError(t, err)
	late(indexing.Int(2))
	late(indexing.Float(math.NaN()))
	require.Equal(t, []indexing.Value{indexing.Int(1)}, got)
}

func TestEmitFromGoroutines(t *testing.T) {
	got, err := indexentries.Emit("by_n", func(emit func(indexing.Value)) {
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range 100 {
					emit(indexing.Int(int64(i*100 + j%50)))
				}
			}()
		}
		wg.Wait()
	})
	require.NoError(t, err)
	require.Len(t, got, 400)
}

func TestEmitRejectsBadArguments(t *testing.T) {
	_, err := indexentries.Emit("", func(func(indexing.Value)) {})
	requireInvalid(t, err, "invalid index name: must not be empty")

	_, err = indexentries.Emit("by_age", nil)
	requireInvalid(t, err, "must not be nil")
	require.False(t, errors.Is(err, indexing.ErrPanic))
}
