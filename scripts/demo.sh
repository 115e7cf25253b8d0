#!/usr/bin/env bash
# Runs examples/quickstart against DynamoDB Local: a throwaway container, or the
# endpoint in RYNO_DYNAMODB_ENDPOINT.
set -euo pipefail
cd "$(dirname "$0")/.."

out=$(mktemp)
container=
cleanup() {
	rm -f "$out"
	if [ -n "$container" ]; then scripts/dynamodb-local.sh stop "$container"; fi
}
trap cleanup EXIT

endpoint=${RYNO_DYNAMODB_ENDPOINT:-}
if [ -z "$endpoint" ]; then
	read -r container endpoint < <(scripts/dynamodb-local.sh start)
fi

# DynamoDB Local accepts any credentials but keeps data per access key and region.
export AWS_ACCESS_KEY_ID=${AWS_ACCESS_KEY_ID:-local}
export AWS_SECRET_ACCESS_KEY=${AWS_SECRET_ACCESS_KEY:-local}
export AWS_REGION=${AWS_REGION:-us-east-1}

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
