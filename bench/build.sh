#!/usr/bin/env bash
# Builds shellguard and its standalone sandbox helper into DIR, as
# `make build` does (static, one GNU build ID for both, so that shellguard
# starts the helper beside it), and prints the path of shellguard.
set -euo pipefail
dir=${1:?usage: bench/build.sh DIR}
cd "$(dirname "$0")/.."
mkdir -p "$dir"
id=0x$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
CGO_ENABLED=0 go build -ldflags "-B $id" -o "$dir/shellguard" ./cmd/shellguard
CGO_ENABLED=0 go build -ldflags "-B $id" -o "$dir/shellguard-sandbox" ./cmd/shellguard-sandbox
echo "$dir/shellguard"
