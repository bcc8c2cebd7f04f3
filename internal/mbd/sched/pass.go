package sched

import (
	"sort"
	"strings"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/job"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
	"github.com/basalt-lsf/basalt/internal/resreq"
)

// pass is the scratch state of one Schedule call.
type pass struct {
	s       *Scheduler
	in      *Input
	cfg     *config.Config
	plan    *Plan
	hosts   []*hostCtx
	byName  map[string]*hostCtx
	queues  []*queueCtx
	qByName map[string]*queueCtx
	users   map[string]*userCtx
	groups  map[string]*groupCtx
	// userGroups lists the groups (recursively) each user belongs to.
	userGroups map[string][]string

	preemption bool // some queue may preempt another
	freeAll    int  // hosts with a free slot (see updateFree)
	freeRun    int
	// cutoff: jobs of passable queues are passed by, their last full
	// pass's reasons carried, while no host has a free slot (see pass);
	// passed counts them.
	cutoff    bool
	passed    int
	hostUsers bool // per-host per-user limits exist (JL/U, JL/P)
	limits    *limitState

	classes  map[classKey]*class
	dyn      []Filter // the dynamic filters, in order
	statics  map[staticKey]*staticPart
	interned map[string]int32
	sorted   map[string][]*hostCtx // hosts by order keys
	// hostLog lists, in order, the hosts whose values changed in this pass.
	hostLog []int32
	// sharedGen changes whenever a shared resource is reserved, freedGen
	// whenever a preemption frees slots.
	sharedGen int
	freedGen  int
	// mutable are the indices a dispatch of this pass may change.
	mutable []bool

	single   map[int32][]*api.PendReason // shared one-reason slices
	arrayRun map[int64]int               // running elements per array
	groupRun map[string]int              // started jobs under each job group (jobgroups.go)
	rsv      *rsvPass                    // active advance reservations (rsv.go)
	asked    map[string]map[int32]int    // resolved -m lists
	// restrict, while set, limits every placement to these hosts (a
	// round of a queue that spans host partitions: one partition's hosts
	// at a time); restrictKey names the set in class keys.
	restrict    map[int32]int
	restrictKey string
	instances   map[instKey][]int32 // shared resource instances
	fs          *fsState
	toResume    []*state.Job    // preempted jobs not yet resumed, in order
	jc          jobCtx          // the job being placed
	rb          *reasonsBuilder // fills plan.Reasons (made by prescan)
	// slotsFirst: the slot filter is the first dynamic filter (a full
	// host is rejected by it before any other dynamic filter runs).
	slotsFirst bool
	// uniqueNames: no two hosts have the same name.
	uniqueNames bool
	// lastQName and lastQ are queueOf's last answer.
	lastQName string
	lastQ     *queueCtx
	// candScratch gathers a static part's candidates (staticOf).
	candScratch []int32
	pools       map[string]*poolState
	gpu         *gpuState    // GPU use (gpu.go)
	resizable   []*state.Job // started jobs with an allocation request (resize.go)
}

type hostCtx struct {
	*Host
	idx  int32
	vals resreq.Host
	max  int // MXJ; a very large number when unlimited
	// Slots of started jobs: running (RUN, and resumptions in flight) and
	// suspended (SSUSP, USUSP, and preemptions in flight).
	run, susp  int
	queueSlots []int32 // started slots per queue
	// preRun are running slots per queue of jobs that may be preempted.
	preRun   []int32
	userRun  map[string]int
	userSusp map[string]int
	jobs     []*state.Job // started jobs (only with preemption)

	exclusive bool // runs an exclusive job
	hasJobs   bool
	touched   bool // a job was dispatched here in this pass
	freeAll   bool // see updateFree
	freeRun   bool
	version   uint32
	rsvSlots  int // slots held by processor reservations
	rsvBy     map[state.Key]int
	reserved  map[int]float64 // rusage amounts reserved, by index
	loadOK    []int32         // per queue: 0 or the load threshold reason (lazily)
}

type queueCtx struct {
	cfg  *config.Queue
	idx  int
	st   state.QueueState
	open bool // dispatch and run windows open, active
	// reason is the job-level reason when !open.
	reason int32
	hosts  map[int32]int // queue HOSTS with preference; nil = all
	// preemptive queues count suspended jobs out of MXJ and MAX_JOBS and may
	// preempt the queues in preempts.
	preemptive bool
	// passable: a job of the queue can start only in a free slot, and
	// looking at it changes nothing but its reasons (no preemption,
	// backfill or reservation).
	passable  bool
	preempts  []bool // by queue index
	victim    bool   // some queue may preempt this one
	prefOf    []int  // preference rank of each preemptable queue
	acceptN   int
	used      int            // started slots
	userUsed  map[string]int // started slots per user
	pendSlots int
	pool      *poolState
	fairshare bool
	jobs      []pendJob // pending jobs in queue order (prescan)
}

type userCtx struct {
	run, susp  int
	dispatched int // dispatches in this pass (failure memos)
}

type groupCtx struct {
	run, susp int
	hostRun   map[int32]int // with JL/P
	hostSusp  map[int32]int
}

// pendJob is a pending job with its resolved requirement.
type pendJob struct {
	j    *state.Job
	req  *reqEntry
	spec *state.Spec // the submission req was resolved for
}

func newPass(s *Scheduler, in *Input) *pass {
	p := &pass{s: s, in: in, cfg: in.Config,
		plan: &Plan{Reserved: map[string]*HostReservation{},
			Dispatches:       make([]Dispatch, 0, s.mem.dispatched+s.mem.dispatched/4),
			SlotReservations: map[state.Key][]*api.ExecHost{}, QueueShares: map[string][]*api.ShareAccount{},
			PartitionShares: map[string][]*api.ShareAccount{}, PoolAllocation: map[string]int{}},
		qByName: map[string]*queueCtx{}, users: map[string]*userCtx{},
		groups: map[string]*groupCtx{}, classes: map[classKey]*class{}, single: map[int32][]*api.PendReason{},
		mutable: make([]bool, in.Table.Len()),
	}
	p.mutable[resreq.IdxSlots] = true
	for _, f := range s.Filters {
		if f.Kind() != Static {
			p.dyn = append(p.dyn, f)
		}
	}
	if len(p.dyn) > 0 {
		_, p.slotsFirst = p.dyn[0].(slotsFilter)
	}
	return p
}

// buildHosts makes the pass's view of every host. The views live in the
// scheduler's hostBuf and are reset, not reallocated, pass after pass (no
// view outlives its pass: plans hold host names); the name index is kept
// while the hosts are the same, in the same order.
func (p *pass) buildHosts() {
	s := p.s
	nq := len(p.cfg.Queues)
	n := len(p.in.Hosts)
	if cap(s.hostBuf) < n {
		s.hostBuf = make([]hostCtx, n)
		s.hostPtrs = make([]*hostCtx, n)
		s.byName = nil
	}
	buf := s.hostBuf[:n]
	same := s.byName != nil && len(s.byName) == n && len(s.hostNames) == n
	for i, h := range p.in.Hosts {
		if same && s.hostNames[i] != h.Name {
			same = false
		}
		hc := &buf[i]
		qs, pre, num, load, jobs := hc.queueSlots, hc.preRun, hc.vals.Num, hc.loadOK, hc.jobs
		*hc = hostCtx{Host: h, idx: int32(i), max: h.MaxSlots}
		hc.queueSlots = zeroed(qs, nq)
		if hc.max < 0 {
			hc.max = 1 << 30
		}
		if h.Values != nil {
			hc.vals = resreq.Host{Str: h.Values.Str, Exclusive: h.Values.Exclusive}
			if len(h.Values.Num) > 0 {
				hc.vals.Num = append(num[:0], h.Values.Num...)
			}
		}
		if p.preemption {
			hc.preRun = zeroed(pre, nq)
		}
		if load != nil {
			hc.loadOK = load[:0] // made again by loadFilter when needed
		}
		if jobs != nil {
			clear(jobs)
			hc.jobs = jobs[:0]
		}
		s.hostPtrs[i] = hc
	}
	p.hosts = s.hostPtrs[:n]
	if !same {
		s.startedInfo = nil // host indices of the old list
		s.sortedKeep = nil  // its views
		s.byName = make(map[string]*hostCtx, n)
		s.hostNames = s.hostNames[:0]
		for _, hc := range p.hosts {
			s.byName[hc.Name] = hc
			s.hostNames = append(s.hostNames, hc.Name)
		}
	}
	p.byName = s.byName
	p.uniqueNames = len(p.byName) == n
}

// zeroed returns a zeroed slice of n int32s, reusing b.
func zeroed(b []int32, n int) []int32 {
	if cap(b) < n {
		return make([]int32, n)
	}
	b = b[:n]
	clear(b)
	return b
}

func (p *pass) buildQueues() {
	for i, qc := range p.cfg.Queues {
		q := &queueCtx{cfg: qc, idx: i, st: p.in.View.QueueState(qc.Name), userUsed: map[string]int{}, open: true,
			acceptN: p.cfg.Params.JobAcceptInterval}
		if qc.JobAcceptInterval != nil {
			q.acceptN = *qc.JobAcceptInterval
		}
		switch {
		case q.st.Inactive:
			q.open, q.reason = false, PendQueInact
		case !qc.RunWindow.Always() && !qc.RunWindow.Open(p.in.Now):
			q.open, q.reason = false, PendQueWindow
			p.wakeAt(qc.RunWindow.Next(p.in.Now))
		case !qc.DispatchWindow.Always() && !qc.DispatchWindow.Open(p.in.Now):
			q.open, q.reason = false, PendQueWindow
			p.wakeAt(qc.DispatchWindow.Next(p.in.Now))
		}
		if qc.Hosts != nil {
			q.hosts = map[int32]int{}
			for _, hp := range qc.Hosts {
				if h := p.byName[hp.Host]; h != nil {
					q.hosts[h.idx] = hp.Pref
				}
			}
		}
		p.queues = append(p.queues, q)
		p.qByName[qc.Name] = q
	}
	for _, q := range p.queues {
		q.passable = len(q.cfg.Preempts) == 0 && !q.cfg.Backfill && q.cfg.SlotReserve == 0 && q.cfg.ResourceReserve == 0
		if len(q.cfg.Preempts) == 0 {
			continue
		}
		q.preemptive = true
		q.preempts = make([]bool, len(p.queues))
		q.prefOf = make([]int, len(p.queues))
		for rank, pr := range q.cfg.Preempts {
			if lo := p.qByName[pr.Queue]; lo != nil {
				q.preempts[lo.idx] = true
				q.prefOf[lo.idx] = rank
				lo.victim = true
			}
		}
	}
}

// preemptionConfigured reports whether any queue may preempt another.
func preemptionConfigured(c *config.Config) bool {
	for _, q := range c.Queues {
		if len(q.Preempts) > 0 {
			return true
		}
	}
	return false
}

func (p *pass) user(name string) *userCtx {
	u := p.users[name]
	if u == nil {
		u = &userCtx{}
		p.users[name] = u
	}
	return u
}

func (p *pass) group(name string) *groupCtx {
	g := p.groups[name]
	if g == nil {
		g = &groupCtx{}
		p.groups[name] = g
	}
	return g
}

// countStarted accounts the slots held by started jobs, from every view the
// policies need. With unique host names each started job is visited once
// (View.Started) and counted when the pass knows one of its hosts, as the
// walk host by host below counts it; with two hosts of the same name that
// walk counts a job of that name once per host, and is kept.
func (p *pass) countStarted() {
	if p.uniqueNames {
		s := p.s
		if s.startedInfo == nil || len(s.startedInfo) > 2*p.in.View.NumStarted()+64 {
			s.startedInfo = make(map[*state.Job]startedInfo, p.in.View.NumStarted())
		}
		p.in.View.Started(func(j *state.Job) bool {
			si, ok := s.startedInfo[j]
			if !ok {
				si = p.resolveStarted(j)
				if !s.noCache {
					s.startedInfo[j] = si
				}
			}
			if si.known {
				p.countJobOn(j, nil, si.hosts, si.rusage)
			}
			return true
		})
		for _, h := range p.hosts {
			h.setSlotValues()
		}
		return
	}
	for _, h := range p.hosts {
		p.in.View.OnHost(h.Name, func(j *state.Job) bool {
			// A job on several hosts is counted once, on the first of
			// them the pass knows.
			if len(j.ExecHosts) == 1 {
				p.countJob(j, h)
			} else if p.uniqueNames && j.ExecHosts[0].Host == h.Name || p.firstKnownHost(j) == h {
				p.countJob(j, nil)
			}
			return true
		})
	}
	for _, h := range p.hosts {
		h.setSlotValues()
	}
}

// startedInfo is what a pass derives from a started job's record alone
// (kept by the scheduler per record, valid while the configuration and
// the hosts are the same: see buildHosts and Schedule).
type startedInfo struct {
	// hosts are the indices of the job's execution hosts (ExecHosts
	// order), -1 for a host the pass does not know; known says some host
	// is known (the job is counted).
	hosts []int32
	known bool
	// rusage says the job's requirement reserves resources
	// (reserveRunning has something to do).
	rusage bool
}

// resolveStarted derives j's startedInfo.
func (p *pass) resolveStarted(j *state.Job) startedInfo {
	si := startedInfo{hosts: make([]int32, len(j.ExecHosts))}
	for i, eh := range j.ExecHosts {
		si.hosts[i] = -1
		if h := p.byName[eh.Host]; h != nil {
			si.hosts[i] = h.idx
			si.known = true
		}
	}
	if q := p.queueOf(j.Queue); q != nil && len(j.ExecHosts) > 0 {
		if e := p.reqOf(j, q); e.c != nil && len(e.c.Rusage) > 0 {
			si.rusage = true
		}
	}
	return si
}

// queueOf is the view of the queue named name (nil if unknown); the last
// answer is kept: started and pending jobs come mostly queue by queue.
func (p *pass) queueOf(name string) *queueCtx {
	if p.lastQ != nil && p.lastQName == name {
		return p.lastQ
	}
	q := p.qByName[name]
	p.lastQName, p.lastQ = name, q
	return q
}

// firstKnownHost is the first of a started job's hosts that the pass has.
func (p *pass) firstKnownHost(j *state.Job) *hostCtx {
	if len(j.ExecHosts) > 0 {
		if h := p.byName[j.ExecHosts[0].Host]; h != nil {
			return h
		}
	}
	for _, eh := range j.ExecHosts {
		if h := p.byName[eh.Host]; h != nil {
			return h
		}
	}
	return nil
}

func (p *pass) countFree() {
	for _, h := range p.hosts {
		p.updateFree(h)
	}
}

// suspendedNow tells whether a started job counts as suspended: SSUSP,
// USUSP, UNKWN of a suspended job, or a running job whose preemption is in
// flight; a suspended job whose resumption is in flight counts as running.
func (p *pass) suspendedNow(j *state.Job) bool {
	if _, ok := p.s.mem.resuming[j.Key]; ok {
		return false
	}
	if _, ok := p.s.mem.preempting[j.Key]; ok {
		return true
	}
	switch j.State {
	case api.StateSSusp, api.StateUSusp:
		return true
	case api.StateUnkwn:
		return j.PrevState == api.StateSSusp || j.PrevState == api.StateUSusp
	}
	return false
}

// countJob counts j; on, when set, is the view of its only host.
func (p *pass) countJob(j *state.Job, on *hostCtx) { p.countJobOn(j, on, nil, true) }

// countJobOn counts j; on, when set, is the view of its only host, else
// idx, when set, has the index of each of its hosts (-1: unknown), else
// they are looked up by name. rusage false says that its requirement
// reserves nothing.
func (p *pass) countJobOn(j *state.Job, on *hostCtx, idx []int32, rusage bool) {
	susp := p.suspendedNow(j)
	q := p.queueOf(j.Queue)
	// pre: its running slots may be preempted (hosts count them per
	// queue when some queue preempts: preRun).
	pre := !susp && p.preemption && q != nil && q.victim && p.preemptable(j)
	total := 0
	for i, eh := range j.ExecHosts {
		h := on
		switch {
		case h != nil:
		case idx != nil:
			if idx[i] >= 0 {
				h = p.hosts[idx[i]]
			}
		default:
			h = p.byName[eh.Host]
		}
		n := int(eh.Slots)
		total += n
		if h == nil {
			continue
		}
		if susp {
			h.susp += n
		} else {
			h.run += n
		}
		if q != nil {
			h.queueSlots[q.idx] += int32(n)
			if pre && h.preRun != nil {
				h.preRun[q.idx] += int32(n)
			}
		}
		if p.hostUsers {
			if h.userRun == nil {
				h.userRun, h.userSusp = map[string]int{}, map[string]int{}
			}
			if susp {
				h.userSusp[j.User] += n
			} else {
				h.userRun[j.User] += n
			}
			for _, g := range p.userGroups[j.User] {
				gc := p.group(g)
				if gc.hostRun == nil {
					gc.hostRun, gc.hostSusp = map[int32]int{}, map[int32]int{}
				}
				if susp {
					gc.hostSusp[h.idx] += n
				} else {
					gc.hostRun[h.idx] += n
				}
			}
		}
		h.hasJobs = true
		if j.Spec.Exclusive {
			h.exclusive = true
		}
		if p.preemption {
			h.jobs = append(h.jobs, j)
		}
		h.version++
	}
	if q != nil {
		q.used += total
		q.userUsed[j.User] += total
	}
	u := p.user(j.User)
	for _, g := range p.userGroups[j.User] {
		if susp {
			p.group(g).susp += total
		} else {
			p.group(g).run += total
		}
	}
	if susp {
		u.susp += total
	} else {
		u.run += total
	}
	p.limits.count(p, j, susp)
	if rusage {
		p.reserveRunning(j)
	}
	p.fsCharge(j)
	p.noteResizable(j)
}

func (h *hostCtx) setSlotValues() {
	if h.vals.Num == nil {
		return
	}
	if resreq.IdxSlots < len(h.vals.Num) {
		free := h.max - h.run - h.susp - h.rsvSlots
		if h.MaxSlots < 0 {
			free = h.NCPUs - h.run - h.susp - h.rsvSlots
		}
		h.vals.Num[resreq.IdxSlots] = float64(max(free, 0))
	}
	if resreq.IdxMaxslots < len(h.vals.Num) {
		h.vals.Num[resreq.IdxMaxslots] = float64(h.MaxSlots)
		if h.MaxSlots < 0 {
			h.vals.Num[resreq.IdxMaxslots] = float64(h.NCPUs)
		}
	}
}

// touch records that h's values changed (a dispatch, a reservation).
func (p *pass) touch(h *hostCtx) {
	h.version++
	h.setSlotValues()
	p.hostLog = append(p.hostLog, h.idx)
	p.updateFree(h)
}

// updateFree keeps count of the hosts with a free slot, as non-preemptive
// queues count (every started job) and as preemptive ones do (suspended
// jobs left out), reservations held counted in both. When none is left a
// job cannot start in its first look and its class is not walked.
func (p *pass) updateFree(h *hostCtx) {
	all, run := true, true
	if h.MaxSlots >= 0 {
		all = h.max-h.run-h.susp-h.rsvSlots > 0
		run = h.max-h.run-h.rsvSlots > 0
	}
	if all != h.freeAll {
		if all {
			p.freeAll++
		} else {
			p.freeAll--
		}
		h.freeAll = all
	}
	if run != h.freeRun {
		if run {
			p.freeRun++
		} else {
			p.freeRun--
		}
		h.freeRun = run
	}
}

// queueOrder lists queues by PRIORITY, highest first, lsb.queues order for
// equal priorities.
func (p *pass) queueOrder() []*queueCtx {
	qs := append([]*queueCtx(nil), p.queues...)
	sort.SliceStable(qs, func(i, j int) bool { return qs[i].cfg.Priority > qs[j].cfg.Priority })
	return qs
}

func (p *pass) wakeAt(t time.Time) {
	if t.IsZero() || !t.After(p.in.Now) {
		return
	}
	if p.plan.NextWake.IsZero() || t.Before(p.plan.NextWake) {
		p.plan.NextWake = t
	}
}

// reason records a job's pending reasons.
func (p *pass) reason(j *state.Job, rs []*api.PendReason) { p.rb.set(j.Key, rs) }

// one returns the shared slice holding the single job-level reason code.
func (p *pass) one(code int32) []*api.PendReason {
	rs := p.single[code]
	if rs == nil {
		rs = []*api.PendReason{{Code: code}}
		p.single[code] = rs
	}
	return rs
}

// resolveGroups computes each user's groups (for group limits).
func (p *pass) resolveGroups() {
	p.userGroups = map[string][]string{}
	if p.cfg.Users == nil {
		return
	}
	for _, g := range p.cfg.Users.Groups {
		for _, m := range g.Members {
			p.userGroups[m] = append(p.userGroups[m], g.Name)
		}
	}
	for _, l := range p.cfg.Users.Users {
		if l.JLP > 0 {
			p.hostUsers = true
		}
	}
	for _, h := range p.in.Hosts {
		if h.Cfg != nil && h.Cfg.JLU > 0 {
			p.hostUsers = true
		}
	}
}

func expandHostName(p *pass, name string) []string {
	if name == "all" || name == "others" {
		out := make([]string, len(p.hosts))
		for i, h := range p.hosts {
			out[i] = h.Name
		}
		return out
	}
	if g := p.cfg.HostGroup(name); g != nil {
		return g.Members
	}
	for _, h := range p.hosts {
		if strings.EqualFold(h.Name, name) {
			return []string{h.Name}
		}
	}
	return nil
}

func started(st api.JobState) bool { return job.Started(st) }
