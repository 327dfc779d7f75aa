#!/usr/bin/env bash
# Prints where the time of a sandboxed `shellguard run -- true` goes: the
# median, over RUNS launches, of the time from one recorded step to the
# next (SHELLGUARD_TIMING, internal/steptime), for the CLI (cli., run.,
# runner., sb.) and its sandbox helper (h.). Give a built binary as $1 to
# measure that one; extra arguments are passed to `run` (for example
# --sandbox off). It runs in the current directory, which is the workspace.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-}
if [ -z "$bin" ]; then
	bin=$(mktemp -d)/shellguard
	(cd "$here" && CGO_ENABLED=0 go build -o "$bin" ./cmd/shellguard)
fi
shift || true
runs=${RUNS:-100}
dir=$(mktemp -d)
for i in $(seq "$runs"); do
	SHELLGUARD_TIMING="$dir/$i" "$bin" run "$@" -- true >/dev/null
done
python3 - "$dir" "$runs" <<'PY'
import os, statistics, sys
d, runs = sys.argv[1], int(sys.argv[2])
deltas, order, totals = {}, [], []
for i in range(1, runs + 1):
    ev = []
    for line in open(os.path.join(d, str(i))):
        who, step, t = line.split()
        ev.append((int(t), step))
    ev.sort()
    totals.append((ev[-1][0] - ev[0][0]) / 1e6)
    for (t0, _), (t1, s) in zip(ev, ev[1:]):
        if s not in deltas:
            deltas[s] = []
            order.append(s)
        deltas[s].append((t1 - t0) / 1e6)
print("%-22s %9s %9s" % ("step (time since the previous step)", "median_ms", "p90_ms"))
for s in order:
    v = sorted(deltas[s])
    print("%-22s %9.3f %9.3f" % (s, statistics.median(v), v[int(len(v) * 0.9) - 1]))
print("%-22s %9.3f" % ("cli.main -> cli.exit", statistics.median(totals)))
PY
rm -rf "$dir"
