// github.com/hashicorp/go-metrics@v0.7.0's root package, trimmed by scripts/third-party.sh.
module github.com/hashicorp/go-metrics

go 1.25.0

require github.com/hashicorp/go-immutable-radix v1.3.1
