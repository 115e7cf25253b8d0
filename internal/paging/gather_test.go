package paging

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestGatheredCursorsRoundTripOnlyInTheirQuery(t *testing.T) {
	pos := []Position{testPosition, testPosition, testPosition}
	starts := []Start{{Key: key("abc")}, {Done: true}, {}}
	for _, seal := range [][]byte{nil, bytes.Repeat([]byte{7}, KeySize)} {
		cc := Codec{Identity: "q1", Seal: seal}
		s, err := cc.EncodeGathered(starts, "2026-12-06T10:00:00.000Z")
		require.NoError(t, err)
		got, last, err := cc.DecodeGathered(s, pos)
		require.NoError(t, err)
		require.Equal(t, starts, got)
		require.Equal(t, "2026-12-06T10:00:00.000Z", last)

		first, last, err := cc.DecodeGathered("", pos)
		require.NoError(t, err)
		require.Equal(t, make([]Start, 3), first, "the first page")
		require.Empty(t, last)

		for name, other := range map[string]Codec{
			"another query":     {Identity: "q2", Seal: seal},
			"another direction": {Identity: "q1", Descending: true, Seal: seal},
		} {
			_, _, err := other.DecodeGathered(s, pos)
			require.ErrorIs(t, err, ErrInvalid, name)
		}
		_, _, err = cc.DecodeGathered(s, pos[:2])
		require.ErrorIs(t, err, ErrInvalid, "issued for another number of shards")
	}

	done, err := Codec{Identity: "q1"}.EncodeGathered([]Start{{Done: true}, {Done: true}}, "x")
	require.NoError(t, err)
	require.Empty(t, done, "no cursor once every shard is done")
}

func TestDecodeGatheredRefusesAlteredCursors(t *testing.T) {
	cc := Codec{Identity: "q1"}
	s, err := cc.EncodeGathered([]Start{{Key: key("abc")}, {}}, "2026-12-06")
	require.NoError(t, err)
	b := mustDecode(t, s)
	for name, edit := range map[string][2]string{
		"another last item":   {"2026-12-06", "2026-12-07"},
		"another start":       {"abc", "abd"},
		"a shard marked done": {`{}`, `{"d":true}`},
	} {
		altered := Encoding.EncodeToString(bytes.Replace(b, []byte(edit[0]), []byte(edit[1]), 1))
		require.NotEqual(t, s, altered, name)
		_, _, err := cc.DecodeGathered(altered, []Position{testPosition, testPosition})
		require.ErrorIs(t, err, ErrInvalid, name)
	}
}
