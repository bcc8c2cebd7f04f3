#!/usr/bin/env bash
# Prepares the machine for the test suite. Idempotent. When run as root it
# creates the unprivileged test users the job-execution tests submit as.
set -euo pipefail
if [ "$(id -u)" = 0 ]; then
  # basalt1-3: job users; basalt4-7: the roles of the authorization matrix
  # (queue, group and cluster administrators; internal/cluster authz_test.go).
  for u in basalt1 basalt2 basalt3 basalt4 basalt5 basalt6 basalt7; do
    if ! id "$u" >/dev/null 2>&1; then
      useradd --create-home --shell /bin/sh "$u" 2>/dev/null || useradd -m "$u"
    fi
  done
  getent group basaltg >/dev/null || groupadd basaltg
  for u in basalt1 basalt2; do usermod -a -G basaltg "$u"; done
  # iproute2: namespace clusters (basalt cluster up --netns, the
  # netns_cluster script test) put each host in a network namespace.
  if ! command -v ip >/dev/null && command -v apt-get >/dev/null; then
    apt-get install -y -qq iproute2 >/dev/null 2>&1 || echo "setup: iproute2 not installed; namespace cluster tests will be skipped" >&2
  fi
  # GNU as and objcopy: the job gate's machine code is checked against its
  # assembly source (internal/sbd/jobgate).
  if ! command -v as >/dev/null || ! command -v objcopy >/dev/null; then
    if command -v apt-get >/dev/null; then
      apt-get install -y -qq binutils >/dev/null 2>&1 || echo "setup: binutils not installed; the job gate source check will be skipped" >&2
    fi
  fi
  # promtool and prometheus: the daemons' /metrics are checked with
  # `promtool check metrics` and scraped by a real Prometheus
  # (internal/metrics).
  if ! command -v promtool >/dev/null || ! command -v prometheus >/dev/null; then
    if command -v apt-get >/dev/null; then
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq prometheus >/dev/null 2>&1 || echo "setup: prometheus not installed; the metrics checks with promtool and Prometheus will be skipped" >&2
    fi
  fi
  # chromium: the dashboard is tested in a real headless browser
  # (internal/cluster TestDashboardBrowser).
  if ! command -v chromium >/dev/null; then
    if command -v apt-get >/dev/null; then
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null 2>&1 || echo "setup: chromium not installed; the dashboard's browser test will be skipped" >&2
    fi
  fi
fi
