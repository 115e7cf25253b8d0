package schema_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/schema"
)

func TestValidateComponent(t *testing.T) {
	tests := []struct {
		name, value string
		reason      string // empty when valid
	}{
		{"ascii", "user", ""},
		{"punctuation and delimiters", "a:b%c/d#e f", ""},
		{"emoji", "🙂👍🏽", ""},
		{"CJK", "日本語", ""},
		{"C1 control is not C0", "a\u0085b", ""},
		{"empty", "", "must not be empty"},
		{"invalid UTF-8", "\xff", "is not valid UTF-8"},
		{"truncated UTF-8", "日"[:2], "is not valid UTF-8"},
		{"NUL", "a\x00", "contains control character U+0000 at byte 1"},
		{"tab", "abc\tx", "contains control character U+0009 at byte 3"},
		{"newline", "\n", "contains control character U+000A at byte 0"},
		{"unit separator", "x\x1f", "contains control character U+001F at byte 1"},
		{"DEL", "日\x7f", "contains control character U+007F at byte 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := schema.ValidateComponent("Key.ID", tt.value)
			if tt.reason == "" {
				require.NoError(t, err)
				return
			}
			verr := requireInvalid(t, err, "Key.ID")
			require.Equal(t, tt.reason, verr.Reason)
		})
	}
}

func TestValidateKeyLength(t *testing.T) {
	tests := []struct {
		name string
		key  string
		max  int
		ok   bool
	}{
		{"partition key at limit", strings.Repeat("a", 2048), schema.MaxPartitionKeyBytes, true},
		{"partition key over limit", strings.Repeat("a", 2049), schema.MaxPartitionKeyBytes, false},
		{"sort key at limit", strings.Repeat("a", 1024), schema.MaxSortKeyBytes, true},
		{"sort key over limit", strings.Repeat("a", 1025), schema.MaxSortKeyBytes, false},
		{"counts bytes, not runes", strings.Repeat("日", 342), schema.MaxSortKeyBytes, false}, // 1026 bytes
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := schema.ValidateKeyLength("Key", tt.key, tt.max)
			if tt.ok {
				require.NoError(t, err)
				return
			}
			requireInvalid(t, err, "Key")
		})
	}

	t.Run("reason", func(t *testing.T) {
		err := schema.ValidateKeyLength("Key", strings.Repeat("%3A", 700), schema.MaxPartitionKeyBytes)
		verr := requireInvalid(t, err, "Key")
		require.Equal(t, "key is 2100 bytes after escaping; DynamoDB allows at most 2048", verr.Reason)
	})
}

func TestValidateEntityKey(t *testing.T) {
	// scope and type of one byte each, so SubjectKey adds 4 bytes to the escaped id.
	const subjectOverhead = len("s:t:")
	tests := []struct {
		name           string
		scope, typ, id string
		field          string // empty when valid
	}{
		{"simple", "acme", "user", "42", ""},
		{"delimiters in every component", "a:b", "c%d", "urn:x:1", ""},
		{"unicode", "日本", "ユーザー", "🙂", ""},
		{"empty scope", "", "user", "42", "Key.Scope"},
		{"empty type", "acme", "", "42", "Key.Type"},
		{"empty id", "acme", "user", "", "Key.ID"},
		{"control character in type", "acme", "us\ter", "42", "Key.Type"},
		{"invalid UTF-8 in id", "acme", "user", "\xff", "Key.ID"},
		{"raw id over the partition key limit", "s", "t", strings.Repeat("a", 2049), "Key.ID"},
		{"subject key exactly at the limit", "s", "t",
			strings.Repeat("a", schema.MaxPartitionKeyBytes-subjectOverhead), ""},
		{"subject key one byte over", "s", "t",
			strings.Repeat("a", schema.MaxPartitionKeyBytes-subjectOverhead+1), "Key"},
		{"id that only escaping makes too long", "s", "t", strings.Repeat(":", 700), "Key"},
		{"escaped id exactly at the limit", "s", "t",
			strings.Repeat(":", (schema.MaxPartitionKeyBytes-subjectOverhead)/3) + "a", ""},
		{"scope type key exactly at the sort key limit", strings.Repeat("s", 1000), strings.Repeat("t", 23), "1", ""},
		{"scope type key one byte over", strings.Repeat("s", 1000), strings.Repeat("t", 24), "1", "Key"},
		{"scope type key over only after escaping", strings.Repeat("%", 342), "t", "1", "Key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := schema.ValidateEntityKey(tt.scope, tt.typ, tt.id)
			if tt.field == "" {
				require.NoError(t, err)
				return
			}
			requireInvalid(t, err, tt.field)
		})
	}
}

func TestValidatePredicateAndIndexName(t *testing.T) {
	require.NoError(t, schema.ValidatePredicate("friend:of"))
	requireInvalid(t, schema.ValidatePredicate(""), "predicate")
	requireInvalid(t, schema.ValidatePredicate("a\nb"), "predicate")

	require.NoError(t, schema.ValidateIndexName("by_email"))
	requireInvalid(t, schema.ValidateIndexName(""), "index name")
	requireInvalid(t, schema.ValidateIndexName("\x7f"), "index name")
}

func TestValidationErrorMessage(t *testing.T) {
	err := schema.ValidateComponent("Key.ID", "a\tb")
	require.EqualError(t, err, `ryno: invalid Key.ID "a\tb": contains control character U+0009 at byte 1`)

	err = schema.ValidateComponent("Key.Scope", "")
	require.EqualError(t, err, "ryno: invalid Key.Scope: must not be empty")
}
