#!/usr/bin/env bash
# Runs examples/quickstart against DynamoDB Local: a throwaway container, or the
# endpoint in RYNO_DYNAMODB_ENDPOINT.
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

go build -o build/quickstart ./examples/quickstart
build/quickstart -endpoint "$endpoint" -prefix quickstart | tee "$out"
last=$(grep -oE '^[0-9]+' "$out" | tail -1)

# The quickstart carries the ryno command with its indexes, as an application would.
echo
echo "$((last + 1)). The application's own ryno command: reindex with its map functions, then check"
for cmd in "reindex --scope acme" "check --report"; do
	echo "   \$ quickstart ryno $cmd"
	# shellcheck disable=SC2086 # cmd is split into arguments on purpose
	build/quickstart ryno $cmd --endpoint "$endpoint" --prefix quickstart 2>&1 | sed 's/^/   /'
done
