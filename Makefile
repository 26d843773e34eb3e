# peppolgate — make targets. `make test` is the one command CI and a new user run.
GO ?= go
GOFLAGS_TEST ?= -race -count=1

.PHONY: test fmt-check vet staticcheck gotest mcp-e2e openapi-lint bench fuzz load

## test: format check, go vet, staticcheck and the whole test suite with the race detector
test: fmt-check vet staticcheck gotest mcp-e2e openapi-lint

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

staticcheck:
	$(GO) tool staticcheck ./...

gotest:
	$(GO) test $(GOFLAGS_TEST) ./...

## mcp-e2e: the built binary on the demo network against the official MCP TypeScript SDK
## client (HTTP and stdio) and the MCP conformance suite; needs npm (first run installs
## pinned Node 22 and the suite into .tools/mcp-e2e)
mcp-e2e:
	e2e/mcp/run.sh

## openapi-lint: the OpenAPI document the built binary serves on the demo network,
## linted by the pinned Redocly CLI (zero errors; first run installs pinned Node 22 and
## @redocly/cli into .tools/openapi-lint). The server tests check every response
## against the same document (server/openapi_test.go).
openapi-lint:
	e2e/openapi/lint.sh

## bench: the benchmarks recorded in BENCHMARKS.md
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

## load: the mixed load test of BENCHMARKS.md (not part of `make test`; needs only Go):
## LOAD_RATE req/s (cached and cold lookups, searches, /ask as JSON and streamed) for
## LOAD_DURATION against the built binary on the demo network, then against the same
## stack with SMP host 0 failing and the Directory answering 429 for a third of the run;
## prints Markdown tables; fails on any 5xx the faults do not explain. More flags in
## LOAD_FLAGS (bin/load-mix -h), e.g. LOAD_FLAGS='-runs binary -quiet-wait 5m'.
LOAD_RATE ?= 3000
LOAD_DURATION ?= 60s
LOAD_FLAGS ?=
load:
	$(GO) build -o bin/peppolgate ./cmd/peppolgate
	$(GO) build -o bin/load-mix ./scripts/load-mix
	bin/load-mix -bin bin/peppolgate -rate $(LOAD_RATE) -duration $(LOAD_DURATION) $(LOAD_FLAGS)

## fuzz: run every fuzz target for FUZZTIME (default 20s) each
FUZZTIME ?= 20s
fuzz:
	@for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "== $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done
