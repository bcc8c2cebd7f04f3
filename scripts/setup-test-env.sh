#!/usr/bin/env bash
# Prepares the machine for the test suite. Idempotent. When run as root it
# creates the unprivileged test users the job-execution tests submit as.
set -euo pipefail
if [ "$(id -u)" = 0 ]; then
  for u in basalt1 basalt2 basalt3; do
    if ! id "$u" >/dev/null 2>&1; then
      useradd --create-home --shell /bin/sh "$u" 2>/dev/null || useradd -m "$u"
    fi
  done
  getent group basaltg >/dev/null || groupadd basaltg
  for u in basalt1 basalt2; do usermod -a -G basaltg "$u"; done
fi
