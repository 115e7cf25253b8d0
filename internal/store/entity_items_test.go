package store

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/indexing"
	"github.com/rynodb/rynodb/internal/entitystate"
	"github.com/rynodb/rynodb/internal/indexentries"
	"github.com/rynodb/rynodb/internal/indexes"
	"github.com/rynodb/rynodb/internal/schema"
)

func TestExpirySecondsRoundsUp(t *testing.T) {
	base := time.Date(2030, 5, 6, 7, 8, 9, 0, time.UTC)
	tests := []struct {
		name string
		t    time.Time
		want int64
	}{
		{"a whole second", base, base.Unix()},
		{"a nanosecond after", base.Add(time.Nanosecond), base.Unix() + 1},
		{"a millisecond before the next", base.Add(999 * time.Millisecond), base.Unix() + 1},
		{"in another zone", base.In(time.FixedZone("x", 3600)), base.Unix()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, expirySeconds(tt.t))
			require.False(t, entitystate.ExpiredAt(tt.want, tt.t.Add(-time.Nanosecond)), "never expired before the time given")
		})
	}
}

func TestRecordSelectsWhatTheLastWriterEmitted(t *testing.T) {
	withRecord := func(entries ...indexentries.Entry) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{schema.AttrIndexEntries: indexes.Record(entries)}
	}
	tag := func(v string) indexentries.Entry {
		return indexentries.Entry{IndexName: "tag", Value: indexing.String(v)}
	}
	tests := []struct {
		name           string
		item           map[string]types.AttributeValue
		cond           indexing.Condition
		selects, known bool
	}{
		{"no item", nil, indexing.All(), false, false},
		{"no record", map[string]types.AttributeValue{}, indexing.All(), false, false},
		{"an empty record", withRecord(), indexing.All(), false, true},
		{"a value selected", withRecord(tag("a"), tag("b")), indexing.Equal(indexing.String("b")), true, true},
		{"no value selected", withRecord(tag("a")), indexing.BeginsWith(indexing.String("b")), false, true},
		{"a value of another index", withRecord(indexentries.Entry{IndexName: "slug", Value: indexing.String("b")}),
			indexing.Equal(indexing.String("b")), false, true},
		{"a value this program cannot read", map[string]types.AttributeValue{schema.AttrIndexEntries: &types.AttributeValueMemberM{
			Value: map[string]types.AttributeValue{"tag": &types.AttributeValueMemberL{Value: []types.AttributeValue{
				&types.AttributeValueMemberS{Value: "?unknown"}}}}}}, indexing.All(), false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			selects, known := RecordSelects(tt.item, "tag", tt.cond.Match)
			require.Equal(t, tt.selects, selects)
			require.Equal(t, tt.known, known)
		})
	}
}
