package sched

import (
	"maps"
	"slices"
	"sort"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/job"
	"github.com/basalt-lsf/basalt/internal/mbd/sched/pool"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
	"github.com/basalt-lsf/basalt/internal/resreq"
)

func (m *memory) init() {
	if m.rsv == nil {
		m.rsv = map[state.Key]*slotReservation{}
		m.noReserve = map[state.Key]time.Time{}
		m.preempting = map[state.Key]inflight{}
		m.resuming = map[state.Key]inflight{}
		m.backfill = map[state.Key]bool{}
		m.pools = map[string]*pool.Accumulator{}
	}
}

func (m *memory) pool(name string, histHours float64) *pool.Accumulator {
	a := m.pools[name]
	if a == nil {
		a = &pool.Accumulator{}
		m.pools[name] = a
	}
	a.Decay = time.Duration(histHours * float64(time.Hour))
	return a
}

func (m *memory) advancePools(p *pass) {
	for name, ps := range p.pools {
		inUse := map[string]int{}
		for _, q := range ps.queues {
			inUse[q.cfg.Name] = q.used
		}
		m.pool(name, p.cfg.Params.HistHours).Advance(p.in.Now, inUse)
	}
}

// UsageFeed is how mbatchd tells the scheduler about finished runs, for the
// fairshare usage history. The scheduler keeps the history between passes;
// after a restart it rebuilds it from the finished jobs the state still
// holds (those not yet cleaned after CLEAN_PERIOD), so a restart forgets
// only older history.
type UsageFeed interface {
	// Finished records a run that ended: the job (user, queue, first
	// execution host, start and end times) and its final usage.
	Finished(r FinishedRun)
}

// FinishedRun is a run that ended.
type FinishedRun struct {
	Key   state.Key
	User  string
	Queue string
	Host  string // first execution host
	Start time.Time
	End   time.Time
	// CPU is the run's CPU time in seconds.
	CPU float64
	// RunCount tells runs of one job apart (a run is recorded once).
	RunCount int32
}

type usageRecord struct{ FinishedRun }

// Feed returns the scheduler's UsageFeed. It may be called from any
// goroutine; records are applied at the start of the next pass.
func (s *Scheduler) Feed() UsageFeed { return (*feed)(s) }

type feed Scheduler

func (f *feed) Finished(r FinishedRun) {
	s := (*Scheduler)(f)
	s.feedMu.Lock()
	s.feed = append(s.feed, usageRecord{r})
	s.feedMu.Unlock()
}

// drainFeed moves fed records into the history.
func (s *Scheduler) drainFeed(p *pass) {
	s.feedMu.Lock()
	recs := s.feed
	s.feed = nil
	forgot := s.forgotten
	s.forgotten = nil
	s.feedMu.Unlock()
	for _, k := range forgot {
		delete(s.mem.preempting, k)
		delete(s.mem.resuming, k)
	}
	for _, r := range recs {
		s.record(p.cfg, r.FinishedRun)
	}
	s.pruneRecorded(p.in.View)
}

// Absorb moves fed records into the fairshare history under cfg, as a
// pass's start does. A process that holds the state but runs no passes
// (a replica following the master) calls it now and then, so that what it
// is fed does not pile up while the history stays ready for the day it
// leads. It must not run while Schedule does.
func (s *Scheduler) Absorb(cfg *config.Config, v *state.View) {
	s.feedMu.Lock()
	recs := s.feed
	s.feed = nil
	s.feedMu.Unlock()
	s.mem.init()
	for _, r := range recs {
		s.record(cfg, r.FinishedRun)
	}
	s.pruneRecorded(v)
}

// pruneRecorded forgets the recorded runs of jobs that left the state
// (cleaned after CLEAN_PERIOD): no record of theirs can come again. It
// sweeps only once the map holds twice the state's jobs, so that its cost
// spreads over many passes.
func (s *Scheduler) pruneRecorded(v *state.View) {
	if v == nil || len(s.mem.recorded) <= 2*v.NumJobs()+4096 {
		return
	}
	for k := range s.mem.recorded {
		if v.Job(k) == nil {
			delete(s.mem.recorded, k)
		}
	}
}

func (s *Scheduler) record(cfg *config.Config, r FinishedRun) {
	if s.mem.recorded == nil {
		s.mem.recorded = map[state.Key]int32{}
	}
	if s.mem.recorded[r.Key] >= r.RunCount && r.RunCount > 0 {
		return
	}
	s.mem.recorded[r.Key] = r.RunCount
	run := r.End.Sub(r.Start).Seconds()
	if run < 0 || r.Start.IsZero() {
		run = 0
	}
	hist := cfg.Params.HistHours
	if q := cfg.Queue(r.Queue); q != nil && len(q.Fairshare) > 0 {
		h := hist
		if q.HistHours != nil {
			h = *q.HistHours
		}
		s.mem.hist.Add("queue/"+r.Queue, r.User, r.CPU, run, r.End, h)
	}
	if cfg.LSBHosts != nil {
		for _, part := range cfg.LSBHosts.Partitions {
			for _, h := range part.Hosts {
				if h == r.Host {
					s.mem.hist.Add("hpart/"+part.Name, r.User, r.CPU, run, r.End, hist)
				}
			}
		}
	}
}

// rebuildHistory, on the first pass, feeds the finished jobs the state
// holds.
func (s *Scheduler) rebuildHistory(p *pass) {
	if s.mem.rebuilt {
		return
	}
	s.mem.rebuilt = true
	var runs []FinishedRun
	p.in.View.Jobs(func(j *state.Job) bool {
		if job.Finished(j.State) && j.RunCount > 0 {
			r := FinishedRun{Key: j.Key, User: j.User, Queue: j.Queue, Start: unix(j.StartTime), End: unix(j.EndTime), RunCount: j.RunCount}
			if len(j.ExecHosts) > 0 {
				r.Host = j.ExecHosts[0].Host
			}
			if j.Usage != nil {
				r.CPU = j.Usage.CPUTime
			}
			runs = append(runs, r)
		}
		return true
	})
	sort.SliceStable(runs, func(a, b int) bool { return runs[a].End.Before(runs[b].End) })
	for _, r := range runs {
		s.record(p.cfg, r)
	}
}

// slotReservation is a pending parallel job's processor reservation
// (SLOT_RESERVE = MAX_RESERVE_TIME[n]): the slots it holds, kept across
// passes for n × MBD_SLEEP_TIME; then they are released and the job cannot
// reserve for one dispatch interval. Held slots are unavailable to other
// jobs, except backfill jobs that end before the reservation's predicted
// start (from the run limits of the jobs running on the job's hosts).
type slotReservation struct {
	key       state.Key
	queue     string
	start     time.Time
	expires   time.Time
	hosts     map[string]int
	held      int
	predicted time.Time // zero: cannot be predicted (no backfill)
}

func (r *slotReservation) execHosts() []*api.ExecHost {
	names := make([]string, 0, len(r.hosts))
	for h := range r.hosts {
		names = append(names, h)
	}
	sort.Strings(names)
	out := make([]*api.ExecHost, 0, len(names))
	for _, h := range names {
		if r.hosts[h] > 0 {
			out = append(out, &api.ExecHost{Host: h, Slots: int32(r.hosts[h])})
		}
	}
	return out
}

// holdReservations applies the reservations of earlier passes.
func (p *pass) holdReservations() {
	m := &p.s.mem
	keys := make([]state.Key, 0, len(m.rsv))
	for k := range m.rsv {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool {
		return keys[a].ID < keys[b].ID || keys[a].ID == keys[b].ID && keys[a].Index < keys[b].Index
	})
	for _, k := range keys {
		r := m.rsv[k]
		j := p.in.View.Job(k)
		if j == nil || j.State != api.StatePend || j.Queue != r.queue {
			delete(m.rsv, k)
			continue
		}
		if !p.in.Now.Before(r.expires) {
			delete(m.rsv, k)
			m.noReserve[k] = p.in.Now.Add(p.cfg.Params.MBDSleepTime)
			continue
		}
		r.held = 0
		for name, n := range r.hosts {
			h := p.byName[name]
			if h == nil {
				delete(r.hosts, name)
				continue
			}
			free := h.max - h.run - h.susp - h.rsvSlots
			if h.MaxSlots < 0 {
				free = n
			}
			n = min(n, max(free, 0))
			r.hosts[name] = n
			if n > 0 {
				if h.rsvBy == nil {
					h.rsvBy = map[state.Key]int{}
				}
				h.rsvBy[k] = n
				h.rsvSlots += n
				r.held += n
				h.setSlotValues()
				p.markNext(h)   // renewed by the next pass
				p.addRecount(h) // its free slots counted again (countFree)
			}
		}
	}
}

func (p *pass) anyReservation() bool { return len(p.s.mem.rsv) > 0 }

// nothingFree reports whether no host has a free slot as jobs of q count
// them (every started job, or running ones for a preemptive queue), and
// the slot filter is the first dynamic one: a job that holds no reserved
// slot and may use no other job's would have every host rejected by it.
// With noCache (tests) it says false: the walks it spares are made.
func (p *pass) nothingFree(q *queueCtx) bool {
	if p.s.noCache || !p.slotsFirst {
		return false
	}
	if q.preemptive {
		return p.freeRun == 0
	}
	return p.freeAll == 0
}

// backfillMayFit reports whether a backfill attempt of jc (a job that
// found no free slots) could find any: false when no host has a free slot,
// the job holds no reserved slot and no reservation's slots may be
// backfilled by it (backfillRsv); the attempt's walk would then reject
// every host, and the static parts it would read were built by the job's
// first attempt.
func (p *pass) backfillMayFit(jc *jobCtx) bool {
	if jc.curView != viewNormal || !p.nothingFree(jc.q) {
		return true
	}
	m := &p.s.mem
	if r := m.rsv[jc.j.Key]; r != nil && r.held > 0 {
		return true
	}
	for k, r := range m.rsv {
		if p.backfillRsv(jc, k, r.held) != nil {
			return true
		}
	}
	return false
}

// reserveSlots makes a job that could not start hold the slots it can get
// now (its earlier reservation included), up to what it needs.
func (p *pass) reserveSlots(jc *jobCtx) {
	m := &p.s.mem
	k := jc.j.Key
	if until, ok := m.noReserve[k]; ok && p.in.Now.Before(until) {
		return
	}
	if r := m.rsv[k]; (r == nil || r.held == 0) && p.nothingFree(jc.q) {
		// No host has a free slot and the job holds none: the walk would
		// find nothing (the slot filter would reject every host). Only
		// the static part's side effects (wake-ups of host dispatch
		// windows) are kept: it is built if this pass has not yet.
		jc.ownRsv, jc.curView = true, viewNormal
		simple := simpleOf(jc.req.c)
		prof := -1
		if jc.q.hosts != nil || len(jc.q.cfg.Thresholds) > 0 {
			prof = jc.q.idx
		}
		sk := staticKey{req: simple, profile: prof, asked: p.intern(jc.askedKey), excluded: p.intern(jc.excludedKey)}
		if p.statics[sk] == nil {
			p.staticOf(p.classFor(jc, simple, viewNormal), jc)
		}
		return
	}
	r := m.rsv[k]
	if r == nil {
		maxTime := jc.q.cfg.SlotReserve
		if jc.q.cfg.ResourceReserve > 0 {
			maxTime = jc.q.cfg.ResourceReserve
		}
		r = &slotReservation{key: k, queue: jc.q.cfg.Name, start: p.in.Now,
			expires: p.in.Now.Add(time.Duration(maxTime) * p.cfg.Params.MBDSleepTime)}
	}
	jc.ownRsv = true
	jc.curView = viewNormal
	need := jc.slots
	got := map[string]int{}
	total := 0
	c := p.classFor(jc, simpleOf(jc.req.c), viewNormal)
	jc.noReasons = true // the walk's reasons are not read
	p.walk(c, jc, func(h *hostCtx, capacity int) bool {
		n := min(capacity, need-total)
		got[h.Name] = n
		total += n
		return total < need
	})
	jc.noReasons = false
	if total == 0 && r.held == 0 {
		return
	}
	p.giveBack(r, k)
	r.hosts, r.held = got, 0
	for name, n := range got {
		h := p.byName[name]
		if h.rsvBy == nil {
			h.rsvBy = map[state.Key]int{}
		}
		h.rsvBy[k] = n
		h.rsvSlots += n
		r.held += n
		p.touch(h)
	}
	r.predicted = p.predictStart(jc, c, need-total)
	m.rsv[k] = r
}

// simpleOf is the simple requirement a reservation walks: the first term
// or alternative of a compound or alternative one.
func simpleOf(c *resreq.Compiled) *resreq.Compiled {
	switch {
	case c.Kind == resreq.KindCompound && len(c.Terms) > 0:
		return simpleOf(c.Terms[0].Req)
	case c.Kind == resreq.KindAlternative && len(c.Alternatives) > 0:
		return simpleOf(c.Alternatives[0])
	}
	return c
}

func (q *queueCtx) cfgOrNil() *config.Queue {
	if q == nil {
		return nil
	}
	return q.cfg
}

// predictStart estimates when a reserving job can start: when the running
// jobs on its candidate hosts, ending at their run limits, free the slots
// it still misses. Zero when some needed slot has no predictable end.
func (p *pass) predictStart(jc *jobCtx, c *class, missing int) time.Time {
	if missing <= 0 {
		return p.in.Now
	}
	type end struct {
		at    time.Time
		slots int
	}
	var ends []end
	for _, h := range p.hosts {
		code := int32(0)
		for _, f := range p.s.Filters {
			if f.Kind() != Static {
				break
			}
			if code = f.Filter(p, c, jc, h); code != 0 {
				break
			}
		}
		if code != 0 {
			continue
		}
		p.in.View.OnHost(h.Name, func(j *state.Job) bool {
			d := runLimit(j, p.qByName[j.Queue].cfgOrNil())
			if d > 0 && j.StartTime > 0 {
				ends = append(ends, end{unix(j.StartTime).Add(d), slotsOn(j, h.Name)})
			}
			return true
		})
	}
	sort.Slice(ends, func(a, b int) bool { return ends[a].at.Before(ends[b].at) })
	for _, e := range ends {
		missing -= e.slots
		if missing <= 0 {
			if e.at.Before(p.in.Now) {
				return p.in.Now
			}
			return e.at
		}
	}
	return time.Time{}
}

// backfillable is how many slots reserved on h a backfill job may use:
// those of reservations predicted to start after the job ends. Jobs of a
// queue with MAX_SLOTS_IN_POOL, SLOT_RESERVE and BACKFILL cannot backfill
// slots reserved by jobs of the same queue (seed 002).
func (p *pass) backfillable(jc *jobCtx, h *hostCtx) int {
	n := 0
	for k, held := range h.rsvBy {
		if p.backfillRsv(jc, k, held) != nil {
			n += held
		}
	}
	return n
}

// backfillRsv returns the reservation of job k (holding held slots on a
// host) if jc, a backfill job, may use its slots.
func (p *pass) backfillRsv(jc *jobCtx, k state.Key, held int) *slotReservation {
	if k == jc.j.Key || held <= 0 {
		return nil
	}
	r := p.s.mem.rsv[k]
	if r == nil || r.predicted.IsZero() || r.predicted.Before(jc.backfillEnd) {
		return nil
	}
	if jc.q.cfg.MaxSlotsInPool > 0 && jc.q.cfg.SlotReserve > 0 && jc.q.cfg.Backfill && r.queue == jc.q.cfg.Name {
		return nil
	}
	return r
}

// releaseReservation drops a job's reservation once it starts.
func (s *Scheduler) releaseReservation(p *pass, k state.Key) {
	if r := s.mem.rsv[k]; r != nil {
		p.giveBack(r, k)
		delete(s.mem.rsv, k)
	}
}

// giveBack releases the slots job k's reservation r holds, host by host
// in name order: they are free again for the rest of the pass (touch),
// and walks that passed those hosts as full start again (freedGen), as
// after a preemption.
func (p *pass) giveBack(r *slotReservation, k state.Key) {
	for _, name := range slices.Sorted(maps.Keys(r.hosts)) {
		if h := p.byName[name]; h != nil && h.rsvBy[k] > 0 {
			h.rsvSlots -= h.rsvBy[k]
			delete(h.rsvBy, k)
			p.touch(h)
			p.freedGen++
		}
	}
}
