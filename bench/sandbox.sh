#!/usr/bin/env bash
# Prints, from one run on this machine, the median wall time of
# `shellguard run -- true` with the sandbox (auto: every layer, network off)
# against `bash -c true`, their difference and ratio; the same with
# --network (no network namespace) and --sandbox off; then the cost of each
# layer from the Go benchmark (sandbox.BenchmarkLayers).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v hyperfine >/dev/null || { echo "hyperfine is needed (apt-get install hyperfine)" >&2; exit 2; }

dir=$(mktemp -d -p /var/tmp)
trap 'rm -rf "$dir"' EXIT
bin=$dir/shellguard
bench/build.sh "$(dirname "$bin")" >/dev/null
runs=${RUNS:-300}
json=$dir/h.json
cd "$dir"

hyperfine -N --warmup 20 --runs "$runs" --export-json "$json" \
	"bash -c true" "$bin run -- true" "$bin run --network -- true" "$bin run --sandbox off -- true" >/dev/null

python3 - "$json" "$bin" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); b = sys.argv[2]
med = {r["command"].replace(b, "shellguard"): r["median"] * 1000 for r in d["results"]}
base = med["bash -c true"]
print("%-46s %10s %12s %7s" % ("command", "median_ms", "overhead_ms", "ratio"))
for c, m in med.items():
    print("%-46s %10.3f %12.3f %7.2f" % (c, m, m - base, m / base))
PY
cd - >/dev/null
echo
echo "per layer (Go benchmark, median ms per command; each line adds to the one above):"
go test -run '^$' -bench BenchmarkLayers -benchtime "${RUNS:-300}x" ./sandbox | awk '/^BenchmarkLayers/ {sub("BenchmarkLayers/", "", $1); sub("-[0-9]+$", "", $1); printf "  %-14s %s ms\n", $1, $5}'
