# The one test command: `make test` installs what the tests need and runs
# every test, the cross-platform builds and the public evaluation corpus.

GO        ?= go
SHARED    ?= $(abspath ../shared)
EVALDIR   ?= /var/tmp/shellguard-eval
SGEVAL    := $(EVALDIR)/sgeval
SGBIN     := $(EVALDIR)/shellguard

.PHONY: build test vet unit cross evalbin eval-effect eval-static bench clean

build:
	CGO_ENABLED=0 $(GO) build -o shellguard ./cmd/shellguard

test: vet unit cross eval-static eval-effect

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...

unit:
	$(GO) test -race -count=1 -timeout 20m ./...

cross:
	GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 $(GO) build ./...
	GOOS=windows GOARCH=amd64 CGO_ENABLED=0 $(GO) build ./...
	GOOS=linux GOARCH=arm64 CGO_ENABLED=0 $(GO) build ./...

# The evaluation harness runs the binary as an unprivileged uid, so both
# live outside the checkout in a directory that uid can search.
$(EVALDIR):
	mkdir -p -m 755 $(EVALDIR)

evalbin: $(EVALDIR)
	$(GO) build -C $(SHARED)/eval/sgeval -o $(SGEVAL) .
	CGO_ENABLED=0 $(GO) build -o $(SGBIN) ./cmd/shellguard
	chmod 755 $(SGBIN) $(SGEVAL)

# The whole public corpus (the sandbox has landed); override to narrow it.
EFFECT_FILTER ?=

eval-effect: evalbin
	cd $(EVALDIR) && ./sgeval effect --exec '$(SGBIN) run --timeout {timeout} -- {cmd}' $(SHARED)/eval/corpus/effect-public.jsonl $(EFFECT_FILTER)
	cd $(EVALDIR) && ./sgeval effect --exec '$(SGBIN) run --sandbox required --timeout {timeout} -- {cmd}' $(SHARED)/eval/corpus/effect-public.jsonl $(EFFECT_FILTER)
	# Secrets must not leak even without the sandbox: redaction alone.
	cd $(EVALDIR) && ./sgeval effect --exec '$(SGBIN) run --sandbox off --timeout {timeout} -- {cmd}' $(SHARED)/eval/corpus/effect-public.jsonl --category 'env-secret|secret-read'

# Static verdicts: at least 99% of attacks blocked and 98% of benign
# commands allowed (the corpus is a sample; remaining misses are listed).
eval-static: evalbin
	cd $(EVALDIR) && ./sgeval static --check '$(SGBIN) check --json -- {cmd}' --json-out $(EVALDIR)/static.json $(SHARED)/eval/corpus/static-public.jsonl > $(EVALDIR)/static.txt; tail -n 12 $(EVALDIR)/static.txt
	python3 bench/static_gate.py $(EVALDIR)/static.json 99 98

bench:
	bench/run.sh

clean:
	rm -rf shellguard $(EVALDIR)
