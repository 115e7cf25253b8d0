package main

import (
	"net/http/httptest"
	"testing"
)

// TestIfMatch reads If-Match headers: one strong ETag as the API sends it is a
// version; none is no condition; anything else is refused, never taken for none.
func TestIfMatch(t *testing.T) {
	tests := []struct {
		name    string
		values  []string // nil: no header
		want    int64
		refused bool
	}{
		{"no header", nil, 0, false},
		{"an ETag", []string{`"3"`}, 3, false},
		{"empty", []string{""}, 0, true},
		{"twice", []string{`"3"`, `"4"`}, 0, true},
		{"unquoted", []string{"3"}, 0, true},
		{"unclosed", []string{`"3`}, 0, true},
		{"signed", []string{`"+3"`}, 0, true},
		{"padded", []string{`"007"`}, 0, true},
		{"zero", []string{`"0"`}, 0, true},
		{"weak", []string{`W/"3"`}, 0, true},
		{"any", []string{"*"}, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("PUT", "/articles/a", nil)
			for _, v := range tt.values {
				r.Header.Add("If-Match", v)
			}
			got, err := ifMatch(r)
			if (err != nil) != tt.refused || got != tt.want {
				t.Errorf("If-Match %q: got %d, %v; want %d, refused %v", tt.values, got, err, tt.want, tt.refused)
			}
		})
	}
}
