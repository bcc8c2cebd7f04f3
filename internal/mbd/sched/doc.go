// Package sched is mbatchd's scheduler: a pure function from what mbatchd
// sees (hosts with their load and slot usage, queues, pending jobs) to a
// plan (which jobs start where, and why the others wait).
//
//	Input ──► per queue, by PRIORITY ──► per pending job, in queue order
//	                                       │
//	                                  job gates ── queue state, begin time, dependencies,
//	                                       │       array limit, queue/user slot limits
//	                                       ▼
//	                                 host filters ── status, windows, queue HOSTS, -m,
//	                                       │        exclusions, MXJ, JL/U, HJOB/PJOB_LIMIT,
//	                                       │        exclusive, select[] (job + queue)
//	                                       ▼
//	                                   ordering ── host preference, order[]
//	                                       ▼
//	                                   placement ── -n slots, span[hosts=1|ptile]
//	                                       ▼
//	             Plan{Dispatches, Reasons}  (+ usage updated for later jobs of the pass)
//
// Gates and filters are small values registered in one list each
// (plugins.go), so policies are added without touching the loop. A job that
// finds no eligible host is bypassed and later jobs are tried (LSF: "a
// higher priority or earlier job is only bypassed if no hosts are available
// that meet its requirements"). Rejections are counted per reason, in LSF's
// pending reason codes, so bjobs -p is a read of the plan.
//
// The scheduler keeps caches between passes (compiled requirements per
// submission and queue); they never change what a pass decides.
package sched
