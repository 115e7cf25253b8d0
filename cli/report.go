package cli

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/rynodb/rynodb/ryno"
)

// reportTo returns an Options.OnCall that prints each call's report on w, or nil
// when the --report flag is off.
func (s *settings) reportTo(w io.Writer) func(context.Context, ryno.CallReport) {
	if !s.report {
		return nil
	}
	var mu sync.Mutex
	return func(_ context.Context, r ryno.CallReport) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprint(w, formatReport(r))
	}
}

// formatReport prints a call's report: one line of requests and retries, then a
// line per table or index that consumed capacity.
func formatReport(r ryno.CallReport) string {
	var b strings.Builder
	apis := make([]string, 0, len(r.Requests))
	for _, api := range slices.Sorted(maps.Keys(r.Requests)) {
		apis = append(apis, fmt.Sprintf("%s %d", api, r.Requests[api]))
	}
	fmt.Fprintf(&b, "report: %s: %s", r.Op, count(r.RequestCount(), "request"))
	if len(apis) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(apis, ", "))
	}
	fmt.Fprintf(&b, " in %s, %s, %s, %d unprocessed, %s\n", count(r.Rounds, "round"), count(r.Retries, "retry"),
		count(r.Throttles, "throttle"), r.Unprocessed, r.Duration.Round(1e6))
	for _, c := range r.Capacity {
		fmt.Fprintf(&b, "  capacity %s\n", c)
	}
	return b.String()
}
