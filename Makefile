# bf: build, test and try the brain tools. See README.md.
SHELL := /bin/bash
GO ?= go
BIN := $(CURDIR)/bin
# Every command module; each builds one binary named after its folder.
COMMANDS := $(sort $(patsubst %/go.mod,%,$(wildcard bf/go.mod bf-*/go.mod)))
# The example sensors and channel adapter (examples/), built beside bf.
EXAMPLES := ./examples/sensors/git-history ./examples/sensors/local-documents ./examples/channels/inbox
MODULES := libbf $(COMMANDS) e2e bench examples
PKGS := $(addsuffix /...,$(addprefix ./,$(MODULES)))

# staticcheck, pinned here and only here: make lint runs it through go run, which fetches
# this version from the module proxy into the module cache when it is not there yet.
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2

# The release version, stamped once into every binary (bf --version, bf-NAME --version and
# MCP's serverInfo) by make install and make dist, which also strip the symbol table and
# DWARF (-s -w): a release tarball is half the size, and a Go profile or panic still names
# functions (docs/decisions.md, "Startup cost"). make build keeps them for debuggers.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X github.com/bfgo/bf/libbf/release.stamp=$(VERSION)

# make install puts binaries in $(PREFIX)/bin; without PREFIX, in $GOBIN, else ~/.local/bin.
# PIECES names the binaries to install (default: all of them).
GOBIN_DIR := $(shell $(GO) env GOBIN)
INSTALL_BIN := $(if $(PREFIX),$(PREFIX)/bin,$(or $(GOBIN_DIR),$(HOME)/.local/bin))
PIECES ?= $(COMMANDS)

# make dist cross-compiles static binaries for these platforms into dist/.
PLATFORMS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64
DIST := $(CURDIR)/dist

.PHONY: all build test unit e2e fuzz-seeds demo lint install dist clean

all: build

# Binaries are static (CGO_ENABLED=0), as make dist's are: nothing in bf needs cgo, and a
# process that loads no shared C library starts faster (docs/decisions.md, "Startup cost").
build:
	@echo "== build: bin/"
	@mkdir -p $(BIN)
	CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN)/ $(addprefix ./,$(COMMANDS)) $(EXAMPLES)

# Unit tests (fuzz targets run their seed corpora), then end-to-end scripts over the binaries.
# The queue is shared by concurrent processes and goroutines, bf watch runs its streams
# beside its cycles, and bf lsp checks notes beside its requests: their packages' tests
# also run under the race detector. The end-to-end
# tests build every command several ways (in the workspace, on its own from a module proxy
# folder, with a release stamp): they get more than go test's default 10 minutes on a busy
# machine. make test runs every test at its full size; TESTFLAGS is added to that go test,
# so make test TESTFLAGS=-short runs the small sizes that go test -short runs (for
# example TestExcerptMatchesIndexSnippet over one random brain instead of two).
TESTFLAGS ?=
test: lint build
	@echo "== unit and e2e tests (one line per package as it finishes)"
	$(GO) test -count=1 -timeout 45m $(TESTFLAGS) $(PKGS)
	@echo "== race: queue, assist, watch, channel, lsp (builds with the race detector first)"
	$(GO) test -race -count=1 ./libbf/queue/... ./libbf/assist/... ./libbf/watch/... ./libbf/channel/... ./libbf/lsp/...
	@echo "== make test: all passed"

# The surface check: an exported name of libbf that no other package uses belongs
# unexported, so that go doc of a package reads as its API (bench/cmd/surface says what
# counts as a use).
lint:
	@echo "== lint: gofmt"
	@out=$$(gofmt -l $(MODULES)); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	@echo "== lint: go vet (type-checks every module; the first run compiles them)"
	$(GO) vet $(PKGS)
	@echo "== lint: staticcheck (the first run fetches and compiles $(STATICCHECK))"
	$(GO) run $(STATICCHECK) $(PKGS)
	@echo "== lint: libbf's exported surface (names used outside their package, at least 80 %)"
	$(GO) run ./bench/cmd/surface -min 80

demo: build
	@./examples/demo.sh

install:
	@$(foreach p,$(PIECES),$(if $(filter $(p),$(COMMANDS)),,$(error PIECES: unknown piece $(p); choose among $(COMMANDS))))
	@mkdir -p $(INSTALL_BIN)
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(INSTALL_BIN)/ $(addprefix ./,$(PIECES))
	@echo "installed $(PIECES) in $(INSTALL_BIN) (version $(VERSION))"

# One tarball per platform, bf_VERSION_OS_ARCH.tar.gz holding every binary and the README,
# and SHA256SUMS over the tarballs.
dist:
	rm -rf $(DIST)
	@set -e; for p in $(PLATFORMS); do \
	  os=$${p%/*}; arch=$${p#*/}; name=bf_$(VERSION)_$${os}_$${arch}; \
	  echo "building $$name"; mkdir -p $(DIST)/$$name; \
	  CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags '$(LDFLAGS)' \
	    -o $(DIST)/$$name/ $(addprefix ./,$(COMMANDS)); \
	  cp README.md docs/install.md $(DIST)/$$name/; \
	  tar -C $(DIST) -czf $(DIST)/$$name.tar.gz $$name; rm -rf $(DIST)/$$name; \
	done
	cd $(DIST) && sha256sum *.tar.gz > SHA256SUMS
	@cat $(DIST)/SHA256SUMS

clean:
	rm -rf $(BIN) $(DIST)

# Benchmarks (bench/README.md): they report figures and never fail on them. Generated brains
# are kept in bench/cache (or $BF_BENCH_CACHE); results go to bench/results.
.PHONY: bench bench-memory bench-dense bench-large bench-ir bench-scale bench-damage bench-concurrency

# make bench: the small brain, the dense strategy, then the memory section (bench/memory:
# LoCoMo retrieval quality, when its data is there, and how recall, the prompt hook, the
# brief and a save grow from 500 to 5,000 memories).
bench: build
	$(GO) run ./bench/cmd/benchrun -size small -bin $(BIN)
	$(GO) run ./bench/cmd/benchdense
	$(GO) run ./bench/memory -bin $(BIN)

bench-memory: build
	$(GO) run ./bench/memory -bin $(BIN) -readme bench/README.md

# The dense strategy alone, in process, on generated vectors (10k and 100k chunks; the int8
# experiment at 1M by hand: go run ./bench/cmd/benchdense -sizes '' -int8 100k,1m).
bench-dense:
	$(GO) run ./bench/cmd/benchdense

bench-large: build
	$(GO) run ./bench/cmd/benchrun -size large -bin $(BIN)

# The damage sweep: every block of the example brain's cache and 204 blocks of a generated
# brain of 2,600 files, each zeroed, random and with one bit flipped, under bf search and
# bf read; it prints how many replies were silently wrong or failed for good (make test
# runs a sample of it).
bench-damage: build
	$(GO) run ./bench/cmd/damagesweep -bin $(BIN)

# bf build alone and amid 8 loops of bf read and bf search, and the longest reader command
# meanwhile, on a generated brain of 2,600 files.
bench-concurrency: build
	$(GO) run ./bench/cmd/buildamid -bin $(BIN)

bench-ir: build
	$(GO) run ./bench/ir -bin $(BIN)

# How cost grows: 10k and 100k records (1M by hand: go run ./bench/cmd/benchscale -sizes 10k,100k,1m).
bench-scale: build
	$(GO) run ./bench/cmd/benchscale -bin $(BIN) -readme bench/README.md
