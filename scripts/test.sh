#!/usr/bin/env bash
# Runs the whole test suite: formatting and vet checks, then every package's
# tests (unit, table, script tests against real local clusters), with the race
# detector on the concurrent packages. Installs what the tests need first.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/setup-test-env.sh

echo "== gofmt"
bad=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go') || true)
if [ -n "$bad" ]; then echo "gofmt needed:"; echo "$bad"; exit 1; fi

echo "== go vet"
go vet ./...

echo "== the commands cross-build (linux/amd64, arm64, ppc64le; darwin)"
make -s cross
GOOS=darwin GOARCH=arm64 go vet ./cmd/basalt

echo "== go test"
# Bounded to the machine: 2 cores. Packages with daemons also run under -race
# (see scripts/race-packages).
go test -count=1 -timeout 25m ./...

if [ -f scripts/race-packages ]; then
  pkgs=$(grep -v '^#' scripts/race-packages | xargs)
  if [ -n "$pkgs" ]; then
    echo "== go test -race ($pkgs)"
    go test -count=1 -race -timeout 20m $pkgs
  fi
fi
echo "== all tests passed"
