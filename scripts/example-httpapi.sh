#!/usr/bin/env bash
# Runs examples/httpapi against DynamoDB Local: a throwaway container, or the
# endpoint in RYNO_DYNAMODB_ENDPOINT. It creates the tables with ryno migrate up,
# then serves on HTTPAPI_ADDR (default localhost:8080) until Ctrl-C.
set -euo pipefail
cd "$(dirname "$0")/.."

prefix=${RYNO_TABLE_PREFIX:-catalog}
addr=${HTTPAPI_ADDR:-localhost:8080}

container=
cleanup() {
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

mkdir -p build
go build -o build/ryno ./cmd/ryno
(cd examples/httpapi && go build -o ../../build/httpapi .)
build/ryno migrate up --prefix "$prefix" --endpoint "$endpoint"

cat <<USAGE

Serving on http://$addr (Ctrl-C stops it gracefully). Try:
  curl -i -X POST http://$addr/authors -d '{"id": "ada", "name": "Ada Lovelace"}'
  curl -i -X POST http://$addr/articles -d '{"id": "engine", "title": "Notes", "tags": ["computing"]}'
  curl -i -X PUT http://$addr/articles/engine/authors/ada
  curl -i -X PUT http://$addr/articles/engine -H 'If-Match: "1"' -d '{"title": "Notes, revised"}'
  curl -s http://$addr/authors/ada/articles
  curl -s 'http://$addr/articles?limit=10'
  curl -s http://$addr/healthz

USAGE
build/httpapi -addr "$addr" -prefix "$prefix" -endpoint "$endpoint"
