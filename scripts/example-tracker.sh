#!/usr/bin/env bash
# Runs examples/tracker against DynamoDB Local: a throwaway container, or the
# endpoint in RYNO_DYNAMODB_ENDPOINT. Then the tracker's own ryno command.
set -euo pipefail
cd "$(dirname "$0")/.."

out=$(mktemp)
cleanup() {
	rm -f "$out"
	stop_local_endpoint
}
trap cleanup EXIT
# shellcheck source=local-endpoint.sh
. scripts/local-endpoint.sh

go build -o build/tracker ./examples/tracker
build/tracker -endpoint "$endpoint" -prefix tracker | tee "$out"
last=$(grep -oE '^[0-9]+' "$out" | tail -1)

# The tracker carries the ryno command with its indexes, as an application would.
echo
echo "$((last + 1)). The application's own ryno command: reindex with its map functions, then check"
for cmd in "reindex --scope acme" "check --report"; do
	echo "   \$ tracker ryno $cmd"
	# shellcheck disable=SC2086 # cmd is split into arguments on purpose
	build/tracker ryno $cmd --endpoint "$endpoint" --prefix tracker 2>&1 | sed 's/^/   /'
done
