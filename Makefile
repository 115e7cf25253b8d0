# RynoDB for Go.
#
#   make test    vet, format check, unit and integration tests against DynamoDB Local,
#                then a short fuzz of the cursor decoder
#   make demo    run examples/quickstart against DynamoDB Local
#   make example-tracker  run examples/tracker, an issue tracker, and its own ryno command
#   make example-httpapi  serve examples/httpapi against DynamoDB Local, until Ctrl-C
#   make example-lambda   test examples/lambda against DynamoDB Local; build its bootstrap
#   make bench   benchmarks against DynamoDB Local (requests and allocations per call)
#   make bench-cost  what each call costs by AWS's billing rules next to the raw requests of
#                the seed design, and both sides' throughput under 8 writers (COST_DURATION a side)
#   make bench-bulk  export and import against raw Scan and BatchWriteItem, and their memory
#   make bench-partitions  the WCU a second each partition key takes under hot workloads
#   make bench-contention  8 processes on one list: calls a second and requests a call, against raw requests; what each request costs DynamoDB Local
#   make fuzz    run every fuzz target for FUZZTIME, report each (scripts/fuzz.sh)
#   make api     count the identifiers each public package exports
#
# Each target prepares what it needs on a fresh machine: it installs and starts Docker
# when absent (as root) and provides a DynamoDB Local image (see scripts/dynamodb-local.sh).
# RYNO_DYNAMODB_ENDPOINT=http://host:port uses a running DynamoDB Local instead.

GO        ?= go
GOTESTSUM ?= $(GO) run gotest.tools/gotestsum@v1.13.0
FUZZTIME  ?= 20s
CRASH_ROUNDS ?= 75
COST_DURATION ?= 10s
BUILD     := build

# The service examples are modules of their own, in the workspace: ./... does not reach
# them. It reaches examples/quickstart, examples/tracker and what both services share,
# examples/internal/catalog, which are in the root module.
EXAMPLES  := ./examples/lambda/... ./examples/httpapi/...

# testcontainers-go: the reaper image cannot be pulled without a registry, and the
# Docker host must be reached over loopback.
export TESTCONTAINERS_RYUK_DISABLED ?= true
export TESTCONTAINERS_HOST_OVERRIDE ?= localhost

# Prepares DynamoDB Local for a recipe line: exports RYNO_DYNAMODB_IMAGE, unless
# RYNO_DYNAMODB_ENDPOINT names a running one. A failure stops the recipe.
with_dynamodb = if [ -z "$$RYNO_DYNAMODB_ENDPOINT" ]; then \
		image=$$(scripts/dynamodb-local.sh image) || exit 1; export RYNO_DYNAMODB_IMAGE=$$image; fi; \
	export RYNO_REQUIRE_DYNAMODB=1;

.PHONY: test lint unit demo example-tracker example-httpapi example-lambda bench bench-cost bench-bulk bench-partitions bench-contention crash fuzz api clean

# go test starts the packages' runs in the order they are named, each once every
# package named before it is built: the integration tests, the longest run by far,
# come first, so that the other packages build and run beside them. -parallel 4 runs
# as many parallel integration tests at once as their pool has access keys (see
# integration/doc.go); the default, the number of CPUs, may be fewer.
test: lint
	@mkdir -p $(BUILD)
	@$(with_dynamodb) \
		$(GOTESTSUM) --format pkgname-and-test-fails --jsonfile $(BUILD)/test-events.json -- -race -count=1 -parallel 4 ./integration/... ./... $(EXAMPLES)
	@scripts/test-summary.sh $(BUILD)/test-events.json integration ryno internal/schema tables cli \
		examples/lambda examples/httpapi examples/internal/catalog
	$(GO) test ./ryno -run '^$$' -fuzz '^FuzzDecodeCursor$$' -fuzztime 10s

lint:
	$(GO) vet ./... ./integration/... $(EXAMPLES)
	$(GO) vet -tags costreport ./integration/
	$(GO) vet -tags bulkbench ./integration/
	@unformatted=$$(gofmt -l .); if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi

# Unit tests only: no Docker needed (integration tests skip with one line).
unit:
	$(GO) test -count=1 ./... ./integration/... $(EXAMPLES)

demo:
	@scripts/demo.sh

example-tracker:
	@scripts/example-tracker.sh

example-httpapi:
	@scripts/example-httpapi.sh

# The bootstrap binary for the provided.al2023 runtime on arm64, where
# examples/lambda/template.yaml takes it from.
example-lambda:
	@$(with_dynamodb) \
		$(GO) test -race -count=1 -v ./examples/lambda/...
	cd examples/lambda && GOOS=linux GOARCH=arm64 CGO_ENABLED=0 $(GO) build -tags lambda.norpc -o build/bootstrap .

bench:
	@$(with_dynamodb) \
		$(GO) test -run '^$$' -bench . -benchmem ./... ./integration/...

# The crash test of make test kills 9 processes; this one CRASH_ROUNDS. Set
# RYNO_CRASH_SEED to the seed a run printed to repeat it.
crash:
	@$(with_dynamodb) \
		RYNO_CRASH_ROUNDS=$(CRASH_ROUNDS) $(GO) test -count=1 -timeout 60m -run '^TestProcessesKilledMidWriteLeaveNothingHalfDone$$' ./integration/

# Prints markdown tables on standard output (see docs/cost.md). Run in the package
# directory so that go test streams the output of a passing test.
bench-cost:
	@$(with_dynamodb) \
		cd integration && RYNO_COST_DURATION=$(COST_DURATION) \
		$(GO) test -tags costreport -count=1 -run '^TestCostReport$$' -timeout 30m

# Export and import against raw Scan and BatchWriteItem doing the same work, and their
# peak memory at BULK_ENTITIES/10 and BULK_ENTITIES entities (10 list entries each).
BULK_ENTITIES ?= 10000
bench-bulk:
	@$(with_dynamodb) \
		cd integration && RYNO_BULK_ENTITIES=$(BULK_ENTITIES) \
		$(GO) test -tags bulkbench -count=1 -run '^TestBulkReport$$' -timeout 60m

# 8 processes appending to and removing from one list for CONTENTION_DURATION a
# side, through the library, through raw requests, and through the library with a
# list of its own to each process; prints markdown.
CONTENTION_DURATION ?= 30s
bench-contention:
	@$(with_dynamodb) \
		cd integration && RYNO_CONTENTION_DURATION=$(CONTENTION_DURATION) \
		$(GO) test -tags costreport -count=1 -run '^TestListContentionReport$$|^TestListCeilingReport$$' -timeout 30m

# The partition model: workloads played through the client, the WCU a second each
# partition key of each table and GSI takes at 5,000 calls a second, hottest first.
bench-partitions:
	@$(with_dynamodb) \
		cd integration && $(GO) test -count=1 -v -run '^TestPartitionModelShowsTodaysHotKeys$$' | grep -v '^=== '

FUZZ_PACKAGES := ./internal/schema ./internal/relationships ./internal/numbers ./indexing ./ryno ./changes

# Every target runs, whatever fails; the script reports each and tells a crasher from
# the fuzzing coordinator's "context deadline exceeded" race.
fuzz:
	@GO="$(GO)" FUZZTIME="$(FUZZTIME)" scripts/fuzz.sh $(FUZZ_PACKAGES)

api:
	@$(GO) run ./internal/tools/apicount ryno entity tables check bulk relationships indexing migrations changes cli rynotest

clean:
	rm -rf $(BUILD)
