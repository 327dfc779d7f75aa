#!/usr/bin/env bash
# Compares `shellguard run` with other sandboxes for shell commands and with
# plain `bash -c`, on this machine: wall time and peak RSS (min/median/max,
# ratio to bash) of `true`, then of a 300 MB output flood.
#
#   ROUNDS=20 bench/peers.sh
#
# Into one temporary directory (under /var/tmp: Codex refuses to set up its
# helper under /tmp) it installs Anthropic's sandbox-runtime (`srt`, npm
# @anthropic-ai/sandbox-runtime) and Codex's CLI (`codex sandbox`, npm
# @openai/codex); bubblewrap, and socat and ripgrep which srt needs, come from
# apt-get when missing. It builds shellguard, then runs every tool once per
# round in turn (A B C … A B C …, ROUNDS rounds, default 20, after one
# uncounted warm-up round) through bench/peers_measure.go, which says what is
# measured. Every tool runs with HOME and CODEX_HOME in the temporary
# directory, so no user configuration is read, and in an empty directory
# there, which is shellguard's workspace.
#
# A peer that cannot be installed or cannot run here gets a row saying why.
# If one refuses to run as root, it is run as uid 65534 through setpriv and
# its row says so. Exit status: 0 when bash and shellguard ran every round,
# 1 otherwise, 2 on a bad ROUNDS.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
rounds=${ROUNDS:-20}
case $rounds in '' | *[!0-9]* | 0) echo "ROUNDS must be a positive integer, got '$rounds'" >&2; exit 2 ;; esac
flood="head -c 300000000 /dev/zero | tr '\\0' x"

tmp=$(mktemp -d -p /var/tmp shellguard-peers.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
mkdir -p "$tmp/home" "$tmp/codex-home" "$tmp/ws"

declare -A missing=() note=() prefix=()
last() { tail -n 1 "$1" 2>/dev/null | tr -d '\r' | cut -c1-160; }

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), kernel $(uname -r), $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "uptime before: $(uptime)"
load_before=$(cut -d' ' -f1 /proc/loadavg)

# --- install -----------------------------------------------------------------
apt_updated=
apt_install() { # PACKAGE → installed?
	command -v apt-get >/dev/null || { echo "no apt-get" >"$tmp/apt.log"; return 1; }
	[ "$(id -u)" = 0 ] || { echo "apt-get needs root" >"$tmp/apt.log"; return 1; }
	apt-get install -y -q "$1" >"$tmp/apt.log" 2>&1 && return 0
	[ -z "$apt_updated" ] || return 1
	apt_updated=1
	apt-get update -q >>"$tmp/apt.log" 2>&1 || true
	apt-get install -y -q "$1" >>"$tmp/apt.log" 2>&1
}
need() { # COMMAND PACKAGE → "" or why it is missing
	command -v "$1" >/dev/null && return 0
	echo "installing $2" >&2
	apt_install "$2" && command -v "$1" >/dev/null && return 0
	echo "apt-get install $2 failed: $(last "$tmp/apt.log")"
	return 1
}
bwrap_why=$(need bwrap bubblewrap) || missing[bubblewrap]=$bwrap_why
srt_why=
for p in socat:socat rg:ripgrep; do
	why=$(need "${p%%:*}" "${p#*:}") || srt_why+="${srt_why:+; }$why"
done
[ -n "${missing[bubblewrap]:-}" ] && srt_why+="${srt_why:+; }${missing[bubblewrap]}"

npm_install() { # NAME PACKAGE → "" or why it failed
	command -v npm >/dev/null || { echo "npm not found"; return 1; }
	echo "installing $2" >&2
	npm install --prefix "$tmp/$1" --no-audit --no-fund --loglevel=error "$2" >"$tmp/$1.log" 2>&1 ||
		{ echo "npm install $2 failed: $(grep -m1 -i 'err' "$tmp/$1.log" | cut -c1-160)"; return 1; }
}
srt=$tmp/srt/node_modules/.bin/srt
codex=$tmp/codex/node_modules/.bin/codex
if [ -n "$srt_why" ]; then
	missing[srt]="needs bubblewrap, socat and ripgrep: $srt_why"
else
	why=$(npm_install srt @anthropic-ai/sandbox-runtime) || missing[srt]=$why
fi
why=$(npm_install codex @openai/codex) || missing[codex]=$why

bin=$tmp/shellguard
bench/build.sh "$(dirname "$bin")" >/dev/null
go build -o "$tmp/measure" bench/peers_measure.go

# Everything from here runs with this environment, the same for every tool.
export HOME=$tmp/home CODEX_HOME=$tmp/codex-home SHELL=/bin/bash
cd "$tmp/ws"

# --- what each tool runs -------------------------------------------------------
bwrap_flags=(--ro-bind / / --dev /dev --proc /proc --unshare-all --die-with-parent --new-session)
argv() { # TOOL COMMAND → the words to run, one per line (NUL-free)
	case $1 in
	bash) printf '%s\n' bash -c "$2" ;;
	shellguard) printf '%s\n' "$bin" run -- "$2" ;;
	bubblewrap) printf '%s\n' bwrap "${bwrap_flags[@]}" bash -c "$2" ;;
	codex) printf '%s\n' "$codex" sandbox -- bash -c "$2" ;;
	srt) printf '%s\n' "$srt" -c "$2" ;;
	esac
}
tools=(bash shellguard bubblewrap codex srt)

# --- versions and a first run of each peer ---------------------------------------
note[bash]="$(bash --version | head -n1 | sed 's/GNU bash, version /bash /; s/ (.*//')"
layers=$("$bin" run --json -- true | grep -o '"name": "[a-z0-9-]*"' | cut -d'"' -f4 | paste -sd' ')
echo "shellguard sandbox layers (run --json -- true): $layers"
note[shellguard]="commit $(git -C "$repo" rev-parse --short HEAD)$(git -C "$repo" diff --quiet HEAD -- . 2>/dev/null || echo '+changes'), sandbox auto: $(wc -w <<<"$layers") layers"
[ -n "${missing[bubblewrap]:-}" ] || note[bubblewrap]="$(bwrap --version)"
npm_note() { # NAME PACKAGE → which release npm installed, against the latest
	local pj=$tmp/$1/node_modules/$2/package.json have latest
	have=$(node -p "require('$pj').version" 2>/dev/null) || return 0
	latest=$(npm view "$2" version 2>/dev/null) || latest=$have
	printf '%s %s on node %s (asks node %s)' "$2" "$have" "$(node --version)" "$(node -p "require('$pj').engines?.node || 'any'")"
	[ "$latest" = "$have" ] || printf '; the latest, %s, asks node %s' "$latest" "$(npm view "$2" engines.node 2>/dev/null || echo '?')"
}
[ -n "${missing[codex]:-}" ] || note[codex]="$(npm_note codex @openai/codex)"
[ -n "${missing[srt]:-}" ] || note[srt]="$(npm_note srt @anthropic-ai/sandbox-runtime)"

mkdir -p "$tmp/home-65534"
chown 65534:65534 "$tmp/home-65534" 2>/dev/null || true
for t in bubblewrap codex srt; do
	[ -z "${missing[$t]:-}" ] || continue
	mapfile -t a < <(argv "$t" true)
	if "${a[@]}" >/dev/null 2>"$tmp/probe.err"; then continue; fi
	why=$(last "$tmp/probe.err")
	if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null &&
		HOME=$tmp/home-65534 setpriv --reuid=65534 --regid=65534 --clear-groups -- "${a[@]}" >/dev/null 2>"$tmp/probe.err"; then
		prefix[$t]=1
		note[$t]+="; run as uid 65534 via setpriv (as root: ${why:-exit status non-zero})"
	else
		missing[$t]="cannot run here: ${why:-exit status non-zero}"
	fi
done

run_argv() { # TOOL COMMAND → argv as measured, with the setpriv prefix if needed
	[ -z "${prefix[$1]:-}" ] || printf '%s\n' env "HOME=$tmp/home-65534" setpriv --reuid=65534 --regid=65534 --clear-groups --
	argv "$1" "$2"
}
for t in "${tools[@]}"; do
	[ -n "${missing[$t]:-}" ] || echo "$t runs: $(run_argv "$t" true | sed "s#$tmp#\$tmp#" | paste -sd' ')"
done

# --- measure ------------------------------------------------------------------------
rc=0
measure() { # TITLE COMMAND
	local args=(-rounds "$rounds" -title "$1" -base bash -require bash,shellguard) t a
	local cmd=()
	for t in "${tools[@]}"; do
		[ -z "${note[$t]:-}" ] || args+=(-note "$t=${note[$t]}")
		if [ -n "${missing[$t]:-}" ]; then
			args+=(-missing "$t=${missing[$t]}")
			continue
		fi
		mapfile -t a < <(run_argv "$t" "$2")
		cmd+=("@$t" "${a[@]}")
	done
	echo
	"$tmp/measure" "${args[@]}" -- "${cmd[@]}" || rc=$?
}
measure "### \`true\` ($rounds rounds)" true
measure "### 300 MB of output to /dev/null: \`$flood\` ($rounds rounds)" "$flood"

echo
echo "uptime after: $(uptime)"
load_after=$(cut -d' ' -f1 /proc/loadavg)
if awk -v a="$load_before" -v b="$load_after" 'BEGIN { exit !(a > 1 || b > 1) }'; then
	echo "note: the load average was above 1 (before $load_before, after $load_after): the machine was shared with other work while measuring"
fi
exit "$rc"
