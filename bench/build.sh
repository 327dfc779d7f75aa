#!/usr/bin/env bash
# Builds shellguard and its standalone sandbox helper into DIR, as
# `make build` does (static, one GNU build ID for both, so that shellguard
# starts the helper beside it), and prints the path of shellguard.
set -euo pipefail
dir=${1:?usage: bench/build.sh DIR}
cd "$(dirname "$0")/.."
mkdir -p "$dir"
id=0x$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -ldflags "-B $id" -o "$tmp/shellguard" ./cmd/shellguard
CGO_ENABLED=0 go build -ldflags "-B $id" -o "$tmp/shellguard-sandbox" ./cmd/shellguard-sandbox
# Copied, not built in place: a file the linker wrote sits in the page
# cache in small pieces and starts ~0.7 ms slower (more page faults) than
# the same bytes written in one go, as cp, an install or a reboot leaves
# them; comparisons between builds would measure that.
cp "$tmp/shellguard" "$tmp/shellguard-sandbox" "$dir/"
echo "$dir/shellguard"
