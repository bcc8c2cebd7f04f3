#!/bin/bash
# usage: scripts/throughput.sh [N]: N /bin/true jobs (default 500) through a 4-host, 8-slot local
# cluster; prints the elapsed time, the CPU of the whole system per job, each daemon kind's CPU,
# the jobs' own CPU (their cgroups), and the floor: what fork, exec and wait of /bin/true, and the
# job's cgroups, cost any batch system on this machine (testdata/floor/jobcost).
# Build first: make build.
N=${1:-500}
B=${BIN:-$(dirname "$0")/../bin/basalt}
D=${TMPDIR:-/tmp}/basalt-throughput
$B cluster down --dir $D >/dev/null 2>&1
rm -rf $D
eval "$($B cluster up --dir $D --hosts 4 --slots 8 --cluster tp)"
for i in $(seq $N); do echo "-o /dev/null /bin/true"; done > $D.pack
cg=/sys/fs/cgroup/cpuacct/basalt/tp # v1 cpuacct charges a removed job group's time to its parents
[ -r $cg/cpuacct.usage ] || cg=
jobs0=$([ -n "$cg" ] && cat $cg/cpuacct.usage || echo 0)
cpu0=$(awk '/^cpu /{print $2+$3+$4+$6+$7+$8}' /proc/stat)
# This cluster's daemons ("pid name"): those of cluster.pids, and the children of its sbatchds
# (mbatchd, the job shepherds); other clusters on the machine are not counted.
daemons() {
  while read -r pid name _; do
    echo "$pid $name"
    if [ "$name" = sbatchd ]; then
      for c in $(pgrep -P "$pid"); do
        case "$(tr '\0' ' ' < /proc/$c/cmdline 2>/dev/null)" in
          mbatchd*) echo "$c mbatchd" ;;
          *job-shepherd*) echo "$c shepherd" ;;
        esac
      done
    fi
  done < $D/cluster.pids
}
declare -A c0
while read -r p _; do c0[$p]=$(awk '{print $14+$15}' /proc/$p/stat); done < <(daemons)
t0=$(date +%s.%N)
bsub -pack $D.pack >/dev/null
# Poll the queues' job counts (NJOBS): listing every unfinished job with bjobs would itself
# cost the cluster's CPU (about 0.1 s per poll with 10,000 jobs).
while [ "$(bqueues 2>/dev/null | awk 'NR > 1 { n += $8 } END { print (NR > 1 ? n : 1) }')" -gt 0 ]; do sleep 0.5; done
t1=$(date +%s.%N)
cpu1=$(awk '/^cpu /{print $2+$3+$4+$6+$7+$8}' /proc/stat)
echo "elapsed $(echo "$t1 - $t0" | bc) s; system cpu $(( (cpu1-cpu0)*10 )) ms total = $(( (cpu1-cpu0)*10 / N )) ms/job"
daemons | while read -r p n; do
  c=$(awk '{print $14+$15}' /proc/$p/stat)
  echo "$n $(( (c - ${c0[$p]:-0})*10 ))"
done | awk '{a[$1]+=$2} END {for (k in a) printf "%s %d ms = %.2f ms/job\n", k, a[k], a[k]/'"$N"'}'
if [ -n "$cg" ]; then
  jobs1=$(cat $cg/cpuacct.usage)
  echo "jobs (their cgroups) $(( (jobs1-jobs0)/1000000 )) ms = $(echo "scale=2; ($jobs1-$jobs0)/1000000/$N" | bc) ms/job"
fi
bjobs -a -u all -o 'stat' -noheader | sort | uniq -c
$B cluster down --dir $D >/dev/null
echo "floor (what a trivial job costs any batch system here):"
(cd "$(dirname "$0")/.." && go run ./internal/cluster/testdata/floor/jobcost -n "$(( N < 2000 ? N : 2000 ))")
