# Basalt build. `make build` produces bin/basalt and a link per LSF command.
GO      ?= go
BIN     := bin
.PHONY: build install demo test test-short fuzz vet clean

# A static binary (no cgo: os/user and net use their pure Go code) starts
# faster: every command is a new process, and dynamic loading costs each one.
build:
	CGO_ENABLED=0 $(GO) build -o $(BIN)/basalt ./cmd/basalt
	$(BIN)/basalt links $(BIN)

# install is build: bin/ holds the binary and the LSF command names.
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
