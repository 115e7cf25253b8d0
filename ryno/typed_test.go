package ryno

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

type book struct {
	Record
	Title string   `dynamodbav:"title"`
	Pages int      `dynamodbav:"pages"`
	Price float64  `dynamodbav:"price"`
	Tags  []string `dynamodbav:"tags,omitempty"`
}

func TestNewEntityRejectsWhatCannotBeStored(t *testing.T) {
	k := Key{Scope: "acme", Type: "user", ID: "ada"}
	tests := []struct {
		name  string
		v     any
		field string
	}{
		{"reserved name", map[string]any{"_secret": 1}, "Attributes._secret"},
		{"empty name", map[string]any{"": 1}, "Attributes"},
		{"number out of range", map[string]any{"n": json.Number("1e200")}, "Attributes.n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewEntity(k, tt.v)
			require.ErrorIs(t, err, ErrInvalid)
			var ve *ValidationError
			require.ErrorAs(t, err, &ve)
			require.Contains(t, ve.Field, tt.field)
		})
	}
}

func TestNumbersReadBackAreJSONNumbers(t *testing.T) {
	e, err := NewEntity(Key{Scope: "acme", Type: "user", ID: "ada"}, map[string]any{
		"age": 36, "big": json.Number("12345678901234567890123456789012345678"),
		"nested": map[string]any{"l": []any{1.5, "x"}}, "set": []int{},
	})
	require.NoError(t, err)
	require.Equal(t, json.Number("36"), e.Attributes["age"])
	out, err := json.Marshal(e.Attributes)
	require.NoError(t, err)
	require.JSONEq(t, `{"age":36,"big":12345678901234567890123456789012345678,"nested":{"l":[1.5,"x"]},"set":[]}`, string(out))
}

func TestRecordRoundTrip(t *testing.T) {
	created := time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.UTC)
	stored := &Entity{
		Key:        Key{Scope: "acme", Type: "book", ID: "b1"},
		Attributes: map[string]any{"title": "Go", "pages": json.Number("300"), "price": json.Number("12.5")},
		Created:    created, Updated: created.Add(time.Hour), Version: 4,
	}
	var b book
	require.NoError(t, stored.Decode(&b))
	require.Equal(t, book{
		Record: Record{Key: stored.Key, Created: created, Updated: created.Add(time.Hour), Version: 4},
		Title:  "Go", Pages: 300, Price: 12.5,
	}, b)

	back, err := EntityOf(&b)
	require.NoError(t, err)
	require.Equal(t, stored.Key, back.Key)
	require.Equal(t, int64(4), back.Version, "a write of the struct checks the version read")
	require.Equal(t, created, back.Created)
	require.Equal(t, stored.Attributes, back.Attributes, "the Record is no attribute")

	_, err = EntityOf(map[string]any{"title": "x"})
	require.ErrorIs(t, err, ErrInvalid)
	_, err = EntityOf(&book{Title: "no key"})
	require.ErrorIs(t, err, ErrInvalid)
}

func TestEntityPrints(t *testing.T) {
	e := Entity{
		Key:        Key{Scope: "acme", Type: "user", ID: "ada"},
		Attributes: map[string]any{"name": "Ada", "age": json.Number("36")},
		Version:    3,
		Created:    time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.UTC),
	}
	want := "acme:user:ada v3 created 2026-01-02T03:04:05.006Z map[age:36 name:Ada]"
	require.Equal(t, want, fmt.Sprintf("%+v", e))
	require.Equal(t, want, fmt.Sprint(&e))
}

func TestNamedAttributesAreThoseTheEncoderWrites(t *testing.T) {
	type inner struct {
		Color string `dynamodbav:"color"`
	}
	type withEmbeds struct {
		Record
		inner
		*book
		Plain   int
		Renamed int `dynamodbav:"renamed,omitempty"`
		Skipped int `dynamodbav:"-"`
		hidden  int
	}
	type Labels []string
	type withNonStructEmbeds struct {
		Labels
		Title string `dynamodbav:"title"`
	}
	tests := []struct {
		name string
		full any // a value whose every named field encodes
		want []string
	}{
		{"an embedded non-struct named by its type",
			withNonStructEmbeds{Labels: Labels{"a"}, Title: "x"}, []string{"Labels", "title"}},
		{"tags, omitempty and the record", book{Title: "x", Tags: []string{"a"}}, []string{"title", "pages", "price", "tags"}},
		{"embedded structs flattened, '-' and unexported left out",
			withEmbeds{inner: inner{Color: "red"}, book: &book{Title: "x", Tags: []string{"a"}}, Renamed: 1, Skipped: 1, hidden: 1},
			[]string{"color", "title", "pages", "price", "tags", "Plain", "renamed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := namedAttributes(reflect.TypeOf(tt.full))
			require.ElementsMatch(t, tt.want, slices.Collect(maps.Keys(got)))
			e, err := NewEntity(Key{Scope: "s", Type: "t", ID: "1"}, tt.full)
			require.NoError(t, err)
			require.ElementsMatch(t, tt.want, slices.Collect(maps.Keys(e.Attributes)), "what the encoder writes")
		})
	}
	require.Empty(t, namedAttributes(reflect.TypeOf(map[string]any{})), "a map names none")
}
