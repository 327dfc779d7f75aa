#!/usr/bin/env bash
# Prints, from one run on this machine: the median wall time of
# `shellguard run -- true` against `bash -c true` (without and with the
# sandbox) and their difference and ratio, and the peak RSS of shellguard
# while a command floods 300 MB of output.
set -euo pipefail
cd "$(dirname "$0")/.."

need() { command -v "$1" >/dev/null 2>&1 || { echo "installing $2" >&2; apt-get update -q >/dev/null; apt-get install -y -q "$2" >/dev/null; }; }
need hyperfine hyperfine
[ -x /usr/bin/time ] || apt-get install -y -q time >/dev/null

bin=$(mktemp -d -p /var/tmp)/shellguard
bench/build.sh "$(dirname "$bin")" >/dev/null
runs=${RUNS:-300}
json=$(mktemp)

median() { # name of a hyperfine command → median seconds
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([r for r in d["results"] if r["command"]==sys.argv[2]][0]["median"])' "$json" "$1"
}

modes=(off)
if "$bin" run --sandbox off -- true >/dev/null 2>&1; then
	modes=(off auto)
	sbflag() { echo "--sandbox $1"; }
else
	sbflag() { :; }
fi

cmds=("bash -c true")
for m in "${modes[@]}"; do cmds+=("$bin run $(sbflag "$m") -- true"); done
hyperfine -N --warmup 20 --runs "$runs" --export-json "$json" "${cmds[@]}" >/dev/null

base=$(median "bash -c true")
printf '%-44s %10s %12s %8s\n' command median_ms overhead_ms ratio
printf '%-44s %10.3f %12s %8s\n' "bash -c true" "$(python3 -c "print($base*1000)")" - 1.00
for m in "${modes[@]}"; do
	c="$bin run $(sbflag "$m") -- true"
	med=$(median "$c")
	python3 -c "b=$base; m=$med; print('%-44s %10.3f %12.3f %8.2f' % ('shellguard run (sandbox $m) -- true', m*1000, (m-b)*1000, m/b))"
done

rss=$( { /usr/bin/time -v "$bin" run $(sbflag off) -- 'head -c 300000000 /dev/zero' >/dev/null; } 2>&1 | awk -F': ' '/Maximum resident/ {print $2}')
echo "peak RSS of shellguard run -- 'head -c 300000000 /dev/zero': ${rss} KB ($((rss / 1024)) MB)"
rm -f "$json"
