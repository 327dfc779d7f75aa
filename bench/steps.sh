#!/usr/bin/env bash
# Prints where the time of a sandboxed `shellguard run -- true` goes: the
# median, over RUNS launches, of the time from one recorded step to the
# next (SHELLGUARD_TIMING, internal/steptime), for the CLI (cli., run.,
# runner., sb.) and its sandbox helper (h.). With no argument it builds
# this checkout; given several binaries (each built with steptime), it runs
# them in turn, A B A B …, and prints one column per binary. It runs in
# the current directory, which is the workspace, or, for binary j, in the
# j-th directory of WORKSPACES (binaries of different versions should not
# share a .git). EXTRA holds extra arguments for `run` (for example
# EXTRA='--sandbox off').
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bins=("$@")
if [ ${#bins[@]} -eq 0 ]; then
	b=$(mktemp -d -p /var/tmp)/shellguard
	"$here/bench/build.sh" "$(dirname "$b")" >/dev/null
	bins=("$b")
fi
runs=${RUNS:-100}
read -r -a wss <<<"${WORKSPACES:-}"
dir=$(mktemp -d)
for i in $(seq "$runs"); do
	for j in "${!bins[@]}"; do
		# shellcheck disable=SC2086
		(cd "${wss[$j]:-.}" && SHELLGUARD_TIMING="$dir/$j.$i" "${bins[$j]}" run ${EXTRA:-} -- true >/dev/null)
	done
done
python3 - "$dir" "$runs" "${bins[@]}" <<'PY'
import os, statistics, sys
d, runs, bins = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
cols, order = [], []
for j in range(len(bins)):
    deltas, totals = {}, []
    for i in range(1, runs + 1):
        ev = sorted((int(t), s) for _, s, t in (l.split() for l in open(os.path.join(d, "%d.%d" % (j, i)))))
        totals.append((ev[-1][0] - ev[0][0]) / 1e6)
        for (t0, _), (t1, s) in zip(ev, ev[1:]):
            if s not in order:
                order.append(s)
            deltas.setdefault(s, []).append((t1 - t0) / 1e6)
    cols.append((deltas, statistics.median(totals)))
print("%-20s" % "step" + "".join("%14s" % ("median_ms[%d]" % j) for j in range(len(bins))))
for s in order:
    row = "%-20s" % s
    for deltas, _ in cols:
        row += "%14s" % ("%.3f" % statistics.median(deltas[s]) if s in deltas else "-")
    print(row)
print("%-20s" % "cli.main..cli.exit" + "".join("%14.3f" % t for _, t in cols))
for j, b in enumerate(bins):
    print("[%d] %s" % (j, b))
PY
rm -rf "$dir"
