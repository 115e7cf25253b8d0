package store

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rynodb/rynodb/internal/entitystate"
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
			require.Equal(t, tt.want, ExpirySeconds(tt.t))
			require.False(t, entitystate.ExpiredAt(tt.want, tt.t.Add(-time.Nanosecond)), "never expired before the time given")
		})
	}
}
