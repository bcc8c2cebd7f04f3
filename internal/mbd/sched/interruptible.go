package sched

import (
	"time"

	"github.com/basalt-lsf/basalt/api"
)

// Interruptible backfill (lsb.queues INTERRUPTIBLE_BACKFILL = seconds, in a
// queue with BACKFILL = Y and RUNLIMIT). The queue's jobs start as regular
// jobs when slots are free (the queue's run limit applies as usual), or, in
// the backfill phase, whatever their own run limit: in slots reserved by a
// slot-reserving job whose predicted start is at least the minimal time
// slice away. Such a dispatch carries a run limit (Dispatch.RunLimit) that
// ends the job by the earliest predicted start of the reservations on its
// hosts, so it never delays them; mbatchd records it in JOB_START and
// sbatchd kills the job when it is reached (TERM_RUNLIMIT), requeued only
// if the queue says so.

// interruptibleBackfill tries to start jc, a job of an interruptible
// backfill queue that found no free slots, in reserved ones.
func (p *pass) interruptibleBackfill(jc *jobCtx) bool {
	jc.backfill, jc.backfillEnd, jc.ownRsv = true, p.in.Now.Add(jc.q.cfg.InterruptibleBackfill), true
	jc.noReasons = true // only a placement counts
	b := p.placeReq(jc, jc.req.c)
	jc.noReasons = false
	if b.hosts != nil {
		limit, used := p.interruptLimit(jc, b.hosts)
		jc.runLimit = limit
		p.commit(jc, b, used, nil)
		return true
	}
	jc.backfill, jc.ownRsv = false, p.s.mem.rsv[jc.j.Key] != nil
	return false
}

// interruptLimit is the run limit of an interruptible backfill job placed
// on hosts: up to the earliest predicted start of the reservations it may
// use there, at most the queue's RUNLIMIT, in whole seconds. used is false
// when the hosts hold no such reservation (the job did not need reserved
// slots: a regular dispatch, no limit of its own).
func (p *pass) interruptLimit(jc *jobCtx, hosts []*api.ExecHost) (time.Duration, bool) {
	var first time.Time
	for _, eh := range hosts {
		h := p.byName[eh.Host]
		if h == nil {
			continue
		}
		for k, held := range h.rsvBy {
			if r := p.backfillRsv(jc, k, held); r != nil && (first.IsZero() || r.predicted.Before(first)) {
				first = r.predicted
			}
		}
	}
	if first.IsZero() {
		return 0, false
	}
	limit := first.Sub(p.in.Now).Truncate(time.Second)
	run := jc.q.cfg.Limits.Run
	if m := max(run.Max, run.Default); m > 0 && m < limit {
		limit = m
	}
	return limit, true
}
