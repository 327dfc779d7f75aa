#!/usr/bin/env bash
# Runs every fuzz target of the repository (or those whose name matches
# PATTERN) for TIME each, one after the other, and prints a summary: the
# target, its package, pass or FAIL, and the executions reported.
# A failing input is kept by go test under the package's testdata/fuzz.
#   bench/fuzz.sh [TIME [PATTERN]]     TIME defaults to 60s
set -uo pipefail
time=${1:-60s}
pattern=${2:-.}
cd "$(dirname "$0")/.."
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
fail=0
summary=()
while IFS=: read -r file name; do
	[[ $name =~ $pattern ]] || continue
	pkg=./$(dirname "$file")
	out="$log/$name.txt"
	if go test -run '^$' -fuzz "^${name}\$" -fuzztime "$time" "$pkg" >"$out" 2>&1; then
		status=pass
	else
		status=FAIL
		fail=1
	fi
	execs=$(grep -o 'execs: [0-9]*' "$out" | tail -1 | cut -d' ' -f2)
	summary+=("$(printf '%-22s %-26s %-4s %s execs' "$name" "$pkg" "$status" "${execs:-?}")")
	if [[ $status == FAIL ]]; then
		tail -20 "$out"
	fi
done < <(grep -rHo --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*' . | sed 's|^\./||; s|:func |:|' | sort)
echo "fuzz targets, $time each:"
printf '%s\n' "${summary[@]}"
exit $fail
