// Package sched is mbatchd's scheduler: a pure function from what mbatchd
// sees (hosts with their load, queues, started and pending jobs) to a plan
// (which jobs start where, which running jobs are preempted or resumed, and
// why the others wait), plus the little state LSF's policies carry from one
// pass to the next. README.md draws the pipeline.
//
// # A pass
//
//	Schedule(in) = hosts, queues, started jobs counted (every view the
//	policies need), reservations held, pending jobs resolved to compiled
//	requirements (prescan), then queue groups in priority order; before
//	each group the preempted jobs of queues at least as urgent resume if
//	their slots are free; each job: gates, then hosts from its class.
//
// Dispatch order: queues by PRIORITY (lsb.queues order for equal ones);
// first come, first served queues of one priority form one list (user
// priority, then submission/btop order); a fairshare queue (FAIRSHARE, or a
// host partition holding all its hosts) offers its jobs by dynamic user
// priority (package fairshare); a queue whose hosts span partitions is
// dispatched on each partition's hosts by its shares, then on the rest; pool queues (SLOT_POOL) are capped at their
// allocation (package pool) and leftovers go by job priority with
// USE_PRIORITY_IN_POOL. A job is bypassed only when no host can take it.
//
// Gates (job-level, plugins.go and gates.go): queue open/active and
// windows, hold, begin time, dependencies, array limit, requirement,
// -m lists, QJOB_LIMIT and UJOB_LIMIT, lsb.users MAX_JOBS (user, group@,
// group, default), lsb.resources limits without host consumers, pool
// allocation.
//
// Host filters: static ones first (status, queue HOSTS, -m, excluded hosts,
// host dispatch windows, host and queue loadSched thresholds, select on
// values the pass cannot change), then dynamic ones (slot limits in the
// job's view, exclusive, JOB_ACCEPT_INTERVAL, HJOB/PJOB_LIMIT, JL/U and
// JL/P, lsb.resources host limits, select and rusage on values the pass
// changes). The first filter that rejects a host gives its reason code.
//
// # Classes and caches
//
// Jobs with the same compiled requirement, queue, -m list, excluded hosts,
// exclusivity and view form a requirement class; its candidate hosts are
// computed once per pass (the static part is shared by queues without
// HOSTS or thresholds) and only shrink as hosts fill up: a job costs O(1)
// amortised, and a job that cannot start costs O(1) once its class has
// nothing left (memos shared per class, user and slot count; reasons
// shared as one slice). When no host has a free slot no class is walked at
// all, and the jobs of queues that neither preempt, backfill nor reserve
// are passed by, their reasons carried from the last pass that looked at
// every job (at most fullPassEvery old; jobs new since are looked at). A
// preemption, which frees slots, makes classes look again. The
// property tests run every pass twice, with the caches and with each job
// building its candidates afresh, and require the same decisions.
//
// # Memory between passes
//
// Fairshare usage history (fed by UsageFeed, rebuilt from the finished
// jobs of the state on the first pass), pool slot usage, processor
// reservations (SLOT_RESERVE), and preemptions/resumptions in flight (a
// job signalled in one pass and not yet reported suspended or resumed is
// counted as such, for at most two dispatch intervals). Lost on restart:
// processor reservations and which running jobs were backfilled (except
// interruptible backfill jobs, whose run limit the state keeps).
//
// # Interruptible backfill
//
// A queue with INTERRUPTIBLE_BACKFILL = seconds (interruptible.go) ignores
// its jobs' own run limits for backfill: when no free slot takes a job, it
// may use slots reserved by a job predicted to start at least that slice
// from now, and its Dispatch carries a RunLimit ending by the earliest such
// predicted start (at most the queue's RUNLIMIT). mbatchd records it in
// JOB_START (state.Job.BackfillLimit) and applies it at launch; the
// prediction of later passes counts it, so it never moves.
//
// # Pending reasons
//
// Plan.Reasons (reasons.go) holds, for every pending job, LSF's reason
// codes with host counts (bjobs -p) and up to MaxReasonHosts host names per
// reason (bjobs -lp); jobs with identical reasons share one slice, so a
// million pending jobs of a thousand classes cost a few thousand slices,
// and each job is one small integer in pages indexed by job ID (array
// elements in a map), not a map entry: nothing per job for the garbage
// collector to scan, nothing to rehash. A plan's Reasons is read-only once
// Schedule returns. Codes are
// lsbatch.h's, including the load index (2001+i), reservation (2601+i) and
// resource allocation limit (3201..4705) ranges.
package sched
