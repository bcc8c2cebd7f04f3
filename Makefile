# Basalt build. `make build` produces bin/basalt (the commands) with a link
# per LSF command, and bin/basaltd (the daemons) with a link per daemon.
GO      ?= go
BIN     := bin
.PHONY: build cross install demo test test-short fuzz vet clean

# Static binaries (no cgo: os/user and net use their pure Go code) start
# faster: every command is a new process, and dynamic loading costs each one.
build:
	CGO_ENABLED=0 $(GO) build -o $(BIN)/basalt ./cmd/basalt
	CGO_ENABLED=0 $(GO) build -o $(BIN)/basaltd ./cmd/basaltd
	$(BIN)/basalt links $(BIN)
	$(BIN)/basaltd links $(BIN)

# The commands build for the platforms users submit from; the daemons are
# Linux's (cgroups, /proc, the job gate).
CROSS := linux/amd64 linux/arm64 linux/ppc64le darwin/amd64 darwin/arm64
cross:
	@for p in $(CROSS); do \
	  echo "GOOS=$${p%/*} GOARCH=$${p#*/} go build ./cmd/basalt"; \
	  CGO_ENABLED=0 GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) build -o /dev/null ./cmd/basalt || exit 1; \
	done

# install is build: bin/ holds the two binaries and the LSF command names.
install: build

# The first README command: build, start a local multi-host cluster on the
# embedded default configuration and put real jobs through it.
demo: build
	./scripts/demo.sh

# The second README command: everything CI runs.
test:
	./scripts/test.sh

vet:
	$(GO) vet ./...

clean:
	rm -rf $(BIN)
