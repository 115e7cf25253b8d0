#!/usr/bin/env bash
# Runs examples/quickstart against DynamoDB Local: a throwaway container, or the
# endpoint in RYNO_DYNAMODB_ENDPOINT.
set -euo pipefail
cd "$(dirname "$0")/.."

trap stop_local_endpoint EXIT
# shellcheck source=local-endpoint.sh
. scripts/local-endpoint.sh

go build -o build/quickstart ./examples/quickstart
build/quickstart -endpoint "$endpoint" -prefix quickstart
