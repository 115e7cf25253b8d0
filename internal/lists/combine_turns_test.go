package lists

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestTakesOverOneWriterAtATimeWhileTheListStandsStill(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	const wait = 100 * time.Millisecond
	tests := []struct {
		name   string
		pos    int
		oldest time.Duration // how long ago the oldest request was posted
		still  time.Duration // how long ago this writer last saw a commit to the list
		want   bool
	}{
		{"the oldest's writer commits at once", 0, 0, 0, true},
		{"the next in line waits for the oldest's writer", 1, wait / 2, wait / 2, false},
		{"the next in line steps in once the oldest is left that long", 1, wait + time.Millisecond, wait + time.Millisecond, true},
		{"not while commits to the list go on", 1, 10 * wait, wait / 2, false},
		{"not before the oldest has waited that long", 1, wait / 2, 10 * wait, false},
		{"the third in line waits twice as long", 2, wait + time.Millisecond, wait + time.Millisecond, false},
		{"and then steps in", 2, 2*wait + time.Millisecond, 2*wait + time.Millisecond, true},
		{"the seventh waits seven times as long", 7, 6 * wait, 6 * wait, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, takesOver(tt.pos, ago(tt.oldest), ago(tt.still), now, wait))
		})
	}
}

func TestStandInWaitsThreeTransactionsAsTheClientSeesThem(t *testing.T) {
	tests := []struct {
		name     string
		observed []time.Duration
		want     time.Duration
	}{
		{"none seen yet: takeOver", nil, takeOver},
		{"fast transactions: takeOver", []time.Duration{5 * time.Millisecond, 8 * time.Millisecond}, takeOver},
		{"the first one seen sets the average", []time.Duration{200 * time.Millisecond}, 600 * time.Millisecond},
		{"each next one moves it a quarter of the way", []time.Duration{200 * time.Millisecond, 600 * time.Millisecond}, 900 * time.Millisecond},
		{"at most standInAtMost", []time.Duration{2 * time.Second}, standInAtMost},
		{"back to fast, it comes down", []time.Duration{200 * time.Millisecond, 0, 0, 0, 0, 0, 0, 0, 0}, takeOver},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m commitTimes
			for _, d := range tt.observed {
				m.observe(d)
			}
			require.Equal(t, tt.want, m.standIn())
		})
	}
}
