package paging

import (
	"bytes"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"
)

// testPosition is a listing whose items have partition key pk, fixed, and a sort
// key sk of up to 10 bytes starting with "a".
var testPosition = Position{Attrs: []Attr{
	{Name: "pk", Fixed: "p1"},
	{Name: "sk", Max: 10, Valid: func(s string) bool { return strings.HasPrefix(s, "a") }},
}}

func key(sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "p1"}, "sk": &types.AttributeValueMemberS{Value: sk}}
}

func TestCursorsRoundTripOnlyInTheirQuery(t *testing.T) {
	for _, seal := range [][]byte{nil, bytes.Repeat([]byte{7}, KeySize)} {
		cc := Codec{Identity: "q1", Seal: seal}
		s, err := cc.Encode(key("abc"))
		require.NoError(t, err)
		got, err := cc.Decode(s, testPosition)
		require.NoError(t, err)
		require.Equal(t, key("abc"), got)

		empty, err := cc.Decode("", testPosition)
		require.NoError(t, err)
		require.Nil(t, empty, "the first page")

		others := map[string]Codec{
			"another query":     {Identity: "q2", Seal: seal},
			"another direction": {Identity: "q1", Descending: true, Seal: seal},
		}
		if seal != nil {
			others["another key"] = Codec{Identity: "q1", Seal: bytes.Repeat([]byte{8}, KeySize)}
		}
		for name, other := range others {
			_, err := other.Decode(s, testPosition)
			require.ErrorIs(t, err, ErrInvalid, name)
		}
	}
}

func TestDecodeRefusesKeysNoItemHas(t *testing.T) {
	cc := Codec{Identity: "q1"}
	str := func(s string) *string { return &s }
	tests := map[string]map[string]Value{
		"another partition":     {"pk": {S: str("p2")}, "sk": {S: str("abc")}},
		"a sort key outside":    {"pk": {S: str("p1")}, "sk": {S: str("zzz")}},
		"a sort key too long":   {"pk": {S: str("p1")}, "sk": {S: str("a" + strings.Repeat("x", 10))}},
		"an empty sort key":     {"pk": {S: str("p1")}, "sk": {S: str("")}},
		"a number for a string": {"pk": {S: str("p1")}, "sk": {N: str("1")}},
		"a missing attribute":   {"pk": {S: str("p1")}},
		"an extra attribute":    {"pk": {S: str("p1")}, "sk": {S: str("abc")}, "x": {S: str("y")}},
		"not UTF-8":             {"pk": {S: str("p1")}, "sk": {S: str("a\xff")}},
	}
	for name, values := range tests {
		t.Run(name, func(t *testing.T) {
			s, err := cc.Forge(values)
			require.NoError(t, err)
			_, err = cc.Decode(s, testPosition)
			require.ErrorIs(t, err, ErrInvalid)
		})
	}
}

func TestDecodeRefusesAlteredCursors(t *testing.T) {
	cc := Codec{Identity: "q1"}
	s, err := cc.Encode(key("abc"))
	require.NoError(t, err)
	for name, altered := range map[string]string{
		"truncated":     s[:len(s)-1],
		"a newline":     s[:4] + "\n" + s[4:],
		"padded":        s + "=",
		"too long":      strings.Repeat("A", MaxLen+4),
		"not base64":    "!" + s[1:],
		"a byte edited": Encoding.EncodeToString(bytes.Replace(mustDecode(t, s), []byte("abc"), []byte("abd"), 1)),
	} {
		_, err := cc.Decode(altered, testPosition)
		require.ErrorIs(t, err, ErrInvalid, name)
	}
}

func mustDecode(t *testing.T, s string) []byte {
	t.Helper()
	b, err := Encoding.DecodeString(s)
	require.NoError(t, err)
	return b
}
