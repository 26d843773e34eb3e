# peppolgate — make targets. `make test` is the one command CI and a new user run.
GO ?= go
GOFLAGS_TEST ?= -race -count=1

.PHONY: test fmt-check vet staticcheck gotest redis-server systemd-analyze fuzz-short mcp-e2e openapi-lint web-e2e image image-check image-tools bench fuzz load bench-mirror bench-bulk bench-fleet

## test: format check, go vet, staticcheck, the whole test suite with the race detector,
## a short run of every fuzz target, and the built binary's MCP and OpenAPI checks and
## its web pages in a real browser, and the OCI image checked by skopeo and umoci
test: fmt-check vet staticcheck gotest fuzz-short mcp-e2e openapi-lint web-e2e image-check

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

staticcheck:
	$(GO) tool staticcheck ./...

# The tests that run a real Redis (fleet/redistest) or systemd-analyze (deploy/systemd)
# fail rather than skip under make test.
gotest: redis-server systemd-analyze
	PEPPOLGATE_REQUIRE_REDIS=1 PEPPOLGATE_REQUIRE_SYSTEMD=1 $(GO) test $(GOFLAGS_TEST) ./...

## redis-server: Debian's redis-server for the tests that run a real Redis (installed
## with apt-get when missing, as root or through sudo; each test starts its own on a free
## loopback port)
redis-server:
	scripts/ensure-debian.sh redis-server=redis-server

## systemd-analyze: Debian's systemd package, for `systemd-analyze verify` of the unit in
## deploy/systemd/ (installed with apt-get when missing, as root or through sudo; nothing
## is started)
systemd-analyze:
	scripts/ensure-debian.sh systemd-analyze=systemd

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

## web-e2e: the web pages of issue 19 in Debian's Chromium (headless, driven by the
## pinned playwright-core; no browser is downloaded) against the built binary on the demo
## network, through the flows of issue 19: axe-core finds no violations, JavaScript on and
## off, desktop and phone sizes, at most 60 KB a page; full-page screenshots in
## .artifacts/web/. Needs npm and
## apt-get (first run installs chromium with apt-get, as root or through sudo, and pinned
## Node 22, playwright-core and axe-core into .tools/web-e2e)
web-e2e:
	e2e/web/run.sh

## image: the OCI image of the committed HEAD without Docker (docs/DEPLOY.md, "Container
## image"): FROM scratch, offline, for IMAGE_PLATFORMS; an OCI layout in
## IMAGE_OUT/oci and a `docker load`-able tarball per platform in IMAGE_OUT. Two builds
## of one commit give the same digests.
IMAGE ?= ghcr.io/peppolgate/peppolgate
IMAGE_OUT ?= .artifacts/image
IMAGE_PLATFORMS ?= linux/amd64,linux/arm64
image:
	$(GO) run ./scripts/build-image -repo $(IMAGE) -out $(IMAGE_OUT) -platforms $(IMAGE_PLATFORMS)

## image-check: builds the image twice for this machine's platform (same digests),
## inspects it with Debian's skopeo, unpacks it with umoci --rootless and runs the
## unpacked binary on the demo network until it serves /healthz, with no container
## runtime (scripts/build-image/image_test.go; part of make test)
image-check: image-tools
	PEPPOLGATE_IMAGE_CHECK=1 $(GO) test -count=1 -run '^TestImage$$' ./scripts/build-image

## image-tools: Debian's skopeo and umoci (installed with apt-get when missing, as root or
## through sudo)
image-tools:
	scripts/ensure-debian.sh skopeo=skopeo umoci=umoci /etc/ssl/certs/ca-certificates.crt=ca-certificates

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

## bench-mirror: the Directory mirror at BENCH_CARDS generated business cards (default
## 4,000,000; not part of `make test`; needs only Go, and PostgreSQL 15 from apt, installed
## when missing): import rate, index size, peak RSS importing and serving, latency of a
## fixed mix of BENCH_QUERIES searches over HTTP, next to PostgreSQL 15 with pg_trgm loaded
## with the same cards (BENCH_PG=0 skips it). Markdown table on stdout and in
## BENCH_DIR/results.md; the export, indexes, PostgreSQL and logs stay in BENCH_DIR.
BENCH_CARDS ?= 4000000
BENCH_QUERIES ?= 1000
BENCH_DIR ?= .bench/mirror
BENCH_PG ?= 1
bench-mirror:
	@mkdir -p $(BENCH_DIR)
	$(GO) build -o $(BENCH_DIR)/bench-mirror ./scripts/bench-mirror
	$(BENCH_DIR)/bench-mirror -cards $(BENCH_CARDS) -queries $(BENCH_QUERIES) -dir $(BENCH_DIR) -pg=$(BENCH_PG)

## bench-bulk: the bulk check of issue 18 (BENCHMARKS.md; not part of `make test`; needs
## only Go): over netsim with 20 ms per DNS answer and 50 ms per SMP request on 4 SMP
## hosts, BULK_DISTINCT participants cold through bulk.Check, against the bound the
## registry's per-host caps allow, then BULK_SIZES rows each (comma-separated) on the
## cached answers, every size in a child process of its own for its peak RSS.
## BULK_CONCURRENCY is bulk.Config.Concurrency; BULK_SWEEP adds runs of BULK_DISTINCT rows
## at other concurrencies (e.g. 32,64,256). Markdown tables on stdout. More flags in
## BULK_FLAGS (bin/bench-bulk -h), e.g. BULK_FLAGS='-order hosts -quiet-wait 5m'.
BULK_SIZES ?= 10000,100000,1000000
BULK_DISTINCT ?= 10000
BULK_CONCURRENCY ?= 128
BULK_SWEEP ?=
BULK_FLAGS ?=
bench-bulk:
	$(GO) build -o bin/bench-bulk ./scripts/bench-bulk
	bin/bench-bulk -sizes '$(BULK_SIZES)' -distinct $(BULK_DISTINCT) -concurrency $(BULK_CONCURRENCY) -sweep '$(BULK_SWEEP)' $(BULK_FLAGS)

## bench-fleet: peppolgate as a fleet sharing one Redis (issue 27; BENCHMARKS.md; not part
## of `make test`; needs only Go and redis-server, installed when missing): over one
## simulated network (the demo's), replicas in one process each with their own stack,
## server and connection to a redis-server the benchmark starts on a free loopback port.
## Upstream requests per 1,000 client requests of a mix (FLEET_REQUESTS lookups,
## searches and services with a Zipf popularity) at 1 replica without Redis and at
## FLEET_REPLICAS with it; Redis commands and bytes per request of each kind; the
## latency of a cache hit in process and through Redis; cached lookups per second at
## the most replicas against 1 without Redis. Markdown tables on stdout. More flags in
## FLEET_FLAGS (bin/bench-fleet -h), e.g. FLEET_FLAGS='-duration 30s -zipf 1.2'.
FLEET_REQUESTS ?= 20000
FLEET_REPLICAS ?= 1,2,3
FLEET_FLAGS ?=
bench-fleet: redis-server
	$(GO) build -o bin/bench-fleet ./scripts/bench-fleet
	bin/bench-fleet -requests $(FLEET_REQUESTS) -replicas '$(FLEET_REPLICAS)' $(FLEET_FLAGS)

## fuzz: every fuzz target (each func Fuzz… of a _test.go file) for FUZZTIME (default
## 20s) each, FUZZ_JOBS targets at a time (default: one per CPU) with one fuzzing worker
## each; one line per target. A failure prints its run, and the input that failed is
## saved under the package's testdata/fuzz/<Target>/ (commit it with the fix). The
## committed seeds in testdata/fuzz/ also run in every plain `go test`.
FUZZTIME ?= 20s
FUZZ_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# dir@Target for every fuzz target, e.g. ./peppol/sml@FuzzNAPTRFor
FUZZ_TARGETS = $(shell for f in $$(grep -rl --include='*_test.go' --exclude-dir=e2e --exclude-dir=.tools --exclude-dir=.git '^func Fuzz' .); do \
	sed -n "s|^func \(Fuzz[A-Za-z0-9_]*\).*|$$(dirname $$f)@\1|p" $$f; done | sort)
fuzz:
	@start=$$(date +%s); \
	$(MAKE) --no-print-directory -j$(FUZZ_JOBS) $(addprefix fuzz-run/,$(FUZZ_TARGETS)) || exit 1; \
	echo "fuzz: $(words $(FUZZ_TARGETS)) targets, $(FUZZTIME) each, $$(( $$(date +%s) - start ))s in all"

# One target. Go 1.26's fuzz coordinator can fail a run whose -fuzztime ends while a
# worker is busy, with a bare "context deadline exceeded" and no failing input
# (golang/go#75804, fixed in Go 1.27): that is reported and not counted as a failure.
# A short run (FUZZ_SHORT) starts from an empty fuzz cache, so that it replays the
# committed seeds only, not whatever earlier long runs have collected, and fuzzes from
# there; targets in FUZZ_SHORT_SLOW get FUZZTIME_SHORT_SLOW because replaying their
# seeds alone takes seconds.
fuzz-run/%:
	@dir=$(firstword $(subst @, ,$*)); target=$(lastword $(subst @, ,$*)); \
	cache=$$(mktemp -d); trap 'rm -rf "$$cache"' EXIT; \
	out=$$($(GO) test -run '^$$' -fuzz "^$$target$$" -parallel 1 \
	  -fuzztime $(if $(and $(FUZZ_SHORT),$(filter $(lastword $(subst @, ,$*)),$(FUZZ_SHORT_SLOW))),$(FUZZTIME_SHORT_SLOW),$(FUZZTIME)) \
	  $$dir $(if $(FUZZ_SHORT),-args -test.fuzzcachedir="$$cache") 2>&1); rc=$$?; \
	execs=$$(echo "$$out" | grep -o 'execs: [0-9]*' | tail -1 | tr -dc 0-9); \
	if [ $$rc -eq 0 ]; then echo "ok   $$dir $$target: $${execs:-0} execs"; \
	elif ! echo "$$out" | grep -q 'Failing input written' && echo "$$out" | grep -qx '    context deadline exceeded'; then \
	  echo "ok   $$dir $$target: $${execs:-0} execs (ended by Go's fuzz deadline race, golang/go#75804)"; \
	else echo "$$out"; echo "FAIL $$dir $$target"; exit 1; fi

## fuzz-short: every fuzz target for FUZZTIME_SHORT (default 3s) each, from the committed
## seeds; part of make test
FUZZTIME_SHORT ?= 3s
FUZZ_SHORT_SLOW = FuzzRulePlanner
FUZZTIME_SHORT_SLOW ?= 10s
fuzz-short:
	@$(MAKE) --no-print-directory fuzz FUZZTIME=$(FUZZTIME_SHORT) FUZZ_SHORT=1
