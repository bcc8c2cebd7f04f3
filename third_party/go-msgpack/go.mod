// github.com/hashicorp/go-msgpack/v2@v2.1.5's codec package, trimmed by scripts/third-party.sh.
module github.com/hashicorp/go-msgpack/v2

go 1.24.0
