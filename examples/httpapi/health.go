package main

import (
	"context"
	"net/http"
	"time"
)

// healthTimeout bounds the health check: a load balancer's probe gives up soon.
const healthTimeout = 2 * time.Second

// health serves GET /healthz: 200 when the store's tables exist and match this
// version of the library (CheckSchema: one DescribeTable per table, in parallel,
// and one GetItem), 503 otherwise, so that an instance that cannot reach its
// tables is taken out of rotation. The cause goes to the log, not to the prober.
func (a *API) health(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), healthTimeout)
	defer cancel()
	if err := a.db.CheckSchema(ctx); err != nil {
		a.log.WarnContext(ctx, "health check failed", "error", err)
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}
