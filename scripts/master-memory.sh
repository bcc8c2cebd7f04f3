#!/bin/bash
# usage: scripts/master-memory.sh [N]: mbatchd's resident memory per pending job, measured as
# the increase over an empty master: a 2-host, 1-slot local cluster, N jobs submitted by bsub
# processes (4 at a time, each its own command, the caller's environment), two running and the
# rest pending; RSS read after the scheduler has published their pending reasons.
# Build first: make build.
N=${1:-10000}
B=${BIN:-$(dirname "$0")/../bin/basalt}
D=${TMPDIR:-/tmp}/basalt-memory
$B cluster down --dir $D >/dev/null 2>&1
rm -rf $D
eval "$($B cluster up --dir $D --hosts 2 --slots 1 --cluster mem)"
mbd=$(for p in $(pgrep -f "^mbatchd"); do grep -qz "^LSF_ENVDIR=$D/" /proc/$p/environ 2>/dev/null && echo $p; done | head -1)
rss() { awk '/^VmRSS/{print $2}' /proc/$mbd/status; }
sleep 2
r0=$(rss)
seq $N | xargs -P 4 -n 1 sh -c 'bsub -o /dev/null "sleep 1000 # $0" >/dev/null'
sleep 5
r1=$(rss)
echo "mbatchd RSS: empty ${r0} kB; with $N jobs ($(bjobs -u all -p -noheader 2>/dev/null | grep -c PEND) pending) ${r1} kB: $(( (r1-r0)*1024/N )) B per job"
$B cluster down --dir $D >/dev/null
