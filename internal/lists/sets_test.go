package lists

import (
	"testing"
	"time"
)

func TestPositionClock(t *testing.T) {
	t0 := time.UnixMicro(1_000_000)
	tests := []struct {
		name  string
		now   time.Time
		n     int
		floor int64
		want  int64
	}{
		{"from the clock", t0, 1, 0, 1_000_000 * PositionStride},
		{"the same microsecond: a stride later", t0, 3, 0, 1_000_001 * PositionStride},
		{"after the 3 reserved", t0, 1, 0, 1_000_004 * PositionStride},
		{"the clock went back: still later", t0.Add(-time.Second), 1, 0, 1_000_005 * PositionStride},
		{"the clock moved on", t0.Add(time.Second), 2, 0, 2_000_000 * PositionStride},
		{"a floor above everything", t0, 1, 9_000_000 * PositionStride, 9_000_000 * PositionStride},
	}
	var c positionClock
	for _, tt := range tests {
		if got := c.take(tt.now, tt.n, tt.floor); got != tt.want {
			t.Fatalf("%s: take = %d, want %d", tt.name, got, tt.want)
		}
	}
}
