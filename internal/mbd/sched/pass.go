package sched

import (
	"maps"
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
	// carriedUsers and carriedGroups are the started slots of users and
	// groups carried from the last pass (carry.go): a user or group made
	// in this pass starts from them.
	carriedUsers, carriedGroups map[string]runSusp
	// carried is the count this pass took from the last one, nil when it
	// counted every started job.
	carried *carried
	// userGroups lists the groups (recursively) each user belongs to.
	userGroups map[string][]string

	preemption bool // some queue may preempt another
	freeAll    int  // hosts with a free slot (see updateFree)
	// freeSlots is the free slots of the hosts with an MXJ, as
	// non-preemptive queues count them (every started job), reservations
	// held not left out; unlimited counts the hosts without an MXJ (see
	// mayStart).
	freeSlots, unlimited int
	freeRun              int
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
	// hostsKept: the hosts are those of the last pass, unchanged
	// (buildHosts): static parts may be kept from it (keptStatic).
	hostsKept bool
	// valsChanged: rusage changed some host's values in this pass.
	valsChanged bool
	// fast: only the hosts the last pass changed were renewed
	// (renewDirty); recount lists the hosts whose count and free slots
	// this pass makes, next those it changed (markNext).
	fast          bool
	recount, next []int32
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
	freeSlots int  // this host's part of pass.freeSlots
	// valsDirty: the pass changed values other than the slots' (rusage
	// reserved): the next pass copies them again.
	valsDirty bool
	unlimited bool // no MXJ
	// slotsSet: vals holds lastFree as its slots and the maxslots value.
	slotsSet bool
	lastFree int
	// nextGen and recGen are the pass (Scheduler.passGen) that last put
	// the host in pass.next and pass.recount.
	nextGen, recGen uint32
	// jobsShared: jobs is the carried count's list (carry.go), not the
	// view's own.
	jobsShared bool
	freeRun    bool
	rsvSlots   int // slots held by processor reservations
	rsvBy      map[state.Key]int
	reserved   map[int]float64 // rusage amounts reserved, by index
	loadOK     []int32         // per queue: 0 or the load threshold reason (lazily)
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
	passable bool
	preempts []bool // by queue index
	victim   bool   // some queue may preempt this one
	prefOf   []int  // preference rank of each preemptable queue
	acceptN  int
	used     int            // started slots
	userUsed map[string]int // started slots per user (see addUserUsed)
	// userUsedShared: userUsed is the count carried from the last pass
	// (carry.go), copied at the first change.
	userUsedShared bool
	pendSlots      int
	pool           *poolState
	fairshare      bool
	jobs           []pendJob // pending jobs in queue order (prescan)
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
	j     *state.Job
	req   *reqEntry
	spec  *state.Spec // the submission req was resolved for
	slots int32       // j.Slots(), read without going to the record
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
	kept := p.in.SameHosts && same && len(s.lastHosts) == n
	if kept && s.fastOK && p.renewDirty(buf) {
		return
	}
	if len(s.lastHosts) != n {
		s.lastHosts = make([]*Host, n)
	}
	for i, h := range p.in.Hosts {
		hc := &buf[i]
		if kept && s.lastHosts[i] == h {
			hc.renew(nq, p.preemption)
			s.hostPtrs[i] = hc
			continue
		}
		kept = false
		s.lastHosts[i] = h
		if same && s.hostNames[i] != h.Name {
			same = false
		}
		qs, pre, num, load, jobs, shared := hc.queueSlots, hc.preRun, hc.vals.Num, hc.loadOK, hc.jobs, hc.jobsShared
		*hc = hostCtx{Host: h, idx: int32(i), max: h.MaxSlots, unlimited: h.MaxSlots < 0}
		if hc.max < 0 {
			hc.max = 1 << 30
		}
		if h.Values != nil {
			hc.vals = resreq.Host{Str: h.Values.Str, Exclusive: h.Values.Exclusive}
			if len(h.Values.Num) > 0 {
				hc.vals.Num = append(num[:0], h.Values.Num...)
			}
		}
		hc.reset(qs, pre, load, jobs, shared, nq, p.preemption)
		s.hostPtrs[i] = hc
	}
	p.hosts = s.hostPtrs[:n]
	if !same {
		s.startedInfo = nil // host indices of the old list
		s.carry = nil
		s.sortedKeep = nil // its views
		s.byName = make(map[string]*hostCtx, n)
		s.hostNames = s.hostNames[:0]
		for _, hc := range p.hosts {
			s.byName[hc.Name] = hc
			s.hostNames = append(s.hostNames, hc.Name)
		}
	}
	p.byName = s.byName
	p.uniqueNames = len(p.byName) == n
	p.hostsKept = kept && same
	if !p.hostsKept {
		s.keptStatics = nil
		s.hostsPlain = true
		for _, h := range p.in.Hosts {
			if h.Cfg != nil && (!h.Cfg.DispatchWindow.Always() || len(h.Cfg.Thresholds) > 0) {
				s.hostsPlain = false
				break
			}
		}
	}
}

// freeTotals are a pass's counts of free hosts and slots (updateFree).
type freeTotals struct{ all, run, slots, unlimited int }

// renewDirty starts a pass on the hosts of the last one, unchanged, when
// the last pass carried its count (carry.go) and recorded every host it
// changed (markNext): only those are renewed, and the count corrects the
// hosts whose started jobs changed (recount); every other view is as the
// last pass found it, the free totals with it. It reports false, having
// changed nothing, when a host is not the last pass's.
func (p *pass) renewDirty(buf []hostCtx) bool {
	s := p.s
	for i, h := range p.in.Hosts {
		if s.lastHosts[i] != h {
			return false
		}
	}
	tot := s.endFree
	nq := len(p.cfg.Queues)
	for _, i := range s.dirty {
		hc := &buf[i]
		tot.all -= b2i(hc.freeAll)
		tot.run -= b2i(hc.freeRun)
		tot.slots -= hc.freeSlots
		hc.renew(nq, p.preemption)
		p.addRecount(hc)
	}
	p.hosts = s.hostPtrs[:len(buf)]
	p.byName = s.byName
	p.uniqueNames = len(p.byName) == len(buf)
	p.hostsKept, p.fast = true, true
	p.freeAll, p.freeRun, p.freeSlots, p.unlimited = tot.all, tot.run, tot.slots, tot.unlimited
	return true
}

// unfast renews every host view renewDirty left as it was, for a pass
// that counts every started job after all: the count and the free totals
// start from nothing.
func (p *pass) unfast() {
	if !p.fast {
		return
	}
	nq := len(p.cfg.Queues)
	for _, h := range p.hosts {
		if h.recGen != p.s.passGen {
			h.renew(nq, p.preemption)
		}
	}
	p.freeAll, p.freeRun, p.freeSlots, p.unlimited = 0, 0, 0, 0
	p.fast, p.recount = false, nil
}

// markNext records that the pass changed h: the next pass renews it.
func (p *pass) markNext(h *hostCtx) {
	if h.nextGen != p.s.passGen {
		h.nextGen = p.s.passGen
		p.next = append(p.next, h.idx)
	}
}

// addRecount records that h's count and free slots are made in this pass
// (renewed, its started jobs changed, reservations held on it).
func (p *pass) addRecount(h *hostCtx) {
	if h.recGen != p.s.passGen {
		h.recGen = p.s.passGen
		p.recount = append(p.recount, h.idx)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// reset gives a host view its per-pass slices back, emptied: started
// slots per queue, preemptable ones with preemption, load thresholds
// (made again when needed) and the started jobs, unless those are the
// carried count's list (jobsShared).
func (hc *hostCtx) reset(qs, pre, load []int32, jobs []*state.Job, shared bool, nq int, preemption bool) {
	hc.queueSlots = zeroed(qs, nq)
	if preemption {
		hc.preRun = zeroed(pre, nq)
	}
	if load != nil {
		hc.loadOK = load[:0]
	}
	if jobs != nil && !shared {
		clear(jobs)
		hc.jobs = jobs[:0]
	}
}

// renew readies the view of a host kept from the last pass, unchanged
// (Input.SameHosts), for a new pass, as buildHosts's reset would make it
// without copying what the host alone gave it: its index, MXJ and values
// stay (the slot values are made again by the count; values rusage
// changed are copied again), every field a pass changes starts again.
// TestRenewedFields keeps this list whole.
func (hc *hostCtx) renew(nq int, preemption bool) {
	if hc.valsDirty {
		hc.vals.Num = append(hc.vals.Num[:0], hc.Values.Num...)
		hc.slotsSet, hc.valsDirty = false, false
	}
	// Pointers are written only when they change: a pass renews every
	// host, and each pointer written while the collector marks costs a
	// write barrier.
	hc.run, hc.susp = 0, 0
	zeroIn(&hc.queueSlots, nq)
	switch {
	case preemption:
		zeroIn(&hc.preRun, nq)
	case hc.preRun != nil:
		hc.preRun = nil
	}
	if len(hc.loadOK) > 0 {
		hc.loadOK = hc.loadOK[:0]
	}
	// The carried count's list stays (countStarted drops it when it
	// counts afresh); a list of the view's own is emptied.
	if !hc.jobsShared && len(hc.jobs) > 0 {
		clear(hc.jobs)
		hc.jobs = hc.jobs[:0]
	}
	if hc.userRun != nil || hc.userSusp != nil {
		hc.userRun, hc.userSusp = nil, nil
	}
	hc.exclusive, hc.hasJobs, hc.touched, hc.freeAll, hc.freeRun = false, false, false, false, false
	hc.freeSlots, hc.rsvSlots = 0, 0
	if hc.rsvBy != nil {
		hc.rsvBy = nil
	}
	if hc.reserved != nil {
		hc.reserved = nil
	}
}

// zeroIn makes *b n zeros, in place when it has that length.
func zeroIn(b *[]int32, n int) {
	if len(*b) == n {
		clear(*b)
		return
	}
	*b = zeroed(*b, n)
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

// addUserUsed adds n to user's started slots in q.
func (q *queueCtx) addUserUsed(user string, n int) {
	if q.userUsedShared {
		q.userUsed, q.userUsedShared = maps.Clone(q.userUsed), false
	}
	q.userUsed[user] += n
}

func (p *pass) user(name string) *userCtx {
	u := p.users[name]
	if u == nil {
		u = &userCtx{}
		if rs, ok := p.carriedUsers[name]; ok {
			u.run, u.susp = rs.run, rs.susp
		}
		p.users[name] = u
	}
	return u
}

func (p *pass) group(name string) *groupCtx {
	g := p.groups[name]
	if g == nil {
		g = &groupCtx{}
		if rs, ok := p.carriedGroups[name]; ok {
			g.run, g.susp = rs.run, rs.susp
		}
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
	if p.carryable() {
		p.countCarried()
		return
	}
	p.s.carry = nil
	p.unfast()
	for _, h := range p.hosts {
		if h.jobsShared { // the carried count's, kept by renew
			h.jobs, h.jobsShared = nil, false
		}
	}
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
	// susp and pre are how a carried count counted the record
	// (carry.go): suspended, preemptable.
	susp, pre bool
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
	if p.fast {
		for _, i := range p.recount {
			p.updateFree(p.hosts[i])
		}
		return
	}
	for _, h := range p.hosts {
		if h.unlimited {
			p.unlimited++
		}
		p.updateFree(h)
	}
}

// mayStart reports whether the free slots, as a non-preemptive queue counts
// them, are enough for a job of that many slots: when they are not, no host choice can
// start it (an upper bound: slots held by reservations are counted free).
func (p *pass) mayStart(slots int) bool {
	return p.unlimited > 0 || slots <= p.freeSlots
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

// countedAs tells how a started job of queue q (nil: unknown) is counted:
// as suspended (suspendedNow), and whether its running slots may be
// preempted (hosts count them per queue when some queue preempts:
// preRun). countJobOn and the carried count (carry.go) both ask it.
func (p *pass) countedAs(j *state.Job, q *queueCtx) (susp, pre bool) {
	susp = p.suspendedNow(j)
	return susp, !susp && p.preemption && q != nil && q.victim && p.preemptable(j)
}

// countJob counts j; on, when set, is the view of its only host.
func (p *pass) countJob(j *state.Job, on *hostCtx) { p.countJobOn(j, on, nil, true) }

// countJobOn counts j; on, when set, is the view of its only host, else
// idx, when set, has the index of each of its hosts (-1: unknown), else
// they are looked up by name. rusage false says that its requirement
// reserves nothing.
func (p *pass) countJobOn(j *state.Job, on *hostCtx, idx []int32, rusage bool) {
	q := p.queueOf(j.Queue)
	susp, pre := p.countedAs(j, q)
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
	free := h.max - h.run - h.susp - h.rsvSlots
	if h.unlimited {
		free = h.NCPUs - h.run - h.susp - h.rsvSlots
	}
	free = max(free, 0)
	if h.slotsSet && h.lastFree == free {
		return // as the values hold (kept from the last pass)
	}
	if resreq.IdxSlots < len(h.vals.Num) {
		h.vals.Num[resreq.IdxSlots] = float64(free)
	}
	if resreq.IdxMaxslots < len(h.vals.Num) {
		h.vals.Num[resreq.IdxMaxslots] = float64(h.MaxSlots)
		if h.unlimited {
			h.vals.Num[resreq.IdxMaxslots] = float64(h.NCPUs)
		}
	}
	h.slotsSet, h.lastFree = true, free
}

// touch records that h's values changed (a dispatch, a reservation).
func (p *pass) touch(h *hostCtx) {
	p.markNext(h)
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
	if !h.unlimited {
		all = h.max-h.run-h.susp-h.rsvSlots > 0
		run = h.max-h.run-h.rsvSlots > 0
		free := max(h.max-h.run-h.susp, 0)
		p.freeSlots += free - h.freeSlots
		h.freeSlots = free
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
