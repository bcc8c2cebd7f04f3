package sched

import (
	"math"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/mbd/depend"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
)

// Schedule runs one pass. It reads only in and what earlier passes left in
// the scheduler's memory; the caches it keeps never change a decision.
func (s *Scheduler) Schedule(in *Input) *Plan {
	if s.gen != in.Config {
		s.reqs = map[reqKey]*reqEntry{}
		s.specs = map[*state.Spec]specReq{}
		s.deps = map[*state.Spec]*depend.Expr{}
		s.mem.scans = nil // entries of the old configuration
		s.mem.lastBlock, s.mem.spareBlock = nil, nil
		s.mem.fullReasons = nil // a new configuration: every job looked at
		s.startedInfo = nil
		s.carry = nil
		s.fastOK = false
		s.keptStatics = nil
		s.sortedKeep = nil
		s.gen = in.Config
	}
	s.mem.init()
	s.passGen++
	p := newPass(s, in)
	p.preemption = preemptionConfigured(in.Config)
	p.resolveGroups()
	p.limits = newLimitState(p)
	p.buildHosts()
	p.buildQueues()
	s.forgetSettled(p)
	s.drainFeed(p)
	s.rebuildHistory(p)
	p.fs = newFSState(p)
	p.countStarted()
	p.holdReservations()
	p.countFree()
	p.cutoff = s.mayPassBy(in.Now) && !p.anyReservation()
	p.prescan()
	p.collectPreempted()
	p.setupPools()
	for _, g := range p.dispatchGroups() {
		p.resumeUpTo(g.queues[0].cfg.Priority)
		p.runGroup(g)
	}
	p.resumeUpTo(math.MinInt)
	p.poolLeftovers()
	p.growResizable()
	if p.passed == 0 {
		s.mem.fullReasons, s.mem.lastFull = p.plan.Reasons, in.Now
	}
	p.finish()
	ls, table := p.limits, p.in.Table
	p.plan.Limits = func() []*api.LimitUsage { return ls.report(table) }
	s.sweepCaches()
	s.endFree = freeTotals{all: p.freeAll, run: p.freeRun, slots: p.freeSlots, unlimited: p.unlimited}
	s.dirty = append(s.dirty[:0], p.next...)
	s.fastOK = p.carried != nil && in.SameHosts && p.uniqueNames
	s.mem.dispatched = len(p.plan.Dispatches)
	s.publish(p.plan)
	return p.plan
}

// fullPassEvery bounds the age of the reasons a pass carries over for the
// jobs it passes by: a pass looks at every pending job when the last one
// that did is that old (or the configuration changed).
//
// Once no host has a free slot (as queues without preemption count them:
// p.freeAll), a job of a queue that neither preempts, backfills nor
// reserves cannot start, and looking at it (its gates, its classes) would
// only refresh its pending reasons; with 10,000 jobs pending, every pass
// that starts the one job a freed slot allows otherwise looks at all of
// them. Such a pass passes by those that have reasons from the last full
// pass and carries the reasons over (a job new since is looked at).
// Decisions are never changed: the passed jobs would have found no slot.
// No pass is asked for to refresh the reasons: passes follow every change
// and come at least every MBD_SLEEP_TIME (a scheduling session, when LSF
// refreshes them), and the first one fullPassEvery after the last full
// pass is full; a forced one would cost a full pass per second on a
// cluster with a million jobs waiting and nothing happening.
const fullPassEvery = time.Second

// mayPassBy reports whether a pass at now may pass jobs by.
func (s *Scheduler) mayPassBy(now time.Time) bool {
	m := &s.mem
	return !s.noCache && m.fullReasons != nil && !now.Before(m.lastFull) && now.Sub(m.lastFull) < fullPassEvery
}

// place tries to start one pending job: the gates, then hosts from the
// job's classes; a preemptive queue's job that found no slots looks again
// counting the jobs it may preempt as free; a backfill queue's job with a
// run limit may use reserved slots (an interruptible backfill queue's job
// whatever its run limit, interruptible.go); a parallel job of a SLOT_RESERVE queue
// that cannot start reserves what it can.
func (p *pass) place(pj pendJob, q *queueCtx) bool {
	j := pj.j
	slots := int(pj.slots)
	if q.passable && (p.cutoff || p.in.NoReasons) && !p.mayStart(slots) {
		// It cannot start: only its reasons could be new.
		if p.in.NoReasons {
			p.passed++
			return false
		}
		if rs := p.s.mem.fullReasons.Get(j.Key); rs != nil {
			p.passed++
			p.reason(j, rs)
			return false
		}
	}
	p.plan.Examined++
	jc := &p.jc
	*jc = jobCtx{j: j, q: q, req: pj.req, slots: slots}
	if r := p.s.mem.rsv[j.Key]; r != nil && r.held > 0 {
		jc.ownRsv = true
	}
	for _, g := range p.s.Gates {
		if r := g.Gate(p, jc); r != nil {
			p.reason(j, r)
			return false
		}
	}
	a := p.placeReq(jc, jc.req.c)
	if a.hosts != nil {
		p.commit(jc, a, false, nil)
		return true
	}
	if q.preemptive {
		jc.curView = viewPreempt
		if b := p.placeReq(jc, jc.req.c); b.hosts != nil {
			if victims, ok := p.chooseVictims(jc, b.hosts); ok {
				p.preempt(jc, victims)
				p.commit(jc, b, false, victims)
				return true
			}
		}
		jc.curView = viewNormal
	}
	if q.cfg.Backfill && q.cfg.InterruptibleBackfill > 0 && p.anyReservation() {
		if p.interruptibleBackfill(jc) {
			return true
		}
	} else if q.cfg.Backfill && p.anyReservation() {
		if end, ok := p.runLimitEnd(jc); ok {
			jc.backfill, jc.backfillEnd, jc.ownRsv = true, end, true
			var b attempt
			if p.backfillMayFit(jc) {
				jc.noReasons = true // only a placement counts
				b = p.placeReq(jc, jc.req.c)
				jc.noReasons = false
			}
			if b.hosts != nil {
				p.commit(jc, b, true, nil)
				return true
			}
			jc.backfill, jc.ownRsv = false, p.s.mem.rsv[j.Key] != nil
		}
	}
	if (q.cfg.SlotReserve > 0 || q.cfg.ResourceReserve > 0) && jc.slots > 1 {
		p.reserveSlots(jc)
	}
	p.reason(j, a.reasons)
	return false
}

// finish hands the pass's results and memory on.
func (p *pass) finish() {
	p.exportReservations()
	p.exportShares()
	p.s.mem.advancePools(p)
	for k, r := range p.s.mem.rsv {
		p.plan.SlotReservations[k] = r.execHosts()
		p.wakeAt(r.expires)
	}
	for k, until := range p.s.mem.noReserve {
		if !until.After(p.in.Now) {
			delete(p.s.mem.noReserve, k)
		} else {
			p.wakeAt(until)
		}
	}
}

// unix converts Unix seconds.
func unix(s int64) time.Time { return time.Unix(s, 0) }

// runLimit is a job's run limit: -W, else the queue's default, else its
// maximum (seconds, 0 none); a started interruptible backfill job's limit
// when shorter.
func runLimit(j *state.Job, q *config.Queue) time.Duration {
	d := specRunLimit(j, q)
	if j.BackfillLimit > 0 && started(j.State) {
		if b := time.Duration(j.BackfillLimit) * time.Second; d <= 0 || b < d {
			d = b
		}
	}
	return d
}

func specRunLimit(j *state.Job, q *config.Queue) time.Duration {
	if l := j.Spec.Limits; l != nil && l.Run > 0 {
		return time.Duration(l.Run) * time.Second
	}
	if q != nil {
		if q.Limits.Run.Default > 0 {
			return q.Limits.Run.Default
		}
		return q.Limits.Run.Max
	}
	return 0
}

func (p *pass) runLimitEnd(jc *jobCtx) (time.Time, bool) {
	d := runLimit(jc.j, jc.q.cfg)
	if d <= 0 {
		return time.Time{}, false
	}
	return p.in.Now.Add(d), true
}

var _ = api.StateRun
