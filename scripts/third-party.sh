#!/usr/bin/env bash
# Regenerates third_party/: trimmed copies of two dependencies of
# hashicorp/raft that go.mod replaces (third_party/README.md says why).
# Run it after changing a version below; it needs the module proxy or cache.
set -euo pipefail
cd "$(dirname "$0")/.."

MSGPACK=github.com/hashicorp/go-msgpack/v2@v2.1.5
METRICS=github.com/hashicorp/go-metrics@v0.7.0

moddir() { go mod download -json "$1" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p'; }

# copy SRC DST: the non-test Go files of SRC, without the code generator.
copy() {
	mkdir -p "$2"
	for f in "$1"/*.go; do
		case "$(basename "$f")" in
		*_test.go | gen-internal.go | gen.go | gen.generated.go | codecgen.go) continue ;;
		esac
		cp "$f" "$2/"
	done
	chmod -R u+w "$2"
}

rm -rf third_party/go-msgpack third_party/go-metrics

src=$(moddir "$MSGPACK")
copy "$src/codec" third_party/go-msgpack/codec
cp "$src/LICENSE" third_party/go-msgpack/
chmod u+w third_party/go-msgpack/LICENSE
cat >third_party/go-msgpack/go.mod <<MOD
// ${MSGPACK}'s codec package, trimmed by scripts/third-party.sh.
module github.com/hashicorp/go-msgpack/v2

go 1.24.0
MOD

src=$(moddir "$METRICS")
copy "$src" third_party/go-metrics
cp "$src/LICENSE" third_party/go-metrics/
chmod u+w third_party/go-metrics/LICENSE
cat >third_party/go-metrics/go.mod <<MOD
// ${METRICS}'s root package, trimmed by scripts/third-party.sh.
module github.com/hashicorp/go-metrics

go 1.25.0

require github.com/hashicorp/go-immutable-radix v1.3.1
MOD

(cd third_party && patch -s -p1 <go-msgpack.patch && patch -s -p1 <go-metrics.patch)
gofmt -l third_party && echo "third_party regenerated"
