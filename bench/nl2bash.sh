#!/usr/bin/env bash
# Runs every command of a command list (NL2Bash's data/bash/all.cm, one
# command per line) through `shellguard check --json` and prints the
# allow/ask/deny distribution, with check errors and crashes counted apart.
#
#   bench/nl2bash.sh ALL_CM SHELLGUARD [OUT]     (OUT defaults to ./nl2bash.jsonl)
#
# OUT gets one JSON object per command: {"line","cmd","decision","ids"} and
# "error" when check failed. Compare two result files with
#   go run bench/nl2bash_diff.go BEFORE.jsonl AFTER.jsonl
#
# The commands are never run: each one is passed to `check` as a single
# argument by a Go helper; no shell sees them. JOBS sets the parallelism.
set -euo pipefail

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
	echo "usage: $0 ALL_CM SHELLGUARD [OUT]" >&2
	exit 2
fi
in=$(realpath -- "$1")
bin=$(realpath -- "$2")
out=$(realpath -m -- "${3:-nl2bash.jsonl}")
[ -r "$in" ] || { echo "$0: cannot read $in" >&2; exit 2; }
[ -x "$bin" ] || { echo "$0: $bin is not executable" >&2; exit 2; }

cd "$(dirname "$0")/.."
exec go run bench/nl2bash_run.go -bin "$bin" -in "$in" -out "$out" -j "${JOBS:-$(nproc)}"
