#!/usr/bin/env bash
# Prints the per-call latency (p50, p90, p99) of the MCP bash tool running
# `true`, measured through the real npm client (@modelcontextprotocol/sdk)
# over stdio: two `shellguard mcp` processes, one as configured (sandbox
# auto) and one with --sandbox off, CALLS sequential calls to each after
# WARMUP unmeasured ones, alternated (so both meet the same machine), and
# the ratio of their p50s. Targets: p50 <= 8 ms with the sandbox on, and a
# ratio <= 1.3. COMPARE=0 runs the first server only. Arguments are passed
# to `shellguard mcp` (both servers).
# GAP_MS=N pauses N ms before each measured call (unmeasured), as an agent
# does between calls: the time the server's warm helpers are refilled in.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v node >/dev/null || { echo "bench/mcp.sh needs node and npm" >&2; exit 1; }
[ -f e2e/node_modules/@modelcontextprotocol/sdk/package.json ] || (cd e2e && npm ci --no-audit --no-fund --loglevel=error)
dir=$(mktemp -d -p /var/tmp)
trap 'rm -rf "$dir"' EXIT
bench/build.sh "$dir" >/dev/null
mkdir "$dir/ws"
node e2e/bench.mjs "$dir/shellguard" "$dir/ws" "${CALLS:-1000}" "${WARMUP:-100}" "$@"
