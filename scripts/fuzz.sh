#!/usr/bin/env bash
# Runs every fuzz target of the packages given, each for FUZZTIME, and reports each
# one: passed, or failed, and why. It runs them all whatever fails, and exits with
# status 1 at the end when any failed.
#
# A target fails with a crasher when the run writes a new input under its package's
# testdata/fuzz/<target>/: that input reproduces the failure, and is left there.
# A run that fails with "context deadline exceeded" and no crasher is a known race
# of Go's fuzzing coordinator at the end of -fuzztime, not a finding: it is reported
# as such and the target is run once more; it passes when the rerun passes.
#
# Usage: GO=go FUZZTIME=20s scripts/fuzz.sh PACKAGE...
set -uo pipefail

read -ra go_cmd <<<"${GO:-go}"
fuzztime=${FUZZTIME:-20s}
if [ $# -eq 0 ]; then
	echo "usage: scripts/fuzz.sh PACKAGE..." >&2
	exit 2
fi

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

results=()  # one line per target, printed at the end
failed=0
targets=0

# corpus PKG TARGET prints the files of the target's corpus, one a line, sorted.
corpus() {
	local dir="$1/testdata/fuzz/$2"
	if [ -d "$dir" ]; then
		find "$dir" -type f | LC_ALL=C sort
	fi
}

# fuzz PKG TARGET LOG runs the target once, its output shown and kept in LOG, and
# sets outcome to pass, crasher, race or error; for a crasher, crasher names it.
fuzz() {
	local pkg=$1 target=$2 log=$3 before after
	before=$(corpus "$pkg" "$target")
	"${go_cmd[@]}" test "$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" 2>&1 | tee "$log"
	if [ "${PIPESTATUS[0]}" -eq 0 ]; then
		outcome=pass
		return
	fi
	after=$(corpus "$pkg" "$target")
	crasher=$(LC_ALL=C comm -13 <(printf '%s\n' "$before") <(printf '%s\n' "$after") | grep -v '^$' | head -n 1)
	if [ -z "$crasher" ]; then # an input found again, already in the corpus
		crasher=$(sed -n 's/.*Failing input written to \(.*\)$/\1/p' "$log" | head -n 1)
	fi
	if [ -n "$crasher" ]; then
		outcome=crasher
	elif grep -q 'context deadline exceeded' "$log"; then
		outcome=race
	else
		outcome=error
	fi
}

for pkg in "$@"; do
	if ! list=$("${go_cmd[@]}" test -list '^Fuzz' "$pkg" 2>&1); then
		printf '%s\n' "$list"
		results+=("FAIL  $pkg: its fuzz targets could not be listed (see above)")
		failed=$((failed + 1))
		continue
	fi
	for target in $(printf '%s\n' "$list" | grep '^Fuzz'); do
		targets=$((targets + 1))
		log="$logs/$targets.log"
		echo "=== fuzz $pkg $target for $fuzztime"
		fuzz "$pkg" "$target" "$log"
		note=""
		if [ "$outcome" = race ]; then
			echo "=== $pkg $target: \"context deadline exceeded\" without a crasher, the fuzzing coordinator's race; running it once more"
			note=" (after a rerun: the first run hit the fuzzing coordinator's race, \"context deadline exceeded\" without a crasher)"
			fuzz "$pkg" "$target" "$log"
		fi
		case $outcome in
		pass)
			results+=("PASS  $pkg $target$note")
			;;
		crasher)
			results+=("FAIL  $pkg $target: crasher $crasher; reproduce with: go test $pkg -run '$target/$(basename "$crasher")'")
			failed=$((failed + 1))
			;;
		race)
			results+=("FAIL  $pkg $target: \"context deadline exceeded\" without a crasher twice in a row")
			failed=$((failed + 1))
			;;
		*)
			results+=("FAIL  $pkg $target: failed without a crasher (see its output above)")
			failed=$((failed + 1))
			;;
		esac
	done
done

echo
echo "fuzz results, $fuzztime per target:"
for line in "${results[@]}"; do
	echo "  $line"
done
echo "$targets targets, $failed failed"
if [ "$failed" -gt 0 ]; then
	exit 1
fi
