# The one test command: `make test` installs what the tests need and runs
# every test, the cross-platform builds and the public evaluation corpus.

# Every recipe runs in bash with -e and pipefail, so a failing step fails
# the build even inside a pipeline or a list.
SHELL       := /bin/bash
.SHELLFLAGS := -euo pipefail -c

GO        ?= go
# The shared evaluation corpus and harness (sgeval), checked out beside
# this repository (see README, "The two commands").
SHARED    ?= $(abspath ../shared)
EVALDIR   ?= /var/tmp/shellguard-eval
SGEVAL    := $(EVALDIR)/sgeval
SGBIN     := $(EVALDIR)/shellguard

.PHONY: build test vet lint browser unit cross shared evalbin eval-effect eval-static eval-sandbox eval-sandbox-fs eval-sandbox-session eval-sandbox-strict eval-warm bench release clean

# The binaries of one build share a random GNU build ID: shellguard starts
# the standalone sandbox helper beside it (faster than starting itself
# again) only when the helper's build ID is its own.
BUILDID   := 0x$(shell od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
LDFLAGS   := -B $(BUILDID)

build:
	CGO_ENABLED=0 $(GO) build -ldflags '$(LDFLAGS)' -o shellguard ./cmd/shellguard
	CGO_ENABLED=0 $(GO) build -ldflags '$(LDFLAGS)' -o shellguard-sandbox ./cmd/shellguard-sandbox

test: vet lint unit cross eval-static eval-effect eval-sandbox eval-warm

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...

# staticcheck, pinned, fetched through the module proxy (dead code, bugs,
# simplifications); a finding fails the build.
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2

lint:
	$(GO) run $(STATICCHECK) ./...

# The approval page's end-to-end test drives Debian's chromium.
browser:
	@command -v chromium >/dev/null 2>&1 || { echo "installing chromium"; apt-get update -q >/dev/null; DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium >/dev/null; }

unit: browser
	$(GO) test -race -count=1 -timeout 45m ./...

cross:
	GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 $(GO) build ./...
	GOOS=windows GOARCH=amd64 CGO_ENABLED=0 $(GO) build ./...
	GOOS=linux GOARCH=arm64 CGO_ENABLED=0 $(GO) build ./...

# The evaluation harness runs the binary as an unprivileged uid, so both
# live outside the checkout in a directory that uid can search.
$(EVALDIR):
	mkdir -p -m 755 $(EVALDIR)

shared:
	@test -f $(SHARED)/eval/sgeval/main.go && test -f $(SHARED)/eval/corpus/static-public.jsonl || \
	  { echo "make test needs the shared evaluation corpus at $(SHARED) (sgeval and corpus/); see README"; exit 1; }

evalbin: shared $(EVALDIR)
	$(GO) build -C $(SHARED)/eval/sgeval -o $(SGEVAL) .
	CGO_ENABLED=0 $(GO) build -ldflags '$(LDFLAGS)' -o $(SGBIN) ./cmd/shellguard
	CGO_ENABLED=0 $(GO) build -ldflags '$(LDFLAGS)' -o $(EVALDIR)/shellguard-sandbox ./cmd/shellguard-sandbox
	chmod 755 $(SGBIN) $(SGEVAL) $(EVALDIR)/shellguard-sandbox

# The whole public corpus (the sandbox has landed); override to narrow it.
EFFECT_FILTER ?=

eval-effect: evalbin
	cd $(EVALDIR) && $(SGEVAL) effect --exec '$(SGBIN) run --timeout {timeout} -- {cmd}' $(SHARED)/eval/corpus/effect-public.jsonl $(EFFECT_FILTER)
	cd $(EVALDIR) && $(SGEVAL) effect --exec '$(SGBIN) run --sandbox required --timeout {timeout} -- {cmd}' $(SHARED)/eval/corpus/effect-public.jsonl $(EFFECT_FILTER)
	# Secrets must not leak even without the sandbox: redaction alone.
	cd $(EVALDIR) && $(SGEVAL) effect --exec '$(SGBIN) run --sandbox off --timeout {timeout} -- {cmd}' $(SHARED)/eval/corpus/effect-public.jsonl --category 'env-secret|secret-read'

# File-system escapes of the sandbox (git metadata, the shared cache,
# credentials in HOME) and the legitimate work that must keep working.
# Escapes through the user's session (unix sockets of the user's services,
# inherited descriptors, the terminal, the host /tmp): devmachine sets the
# machine up as a developer's around each run (tmux server, forwarders,
# leaked descriptors, a controlling terminal).
DEVMACHINE := $(EVALDIR)/devmachine
eval-sandbox-session: evalbin
	@command -v tmux >/dev/null 2>&1 || { echo "installing tmux"; apt-get update -q >/dev/null; apt-get install -y -q tmux >/dev/null; }
	$(GO) build -o $(DEVMACHINE) ./sandbox/testdata/devmachine
	chmod 755 $(DEVMACHINE)
	cd $(EVALDIR) && $(SGEVAL) effect --exec '$(DEVMACHINE) {outside} -- $(SGBIN) run --timeout {timeout} -- {cmd}' $(CURDIR)/sandbox/testdata/escapes-session.jsonl
	cd $(EVALDIR) && $(SGEVAL) effect --exec '$(DEVMACHINE) {outside} -- $(SGBIN) run --sandbox required --timeout {timeout} -- {cmd}' $(CURDIR)/sandbox/testdata/escapes-session.jsonl

eval-sandbox: eval-sandbox-fs eval-sandbox-session eval-sandbox-strict

# The same corpora through a session's warm sandbox helper (the path of the
# MCP server, serve and Session): warmrun runs each command in a helper
# prepared before it arrived, and fails a case it had to start cold.
WARMRUN := $(EVALDIR)/warmrun
eval-warm: evalbin
	@command -v tmux >/dev/null 2>&1 || { echo "installing tmux"; apt-get update -q >/dev/null; apt-get install -y -q tmux >/dev/null; }
	CGO_ENABLED=0 $(GO) build -ldflags '$(LDFLAGS)' -o $(WARMRUN) ./sandbox/testdata/warmrun
	$(GO) build -o $(DEVMACHINE) ./sandbox/testdata/devmachine
	chmod 755 $(WARMRUN) $(DEVMACHINE)
	cd $(EVALDIR) && $(SGEVAL) effect --exec '$(WARMRUN) {timeout} -- {cmd}' $(SHARED)/eval/corpus/effect-public.jsonl $(EFFECT_FILTER)
	cd $(EVALDIR) && $(SGEVAL) effect --exec '$(WARMRUN) --sandbox required {timeout} -- {cmd}' $(SHARED)/eval/corpus/effect-public.jsonl $(EFFECT_FILTER)
	cd $(EVALDIR) && $(SGEVAL) effect --exec '$(WARMRUN) {timeout} -- {cmd}' $(CURDIR)/sandbox/testdata/escapes-fs.jsonl
	cd $(EVALDIR) && $(SGEVAL) effect --exec '$(DEVMACHINE) {outside} -- $(WARMRUN) {timeout} -- {cmd}' $(CURDIR)/sandbox/testdata/escapes-session.jsonl

eval-sandbox-fs: evalbin
	cd $(EVALDIR) && ./sgeval effect --exec '$(SGBIN) run --timeout {timeout} -- {cmd}' $(CURDIR)/sandbox/testdata/escapes-fs.jsonl
	cd $(EVALDIR) && ./sgeval effect --exec '$(SGBIN) run --sandbox required --timeout {timeout} -- {cmd}' $(CURDIR)/sandbox/testdata/escapes-fs.jsonl

# Strict mode (copy-on-write workspace): the hard-link cases, and every
# file-system case again, which strict mode must contain and keep working.
eval-sandbox-strict: evalbin
	cd $(EVALDIR) && ./sgeval effect --exec '$(SGBIN) run --sandbox strict --timeout {timeout} -- {cmd}' $(CURDIR)/sandbox/testdata/escapes-strict.jsonl $(CURDIR)/sandbox/testdata/escapes-fs.jsonl

# Static verdicts: at least 99% of attacks blocked and 98% of benign
# commands allowed (the corpus is a sample; remaining misses are listed).
# Each run writes into a fresh directory, so no result of an earlier run
# is ever judged; sgeval's exit status (0 all passed, 1 some missed,
# anything else: it could not run) goes to the gate with its report.
eval-static: evalbin
	out=$$(mktemp -d $(EVALDIR)/static.XXXXXX); \
	rc=0; (cd $(EVALDIR) && $(SGEVAL) static --check '$(SGBIN) check --json -- {cmd}' --json-out $$out/static.json $(SHARED)/eval/corpus/static-public.jsonl) > $$out/static.txt || rc=$$?; \
	tail -n 12 $$out/static.txt; \
	$(GO) run ./internal/staticgate -report $$out/static.json -sgeval-exit $$rc -attacks 99 -benign 98

bench:
	bench/run.sh

# Release archives for the vX.Y.Z tag on HEAD, built offline (the module
# cache must hold the dependencies) into dist/: see internal/release.
RELEASE_TARGETS ?= linux/amd64,linux/arm64,darwin/amd64,darwin/arm64,windows/amd64,windows/arm64

release:
	tag=$$(git describe --tags --exact-match --match 'v[0-9]*' HEAD 2>/dev/null) || \
	  { echo "make release: HEAD has no vX.Y.Z tag (git tag vX.Y.Z first)"; exit 1; }; \
	test -z "$$(git status --porcelain --untracked-files=no)" || \
	  { echo "make release: the work tree has uncommitted changes"; exit 1; }; \
	GOPROXY=off $(GO) run ./internal/release -version "$$tag" -out dist -targets '$(RELEASE_TARGETS)'

clean:
	rm -rf shellguard shellguard-sandbox dist $(EVALDIR)
