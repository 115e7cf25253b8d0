package relationships_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/relationships"
	"github.com/rynodb/rynodb/internal/schema"
)

// requireInvalid asserts that err is a *tables.ValidationError for field, after
// the given wrapping prefix.
func requireInvalid(t *testing.T, err error, prefix, field string) {
	t.Helper()
	require.Error(t, err)
	require.ErrorIs(t, err, schema.ErrInvalid)
	var ve *schema.ValidationError
	require.True(t, errors.As(err, &ve), "%v is not a *schema.ValidationError", err)
	require.Equal(t, field, ve.Field, "%v", err)
	require.True(t, strings.HasPrefix(err.Error(), "ryno: "+prefix), "%q does not start with %q", err, "ryno: "+prefix)
}

func TestValidate(t *testing.T) {
	long := func(n int) string { return strings.Repeat("x", n) }
	// _predicate_key = <p>:0000000000:t:<id> is 14+len(p)+len(id) bytes, and
	// _predicate_object_key = p:<scope>:t:<id> is 5+len(scope)+len(id).
	tests := []struct {
		name      string
		subject   Key
		predicate string
		objects   []Key
		prefix    string // of the error message; "" when valid
		field     string
	}{
		{"valid", subject, "p", []Key{A, B, A}, "", ""},
		{"no objects", subject, "p", nil, "", ""},
		{"tricky components", tricky.Subject, tricky.Predicate, []Key{tricky.Object}, "", ""},
		{"empty predicate", subject, "", []Key{A}, "invalid predicate", "predicate"},
		{"predicate with control character", subject, "a\nb", nil, "invalid predicate", "predicate"},
		{"predicate leaving no room for an object", subject, long(1024 - 14), nil, "invalid predicate", "predicate"},
		{"predicate leaving no room in the reverse key", subject, long(1024 - 44), nil, "invalid predicate", "predicate"},
		{"longest predicate", subject, long(1024 - 45), nil, "", ""},
		{"predicate too long once escaped", subject, strings.Repeat(":", 337), nil, "invalid predicate", "predicate"},
		{"invalid subject", Key{Scope: "s", Type: "", ID: "i"}, "p", nil, "subject: invalid Key.Type", "Key.Type"},
		{"invalid object", subject, "p", []Key{A, {Scope: "s", Type: "t", ID: "bad\x00"}},
			"objects[1]: invalid Key.ID", "Key.ID"},
		{"predicate key at the limit", subject, "p", []Key{{Scope: "s", Type: "t", ID: long(1024 - 15)}}, "", ""},
		{"predicate key too long", subject, "p", []Key{A, A, {Scope: "s", Type: "t", ID: long(1024 - 14)}},
			"objects[2]: invalid _predicate_key", "_predicate_key"},
		{"predicate key too long once escaped", subject, "p", []Key{{Scope: "s", Type: "t", ID: strings.Repeat("%", 337)}},
			"objects[0]: invalid _predicate_key", "_predicate_key"},
		{"predicate object key too long", subject, "p", []Key{{Scope: long(20), Type: "t", ID: long(1000)}},
			"objects[0]: invalid _predicate_object_key", "_predicate_object_key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := relationships.Validate(tt.subject, tt.predicate, tt.objects)
			if tt.prefix == "" {
				require.NoError(t, err)
				return
			}
			requireInvalid(t, err, tt.prefix, tt.field)
		})
	}
}

func TestEntryValidate(t *testing.T) {
	withAttrs := func(attrs map[string]types.AttributeValue) Entry {
		e := at(1, A)
		e.Attributes = attrs
		return e
	}
	tests := []struct {
		name   string
		entry  Entry
		prefix string
		field  string
	}{
		{"valid", at(0, A), "", ""},
		{"highest index", at(maxIndex, A), "", ""},
		{"edge attributes", withAttrs(map[string]types.AttributeValue{"since": n("2017")}), "", ""},
		{"invalid subject", Entry{Subject: Key{}, Predicate: predicate, Object: A}, "subject: invalid Key.Scope", "Key.Scope"},
		{"invalid predicate", Entry{Subject: subject, Object: A}, "invalid predicate", "predicate"},
		{"invalid object", at(0, Key{Scope: "s", Type: "t"}), "object: invalid Key.ID", "Key.ID"},
		{"negative index", at(-1, A), "invalid index", "index"},
		{"reserved attribute name", withAttrs(map[string]types.AttributeValue{"ok": s("x"), "_index": n("1")}),
			`invalid Attributes._index "_index"`, "Attributes._index"},
		{"empty attribute name", withAttrs(map[string]types.AttributeValue{"": s("x")}),
			"invalid Attributes: attribute names must not be empty", "Attributes"},
		{"attribute name not UTF-8", withAttrs(map[string]types.AttributeValue{"\xff": s("x")}),
			"invalid Attributes", "Attributes"},
		{"attribute without value", withAttrs(map[string]types.AttributeValue{"a": nil}),
			"invalid Attributes.a: has no value", "Attributes.a"},
		{"item too large", withAttrs(map[string]types.AttributeValue{"big": s(strings.Repeat("x", schema.MaxItemBytes))}),
			"invalid Entry", "Entry"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.entry.Validate()
			if tt.prefix == "" {
				require.NoError(t, err)
				return
			}
			requireInvalid(t, err, tt.prefix, tt.field)
		})
	}
}

func TestEntryValidateRejectsIndexBeyondMax(t *testing.T) {
	requireInvalid(t, at(beyondMaxIndex(t), A).Validate(), "invalid index", "index")
}
