#!/usr/bin/env bash
# Runs examples/httpapi against DynamoDB Local: a throwaway container, or the
# endpoint in RYNO_DYNAMODB_ENDPOINT. It creates the tables with ryno migrate up,
# then serves on HTTPAPI_ADDR (default localhost:8080) until Ctrl-C.
set -euo pipefail
cd "$(dirname "$0")/.."

prefix=${RYNO_TABLE_PREFIX:-catalog}
addr=${HTTPAPI_ADDR:-localhost:8080}

trap stop_local_endpoint EXIT
# shellcheck source=local-endpoint.sh
. scripts/local-endpoint.sh

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
