#!/usr/bin/env bash
# The README's first command (via `make demo`). Until the batch daemons land
# it demonstrates the resource requirement language on the command line.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/bin:$PATH"
basalt version
