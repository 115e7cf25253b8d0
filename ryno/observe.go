package ryno

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/rynodb/rynodb/internal/batching"
	"github.com/rynodb/rynodb/internal/requests"
)

// instrumentationName names the tracer of the store's spans.
const instrumentationName = "github.com/rynodb/rynodb/ryno"

// observer is where a Client reports its calls: nil unless Options set OnCall,
// TracerProvider or Logger, so that a client observed by nobody pays nothing.
type observer struct {
	onCall func(context.Context, CallReport)
	tracer trace.Tracer // nil without a TracerProvider
	log    *slog.Logger // nil without a Logger
	prefix string       // the table prefix, an attribute of every span
}

func newObserver(opts Options) *observer {
	if opts.OnCall == nil && opts.TracerProvider == nil && opts.Logger == nil {
		return nil
	}
	o := &observer{onCall: opts.OnCall, log: opts.Logger, prefix: opts.TablePrefix}
	if opts.TracerProvider != nil {
		o.tracer = opts.TracerProvider.Tracer(instrumentationName)
	}
	return o
}

// wantsCapacity reports whether requests should ask DynamoDB for the capacity they
// consume: only a report or a span shows it.
func (o *observer) wantsCapacity() bool { return o.onCall != nil || o.tracer != nil }

// call is one observed call of a Client, carried by the context of its requests.
type call struct {
	obs   *observer
	stats *requests.Stats
	span  trace.Span      // nil without a tracer
	ctx   context.Context // the caller's, with the span: what OnCall receives
}

// callOf returns the call ctx belongs to, or nil.
func callOf(ctx context.Context) *call {
	k, _ := requests.RecorderOf(ctx).(*call)
	return k
}

// Sent, Answered, WantsCapacity and Throttled make a call the requests.Recorder of
// its requests.
func (k *call) Sent(api string) { k.stats.Sent(api) }

func (k *call) Answered(throttles, retries, unprocessed int, consumed []types.ConsumedCapacity, write bool) {
	k.stats.Answered(throttles, retries, unprocessed, consumed, write)
}

func (k *call) WantsCapacity() bool { return k.obs.wantsCapacity() }

func (k *call) Throttled(ctx context.Context, api string, attempt int) {
	if log := k.obs.log; log != nil {
		log.LogAttrs(ctx, slog.LevelWarn, "ryno: throttled", slog.String("op", k.stats.Op),
			slog.String("api", api), slog.Int("attempt", attempt))
	}
}

// begin starts a call of method op: every public call goes through it first. It
// refuses a nil ctx (the SDK would panic on it) with a *ValidationError. It
// observes the call, unless nobody observes or ctx already belongs to a call (a
// call made by another is part of it). The returned call may be nil; its end
// method accepts that.
func (c *Client) begin(ctx context.Context, op string) (context.Context, *call, error) {
	if ctx == nil {
		return ctx, nil, invalid("ctx", "", op+" needs a context; pass context.Background() if there is none")
	}
	if c.obs == nil || callOf(ctx) != nil {
		return ctx, nil, nil
	}
	k := &call{obs: c.obs, stats: requests.NewStats(op)}
	if c.obs.tracer != nil {
		ctx, k.span = c.obs.tracer.Start(ctx, "ryno."+op, trace.WithSpanKind(trace.SpanKindInternal),
			trace.WithAttributes(attribute.String("ryno.table_prefix", c.obs.prefix)))
	}
	k.ctx = ctx // without the call: calls OnCall makes are calls of their own
	return requests.WithRecorder(ctx, k), k, nil
}

// end reports the call, ended with *errp.
func (k *call) end(errp *error) {
	if k == nil {
		return
	}
	r := k.stats.Report(*errp)
	if k.span != nil {
		endSpan(k.span, r)
	}
	if k.obs.log != nil {
		logCall(k.ctx, k.obs.log, r)
	}
	if k.obs.onCall != nil {
		k.obs.onCall(k.ctx, r)
	}
}

// retryReason says why a request or a write is sent again.
type retryReason = batching.Reason

const (
	reasonThrottled   = batching.ReasonThrottled
	reasonUnprocessed = batching.ReasonUnprocessed
	reasonConflict    = batching.ReasonConflict
	reasonUnknown     = batching.ReasonUnknown
)

// retrying records, in the call ctx belongs to, that something is sent again
// after wait.
func retrying(ctx context.Context, why retryReason, wait time.Duration, cause error) {
	k := callOf(ctx)
	if k == nil {
		return
	}
	k.stats.Retried()
	if k.span != nil {
		k.span.AddEvent("ryno.retry", trace.WithAttributes(
			attribute.String("ryno.reason", string(why)), attribute.Int64("ryno.wait_ms", wait.Milliseconds())))
	}
	if k.obs.log != nil {
		attrs := []slog.Attr{slog.String("op", k.stats.Op), slog.String("reason", string(why)), slog.Duration("wait", wait)}
		if cause != nil {
			attrs = append(attrs, slog.Any("cause", cause))
		}
		k.obs.log.LogAttrs(ctx, retryLevel(why), "ryno: retrying", attrs...)
	}
}

func retryLevel(why retryReason) slog.Level {
	switch why {
	case reasonConflict:
		return slog.LevelDebug
	case reasonUnprocessed:
		return slog.LevelInfo
	}
	return slog.LevelWarn
}

// endSpan sets the report of a call on its span and ends it.
func endSpan(span trace.Span, r CallReport) {
	var read, write float64
	for _, c := range r.Capacity {
		read += c.Read
		write += c.Write
	}
	span.SetAttributes(
		attribute.Int("ryno.requests", r.RequestCount()),
		attribute.Int("ryno.rounds", r.Rounds),
		attribute.Int("ryno.retries", r.Retries),
		attribute.Int("ryno.throttles", r.Throttles),
		attribute.Int("ryno.unprocessed", r.Unprocessed),
		attribute.Float64("ryno.capacity.read", read),
		attribute.Float64("ryno.capacity.write", write),
		attribute.StringSlice("ryno.capacity.by_table", capacityLines(r.Capacity)),
	)
	if r.Err != nil && !expected(r.Err) {
		span.RecordError(r.Err)
		span.SetStatus(codes.Error, r.Err.Error())
	}
	span.End()
}

// capacityLines prints each table's and index's capacity on one line.
func capacityLines(cs []Capacity) []string {
	lines := make([]string, len(cs))
	for i, c := range cs {
		lines[i] = c.String()
	}
	return lines
}

// expected reports whether err is an answer rather than a failure of the store:
// what is asked for is absent, exists already or was changed by another writer,
// or the input is invalid.
func expected(err error) bool {
	return errors.Is(err, ErrNotFound) || errors.Is(err, ErrConflict) || errors.Is(err, ErrInvalid)
}

// logCall logs the end of a call: failures that may leave work undone at Error, the
// rest at Debug. A conflict (a stale version, an entity that exists, a list another
// writer holds) is an answer the caller handles, as an HTTP service answers 409 or
// 412: it is no news to the operator.
func logCall(ctx context.Context, log *slog.Logger, r CallReport) {
	level, msg := slog.LevelDebug, "ryno: call"
	var partial *PartialWriteError
	switch {
	case errors.Is(r.Err, ErrUnprocessed), errors.Is(r.Err, ErrOutcomeUnknown), errors.As(r.Err, &partial):
		level, msg = slog.LevelError, "ryno: call failed part-way"
	case errors.Is(r.Err, ErrConflict):
		msg = "ryno: call met a conflicting write"
	}
	if !log.Enabled(ctx, level) {
		return
	}
	attrs := []slog.Attr{
		slog.String("op", r.Op), slog.Int("requests", r.RequestCount()), slog.Int("rounds", r.Rounds),
		slog.Int("retries", r.Retries), slog.Int("throttles", r.Throttles), slog.Int("unprocessed", r.Unprocessed),
		slog.Duration("duration", r.Duration),
	}
	if r.Err != nil {
		attrs = append(attrs, slog.Any("error", r.Err))
	}
	log.LogAttrs(ctx, level, msg, attrs...)
}
