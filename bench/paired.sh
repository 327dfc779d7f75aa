#!/usr/bin/env bash
# Compares the wall time of `shellguard run -- true` between binaries (two
# builds, or the code before a change and after it) and `bash -c true`:
# every round runs each command once, in an order shuffled per round, so
# that what the machine does meanwhile, and what the command before leaves
# behind (a helper's namespaces still being torn down), falls on all of
# them alike; the medians over the rounds are printed with each binary's
# difference to the first. RUNS
# rounds (default 200, after 10 not counted). Binary j runs in the j-th
# directory of WORKSPACES, or in the current directory (binaries of
# different versions should not share a .git). Build each binary with
# bench/build.sh (or copy it into place): see docs/performance.md.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: bench/paired.sh BINARY [BINARY…]" >&2; exit 2; }
python3 - "${RUNS:-200}" "${WORKSPACES:-}" "$@" <<'PY'
import os, random, statistics, subprocess, sys, time
runs, wss, bins = int(sys.argv[1]), sys.argv[2].split(), sys.argv[3:]
cmds = [(["bash", "-c", "true"], None)]
for j, b in enumerate(bins):
    cmds.append(([b, "run", "--", "true"], wss[j] if j < len(wss) else None))
times = [[] for _ in cmds]
for r in range(runs + 10):
    order = list(range(len(cmds)))
    random.shuffle(order)
    for i in order:
        argv, cwd = cmds[i]
        t = time.perf_counter()
        p = subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        d = time.perf_counter() - t
        if p.returncode != 0:
            sys.exit("%s failed (exit %d): %s" % (" ".join(argv), p.returncode, p.stderr.decode(errors="replace")))
        if r >= 10:
            times[i].append(d * 1000)
med = [statistics.median(t) for t in times]
print("%-60s %10s %10s %12s" % ("command", "median_ms", "over_bash", "vs_first"))
for i, (argv, _) in enumerate(cmds):
    vs = "-" if i < 2 else "%+.2f" % (med[i] - med[1])
    print("%-60s %10.2f %10.2f %12s" % (" ".join(argv)[-60:], med[i], med[i] - med[0], vs))
print("rounds: %d, load average: %s" % (runs, " ".join(open("/proc/loadavg").read().split()[:3])))
PY
