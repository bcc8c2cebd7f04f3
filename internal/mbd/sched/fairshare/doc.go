// Package fairshare is LSF's fairshare arithmetic, kept apart from the
// scheduler so it can be tested alone: share trees (queue USER_SHARES, host
// partitions, lsb.users group trees), the dynamic priority of each account,
// the decayed usage history of finished jobs, and the order in which a
// fairshare queue offers its users' jobs.
//
// Dynamic priority (lsf-reference §3.1, LSF 9/10 form without the optional
// terms):
//
//	priority = shares / (cpu_time × CPU_TIME_FACTOR
//	                     + (historical_run_time + run_time) × RUN_TIME_FACTOR
//	                     + (1 + job_slots) × RUN_JOB_FACTOR)
//
// with times in hours and the denominator at least 0.01. cpu_time is the
// CPU time of running jobs plus the decayed CPU time of finished ones;
// historical_run_time is the decayed run time of finished jobs; run_time is
// the wall-clock time of running jobs; job_slots the slots of started
// jobs. History decays continuously to a tenth after HIST_HOURS hours (0:
// no decay), LSF's rate 10^(-1/(4×HIST_HOURS)) per 15 minutes.
//
// A group's usage is the sum of its members'. Dispatch walks the tree from
// the top, taking at each level the child with the highest priority that
// still has jobs to offer (config order breaks ties), down to a user or to a
// group without a share tree, whose members' jobs come first come, first
// served (Tree.Next).
package fairshare
