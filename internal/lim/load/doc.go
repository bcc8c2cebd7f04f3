// Package load measures a Linux host's LSF load indices and static
// resources from /proc, utmp, /dev and statfs, with LSF's definitions, units
// and averaging.
//
// Built-in indices (LSF load index numbers 0..10):
//
//	r15s  run queue length, exponentially averaged over 15 s: the number of
//	      runnable processes (procs_running of /proc/stat, less the sampler
//	      itself) sampled every 5 s
//	r1m   1-minute run queue length (/proc/loadavg, the kernel's own
//	      exponential average)
//	r15m  15-minute run queue length (/proc/loadavg)
//	ut    CPU utilisation, 0..1, averaged over 1 minute (/proc/stat)
//	pg    paging rate, pages in + out per second, averaged over 1 minute
//	      (pswpin + pswpout of /proc/vmstat)
//	io    disk I/O rate in KB/s, averaged over 1 minute (sectors read and
//	      written on whole disks, /proc/diskstats)
//	ls    login sessions (USER_PROCESS records of utmp)
//	it    idle time in minutes: the least time since any login terminal was
//	      last read (tty access time); the uptime when nobody is logged in
//	tmp   free space of /tmp in MB (statfs)
//	swp   free swap in MB (/proc/meminfo SwapFree)
//	mem   available memory in MB (MemFree + Buffers + Cached, as LSF)
//
// Run queue lengths are kept raw; Effective and Normalized convert them to
// lsload -E and -N values. Static resources (ncpus, nprocs, ncores,
// nthreads, ndisks, maxmem, maxswp, maxtmp, model) come from /proc/cpuinfo,
// /proc/meminfo, /proc/diskstats and statfs.
//
// Every reader works under a root directory, so tests replay recorded
// samples (testdata/rec0, rec1). An override file (ParseOverride) replaces
// any index or static value: local test clusters use it to give hosts that
// share one machine different, controlled loads.
package load
