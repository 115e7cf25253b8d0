package main

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
)

// TestIfMatch reads If-Match headers: one strong ETag as the API sends it is a
// version; none is no condition; anything else is refused, never taken for none.
func TestIfMatch(t *testing.T) {
	tests := []struct {
		name    string
		header  *string // nil: no header
		want    int64
		refused bool
	}{
		{"no header", nil, 0, false},
		{"an ETag", ptr(`"3"`), 3, false},
		{"empty", ptr(""), 0, true},
		{"unquoted", ptr("3"), 0, true},
		{"unclosed", ptr(`"3`), 0, true},
		{"signed", ptr(`"+3"`), 0, true},
		{"padded", ptr(`"007"`), 0, true},
		{"weak", ptr(`W/"3"`), 0, true},
		{"a list", ptr(`"3", "4"`), 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := &events.APIGatewayV2HTTPRequest{Headers: map[string]string{}}
			if tt.header != nil {
				req.Headers["if-match"] = *tt.header
			}
			got, err := ifMatch(req)
			if (err != nil) != tt.refused || got != tt.want {
				t.Errorf("If-Match %v: got %d, %v; want %d, refused %v", tt.header, got, err, tt.want, tt.refused)
			}
		})
	}
}

func ptr(s string) *string { return &s }

// TestAnInvocationKeepsAMarginToAnswer: a call's context ends a second before the
// invocation's, so that the handler still answers and logs a call out of time.
func TestAnInvocationKeepsAMarginToAnswer(t *testing.T) {
	deadline := time.Now().Add(10 * time.Second)
	parent, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	ctx, stop := withAnswerMargin(parent)
	defer stop()
	if got, ok := ctx.Deadline(); !ok || !got.Equal(deadline.Add(-answerMargin)) {
		t.Errorf("deadline %v, %v; want %v", got, ok, deadline.Add(-answerMargin))
	}
	ctx, stop = withAnswerMargin(context.Background())
	defer stop()
	if _, ok := ctx.Deadline(); ok {
		t.Error("an invocation with no deadline got one")
	}
}
