#!/usr/bin/env bash
# A soak test of `shellguard serve`: CALLS calls (default 4000) of mixed
# kinds (quick, 20 KB of output, failing, denied, asked, malformed, an MCP
# session opened, used and closed) from CLIENTS clients at once (default 4)
# on 127.0.0.1, while the server's RSS, descriptors and threads are sampled
# from /proc. Prints the samples and fails when they grew past their bounds
# or an answer was not the expected one (bench/soak_run.go says which).
# Arguments are passed to `shellguard serve` (e.g. --sandbox off).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$(mktemp -d -p /var/tmp shellguard-soak.XXXXXX)
pid=
cleanup() {
	if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
	rm -rf "$dir"
}
trap cleanup EXIT
bin=$(bench/build.sh "$dir/bin")
mkdir -p "$dir/ws" "$dir/home"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
HOME="$dir/home" "$bin" serve --addr "127.0.0.1:$port" --workspace "$dir/ws" "$@" 2>"$dir/serve.log" &
pid=$!
for _ in $(seq 1 100); do
	grep -q "serving MCP" "$dir/serve.log" 2>/dev/null && break
	sleep 0.1
done
grep -q "serving MCP" "$dir/serve.log" || { echo "serve did not start:"; cat "$dir/serve.log"; exit 1; }
go run bench/soak_run.go -addr "127.0.0.1:$port" -pid "$pid" -calls "${CALLS:-4000}" -clients "${CLIENTS:-4}"
