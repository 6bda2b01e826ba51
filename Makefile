# bf: build, test and try the brain tools. See README.md.
SHELL := /bin/bash
GO ?= go
BIN := $(CURDIR)/bin
# Every command module; each builds one binary named after its folder.
COMMANDS := $(sort $(patsubst %/go.mod,%,$(wildcard bf/go.mod bf-*/go.mod)))
MODULES := libbf $(COMMANDS) e2e bench
PKGS := $(addsuffix /...,$(addprefix ./,$(MODULES)))

.PHONY: all build test unit e2e fuzz-seeds demo lint install clean

all: build

build:
	@mkdir -p $(BIN)
	$(GO) build -trimpath -o $(BIN)/ $(addprefix ./,$(COMMANDS))

# Unit tests (fuzz targets run their seed corpora), then end-to-end scripts over the binaries.
# The queue is shared by concurrent processes and goroutines, and bf watch runs its streams
# beside its cycles: their packages' tests also run under the race detector.
test: lint build
	$(GO) test -count=1 -timeout 30m $(PKGS)
	$(GO) test -race -count=1 ./libbf/queue/... ./libbf/assist/... ./libbf/watch/... ./libbf/channel/...

lint:
	@out=$$(gofmt -l $(MODULES)); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)

demo: build
	@./examples/demo.sh

install:
	$(GO) install -trimpath $(addprefix ./,$(COMMANDS))

clean:
	rm -rf $(BIN)

# Benchmarks (bench/README.md): they report figures and never fail on them. Generated brains
# are kept in bench/cache (or $BF_BENCH_CACHE); results go to bench/results.
.PHONY: bench bench-large bench-ir

bench: build
	$(GO) run ./bench/cmd/benchrun -size small -bin $(BIN)

bench-large: build
	$(GO) run ./bench/cmd/benchrun -size large -bin $(BIN)

bench-ir: build
	$(GO) run ./bench/ir -bin $(BIN)
