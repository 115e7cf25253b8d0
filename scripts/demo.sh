#!/usr/bin/env bash
# Runs examples/quickstart against DynamoDB Local: a throwaway container, or the
# endpoint in RYNO_DYNAMODB_ENDPOINT.
set -euo pipefail
cd "$(dirname "$0")/.."

endpoint=${RYNO_DYNAMODB_ENDPOINT:-}
if [ -z "$endpoint" ]; then
	read -r container endpoint < <(scripts/dynamodb-local.sh start)
	trap 'scripts/dynamodb-local.sh stop "$container"' EXIT
fi

# DynamoDB Local accepts any credentials but keeps data per access key and region.
export AWS_ACCESS_KEY_ID=${AWS_ACCESS_KEY_ID:-local}
export AWS_SECRET_ACCESS_KEY=${AWS_SECRET_ACCESS_KEY:-local}
export AWS_REGION=${AWS_REGION:-us-east-1}

go run ./examples/quickstart -endpoint "$endpoint" -prefix quickstart
