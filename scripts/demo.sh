#!/usr/bin/env bash
# The README's first command (make demo): start a local multi-host cluster
# from the embedded default configuration, put real jobs through it and show
# what LSF's commands print, then stop it.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
dir=$(mktemp -d "${TMPDIR:-/tmp}/basalt-demo.XXXXXX")
work=$(mktemp -d "${TMPDIR:-/tmp}/basalt-demo-jobs.XXXXXX")
chmod 755 "$work"
trap '"$root/bin/basalt" cluster down --dir "$dir" >/dev/null 2>&1 || true; rm -rf "$dir" "$work"' EXIT

say() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }
run() { say "$*"; "$@"; }

say "eval \"\$(basalt cluster up --hosts 4 --slots 4)\""
eval "$(bin/basalt cluster up --dir "$dir" --hosts 4 --slots 4 --cluster demo)"
cd "$work"

run lsid
run lshosts
run bhosts
run bqueues

run bsub -o hello.%J.out echo "hello from Basalt on \$(hostname) as \$USER"
run bsub -q short -n 4 -R "span[ptile=2]" -o par.%J.out 'echo "LSB_HOSTS=$LSB_HOSTS"; echo "LSB_MCPU_HOSTS=$LSB_MCPU_HOSTS"; sleep 2'
run bsub -J "sweep[1-8]%4" -o sweep.%J.%I.out 'echo element $LSB_JOBINDEX of $LSB_JOBID; sleep 1'
first=$(bsub -o step1.out 'sleep 1; echo step one' | sed 's/Job <\([0-9]*\)>.*/\1/')
say "bsub -w \"done($first)\" -o step2.out 'echo step two ran after job $first'"
bsub -w "done($first)" -o step2.out "echo step two ran after job $first"
run bsub -o failing.out 'echo about to fail; exit 3'

run bjobs -a -w
say "waiting for the jobs to finish ..."
for _ in $(seq 120); do
  if [ -z "$(bjobs -noheader -o stat 2>/dev/null | grep -v -e DONE -e EXIT || true)" ]; then break; fi
  sleep 0.5
done
run bjobs -a -o "jobid stat exec_host job_name exit_code"
run bhosts
say "head -3 hello.*.out; cat par.*.out | head -2; cat step2.out | head -1"
head -3 hello.*.out; head -2 par.*.out; head -1 step2.out
run bhist -l "$first"
run bacct
say "basalt cluster down"
