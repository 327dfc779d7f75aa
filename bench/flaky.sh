#!/usr/bin/env bash
# Runs the test suite N times (default 5) on a fresh clone of HEAD while
# the machine is kept busy, and prints the failures per test.
#
# The load is what CI meets on a shared machine: `go test -race -p 2`
# (two packages at once, as on a two-core machine) plus one busy loop per
# core, started before each round and stopped (by PID) after it. With
# FLAKY_MAKE=1 each round runs the whole `make test` (vet, lint, cross
# builds and the evaluation corpora too) instead of the unit tests.
#
#   bench/flaky.sh [N]
#
# Exit status: 0 when every round passed.
set -euo pipefail
rounds=${1:-5}
src=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)
shared=${SHARED:-$(cd "$src/.." && pwd)/shared}
work=$(mktemp -d /var/tmp/shellguard-flaky.XXXXXX)
burners=()
stop_burners() {
	for p in "${burners[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${burners[@]}"; do wait "$p" 2>/dev/null || true; done
	burners=()
}
trap 'stop_burners; rm -rf "$work"' EXIT
git clone --quiet --no-hardlinks "$src" "$work/shellguard"
git -C "$work/shellguard" checkout --quiet "$(git -C "$src" rev-parse HEAD)"
ln -s "$shared" "$work/shared"
cd "$work/shellguard"
# What make test installs before the unit tests (Debian's chromium for
# the approval page's end-to-end test): strict tests fail without it.
make browser >/dev/null
echo "clone of $(git rev-parse --short HEAD) in $work; $rounds rounds; $(nproc) busy loops beside the tests"

fails="$work/fails"
: >"$fails"
passed=0
for r in $(seq 1 "$rounds"); do
	for _ in $(seq 1 "$(nproc)"); do
		bash -c 'while :; do :; done' &
		burners+=($!)
	done
	start=$(date +%s)
	log="$work/round$r.log"
	rc=0
	if [ "${FLAKY_MAKE:-}" = 1 ]; then
		CI=true SHELLGUARD_STRICT_TESTS=1 make test SHARED="$work/shared" >"$log" 2>&1 || rc=$?
		grep -E '^\s*--- FAIL: ' "$log" | sed -E 's/^\s*--- FAIL: ([^ ]+).*/\1/' >>"$fails" || true
	else
		CI=true SHELLGUARD_STRICT_TESTS=1 go test -race -count=1 -p 2 -timeout 20m -json ./... >"$log" 2>&1 || rc=$?
		# test2json: {"Time":…,"Action":"fail","Package":"P","Test":"T",…}
		sed -nE 's/.*"Action":"fail","Package":"([^"]*)","Test":"([^"]*)".*/\1.\2/p' "$log" >>"$fails"
	fi
	stop_burners
	load=$(cut -d' ' -f1-3 /proc/loadavg)
	if [ "$rc" = 0 ]; then
		passed=$((passed + 1))
		echo "round $r: pass ($(($(date +%s) - start)) s, load $load)"
	else
		echo "round $r: FAIL (exit $rc, $(($(date +%s) - start)) s, load $load); log kept as $log"
		trap 'stop_burners' EXIT # keep the logs
	fi
done
echo "passed $passed of $rounds rounds"
if [ -s "$fails" ]; then
	echo "failures per test:"
	sort "$fails" | uniq -c | sort -rn
fi
[ "$passed" = "$rounds" ]
