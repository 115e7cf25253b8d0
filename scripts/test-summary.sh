#!/usr/bin/env bash
# Prints how many tests passed, failed and were skipped in each package, from the
# `go test -json` events in $1, and fails when a package named in $2.. passed no
# test: integration tests that were silently skipped must not make a green run.
set -euo pipefail
events=${1:?usage: test-summary.sh EVENTS.json [REQUIRED_PACKAGE...]}
shift

awk -v required="$*" '
/"Test":/ && /"Action":"(pass|fail|skip)"/ {
	match($0, /"Action":"[a-z]+"/); action = substr($0, RSTART + 10, RLENGTH - 11)
	match($0, /"Package":"[^"]+"/); pkg = substr($0, RSTART + 11, RLENGTH - 12)
	match($0, /"Test":"[^"]+"/);    test = substr($0, RSTART + 8, RLENGTH - 9)
	sub(/^.*\/rynodb\//, "", pkg)
	kind = (test ~ /\//) ? "sub" : "top"
	count[pkg, kind, action]++
	pkgs[pkg] = 1
}
END {
	printf "%-24s %7s %7s %8s %9s\n", "package", "passed", "failed", "skipped", "subtests"
	n = 0
	for (p in pkgs) names[++n] = p
	for (i = 2; i <= n; i++)  # insertion sort: awk has no portable sort
		for (j = i; j > 1 && names[j-1] > names[j]; j--) { t = names[j]; names[j] = names[j-1]; names[j-1] = t }
	for (i = 1; i <= n; i++) {
		p = names[i]
		printf "%-24s %7d %7d %8d %9d\n", p, count[p, "top", "pass"], count[p, "top", "fail"], count[p, "top", "skip"], count[p, "sub", "pass"]
	}
	status = 0
	split(required, req, " ")
	for (i in req) if (count[req[i], "top", "pass"] == 0) {
		printf "test-summary: no test of package %s passed: were its tests skipped?\n", req[i] > "/dev/stderr"
		status = 1
	}
	exit status
}' "$events"
