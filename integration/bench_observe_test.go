package integration_test

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"go.opentelemetry.io/contrib/instrumentation/github.com/aws/aws-sdk-go-v2/otelaws"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/rynodb/rynodb/integration/dynamotest"
	"github.com/rynodb/rynodb/ryno"
)

// BenchmarkObservedGet measures what observing a call adds to a Get: the report
// alone, the report with spans of the call and its requests, and debug logging.
// Time is dominated by the round trip; allocations show the cost.
func BenchmarkObservedGet(b *testing.B) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sdktrace.NewSimpleSpanProcessor(tracetest.NewNoopExporter())))
	defer tp.Shutdown(context.Background())
	debug := slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cases := []struct {
		name   string
		traced bool
		opts   ryno.Options
	}{
		{name: "unobserved"},
		{name: "report", opts: ryno.Options{OnCall: func(context.Context, ryno.CallReport) {}}},
		{name: "report+spans", traced: true, opts: ryno.Options{OnCall: func(context.Context, ryno.CallReport) {}, TracerProvider: tp}},
		{name: "debug log", opts: ryno.Options{Logger: debug}},
	}
	for _, bc := range cases {
		b.Run(bc.name, func(b *testing.B) {
			api := dynamotest.API(b)
			prefix := dynamotest.Tables(b, api)
			if bc.traced {
				opts := api.Options()
				otelaws.AppendMiddlewares(&opts.APIOptions, otelaws.WithTracerProvider(tp))
				api = dynamodb.New(opts)
			}
			counter := dynamotest.NewCounter(api)
			bc.opts.TablePrefix = prefix
			db, err := ryno.New(counter, bc.opts)
			if err != nil {
				b.Fatal(err)
			}
			stored := seedEntities(b, db, 100)
			measure(b, counter, func(i int) error {
				_, err := db.Get(ctx, stored[i%len(stored)].Key)
				return err
			})
		})
	}
}
