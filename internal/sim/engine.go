package sim

import (
	"container/heap"
	"context"
	"fmt"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/clock"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/mbd/sched"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
)

// Options configure a run.
type Options struct {
	// Config is the cluster: its batch hosts are the simulated hosts and
	// every policy of its queues applies.
	Config *config.Config
	// Slots is the slots (and CPUs) of a host whose MXJ the configuration
	// leaves unlimited or sets to the CPU count ("!"); default 1.
	Slots int
	// Queue maps a job to its queue; nil or "" is the configuration's
	// default queue.
	Queue func(*Job) string
	// RunLimits says where jobs' run limits (bsub -W) come from:
	// "requested" (the default: the trace's requested time), "exact" (the
	// recorded run time: perfect estimates, for traces without requested
	// times) or "none".
	RunLimits string
	// Start is the virtual time of the trace's second 0 (default: the
	// workload's UnixStartTime, else 2000-01-01 UTC).
	Start time.Time
	// Progress, when set, is called every ProgressEvery jobs finished and
	// at the end.
	Progress      func(Progress)
	ProgressEvery int
	// Interval is the least virtual time between two scheduling passes
	// (default: lsb.params JOB_SCHEDULING_INTERVAL, else none: a pass at
	// every second in which something happened, as mbatchd's event-driven
	// loop). Longer intervals run fewer passes: faster, coarser.
	Interval time.Duration
	// EveryPass runs a pass even when no slot is free and no job is
	// suspended by preemption (such a pass cannot start a job; by default
	// it is left out).
	EveryPass bool
	// observe, when set (by tests), sees every pass's plan at its virtual
	// time (Unix seconds) before it is carried out.
	observe func(now int64, plan *sched.Plan)
}

// Progress is how far a run is.
type Progress struct {
	Done, Total int
	Simulated   time.Duration // virtual time since the trace's start
}

// Record is one job's simulated life.
type Record struct {
	Job   *Job
	Queue string
	// Start and End are seconds from the trace's start; Start is -1 for a
	// job that never started (Result.Problems says why).
	Start, End int64
	Slots      int
	// Killed is set when the job ended at its run limit (TERM_RUNLIMIT) or
	// by preemption (TERM_PREEMPT).
	Killed     bool
	TermReason string
	// Suspended is the time the job spent suspended by preemption.
	Suspended int64
	Backfill  bool
}

// Wait is how long the job waited for its start.
func (r *Record) Wait() int64 { return r.Start - r.Job.Submit }

// Run is how long the job held its slots (suspension excluded).
func (r *Record) Run() int64 { return r.End - r.Start - r.Suspended }

// Result is a finished run.
type Result struct {
	Records []*Record // in the workload's order
	// Slots is the cluster's slot count; Passes the scheduling passes run.
	Slots    int
	Hosts    int
	Passes   int
	Problems []error // jobs refused or never started
}

// run is a started job.
type run struct {
	id        int64
	rec       *Record
	remaining int64 // seconds left when suspended
	end       int64 // when it ends (virtual Unix seconds) while running
	seq       uint64
	suspended bool
	suspAt    int64
}

type endItem struct {
	at  int64
	id  int64
	seq uint64
}

type endHeap []endItem

func (h endHeap) Len() int { return len(h) }
func (h endHeap) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].id < h[j].id
}
func (h endHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *endHeap) Push(x any)   { *h = append(*h, x.(endItem)) }
func (h *endHeap) Pop() any     { o := *h; x := o[len(o)-1]; *h = o[:len(o)-1]; return x }
func (h endHeap) peek() endItem { return h[0] }

// engine is one run: the state, the scheduler, the virtual clock.
type engine struct {
	opts    Options
	cfg     *config.Config
	st      *state.State
	s       *sched.Scheduler
	clk     *clock.Fake
	hosts   []*sched.Host
	hostIdx map[string]int // hosts by name (the first of a name)
	idx     uint64
	base    int64 // Unix seconds of the trace's second 0
	recs    []*Record
	running map[int64]*run // by job ID (ID = position in recs + 1)
	ends    endHeap
	seq     uint64
	done    int
	cleanQ  []int64 // finished job IDs in end order
	cleanAt []int64
	result  *Result
	// used counts the slots of running jobs, preempted the jobs suspended
	// by preemption; preemptive says a queue may preempt.
	used, preempted int
	preemptive      bool
	// preQueue marks the queues that may preempt, prePend counts their
	// jobs waiting; reserving says the last plan left slot reservations.
	preQueue  map[string]bool
	prePend   int
	reserving bool
	// reserveQ: some queue reserves slots (SLOT_RESERVE, RESOURCE_RESERVE)
	// or there are pools; every pass with a free slot is run.
	reserveQ bool
	// pendN counts the waiting jobs by slots, pendMin is the narrowest
	// width with a waiting job (len(pendN) when none).
	pendN   []int32
	pendMin int
}

// Run replays w under opts. It returns an error only when the run cannot
// start (no configuration, no host); jobs it cannot replay are named in
// Result.Problems.
func Run(ctx context.Context, w *Workload, opts Options) (*Result, error) {
	if opts.Config == nil {
		return nil, fmt.Errorf("sim: no configuration")
	}
	if opts.Slots <= 0 {
		opts.Slots = 1
	}
	switch opts.RunLimits {
	case "", "requested", "exact", "none":
	default:
		return nil, fmt.Errorf("sim: run limits %q: requested, exact or none", opts.RunLimits)
	}
	if opts.ProgressEvery <= 0 {
		opts.ProgressEvery = 1000
	}
	start := opts.Start
	if start.IsZero() {
		start = time.Unix(w.UnixStart, 0).UTC()
		if w.UnixStart == 0 {
			start = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
		}
	}
	e := &engine{opts: opts, cfg: opts.Config, st: state.New(), s: sched.New(), clk: clock.NewFake(start),
		base: start.Unix(), running: map[int64]*run{}, result: &Result{}}
	if err := e.buildHosts(); err != nil {
		return nil, err
	}
	if err := e.admit(w); err != nil {
		return nil, err
	}
	if err := e.loop(ctx); err != nil {
		return nil, err
	}
	e.result.Records = e.recs
	return e.result, nil
}

// buildHosts makes the scheduler's view of every batch host: up, idle, its
// slots its MXJ (or opts.Slots when unlimited).
func (e *engine) buildHosts() error {
	tab := e.cfg.ResourceTable()
	for _, bh := range e.cfg.BatchHosts {
		h := &sched.Host{Name: bh.Name, Cfg: bh, Type: bh.Type, Model: bh.Model, NCPUs: e.opts.Slots, Status: "ok"}
		h.Values = sched.HostValues(tab, e.cfg, bh, nil, nil)
		if i, ok := tab.Index("ncpus"); ok {
			h.Values.Num[i] = float64(e.opts.Slots)
		}
		h.MaxSlots = bh.MXJ
		if bh.MXJCPUs || h.MaxSlots <= 0 {
			h.MaxSlots = e.opts.Slots
		}
		if e.hostIdx == nil {
			e.hostIdx = map[string]int{}
		}
		if _, dup := e.hostIdx[h.Name]; !dup {
			e.hostIdx[h.Name] = len(e.hosts)
		}
		e.hosts = append(e.hosts, h)
		e.result.Slots += h.MaxSlots
	}
	e.result.Hosts = len(e.hosts)
	e.pendN = make([]int32, e.result.Slots+1)
	e.pendMin = len(e.pendN)
	e.preQueue = map[string]bool{}
	for _, q := range e.cfg.Queues {
		if q.Preemption.Preemptive {
			e.preemptive = true
			e.preQueue[q.Name] = true
		}
		if q.SlotReserve > 0 || q.ResourceReserve > 0 {
			e.reserveQ = true
		}
	}
	if len(e.cfg.Pools) > 0 {
		// Pool usage is integrated pass by pass: keep every pass that
		// has slots to give.
		e.reserveQ = true
	}
	if len(e.hosts) == 0 {
		return fmt.Errorf("sim: the configuration has no batch host")
	}
	return nil
}

// admit makes the records of the jobs to replay; a job wider than the
// cluster or aimed at an unknown queue is refused (named in Problems).
func (e *engine) admit(w *Workload) error {
	def := ""
	if qs := e.cfg.DefaultQueues(); len(qs) > 0 {
		def = qs[0]
	}
	e.recs = make([]*Record, 0, len(w.Jobs))
	for _, j := range w.Jobs {
		q := ""
		if e.opts.Queue != nil {
			q = e.opts.Queue(j)
		}
		if q == "" && j.QueueName != "" && e.cfg.Queue(j.QueueName) != nil {
			q = j.QueueName
		}
		if q == "" {
			q = def
		}
		switch {
		case q == "":
			return fmt.Errorf("sim: no queue for the jobs: the configuration has no default queue")
		case e.cfg.Queue(q) == nil:
			e.result.Problems = append(e.result.Problems, &LineError{Line: j.Line, Msg: fmt.Sprintf("job %d: no queue %q in the configuration: not replayed", j.ID, q)})
			continue
		case j.Procs > e.result.Slots:
			e.result.Problems = append(e.result.Problems, &LineError{Line: j.Line, Field: fProcs,
				Msg: fmt.Sprintf("job %d asks for %d slots, the cluster has %d: not replayed", j.ID, j.Procs, e.result.Slots)})
			continue
		}
		e.recs = append(e.recs, &Record{Job: j, Queue: q, Start: -1, End: -1, Slots: j.Procs})
	}
	return nil
}

func (e *engine) now() int64 { return e.clk.Now().Unix() }

// apply applies one log entry of events at the current virtual time.
func (e *engine) apply(evs ...*api.Event) []error {
	t := e.clk.Now().UnixNano()
	for _, ev := range evs {
		ev.Time = t
	}
	e.idx++
	return e.st.Apply(e.idx, &api.LogEntry{Events: evs})
}

// loop moves the virtual clock from event to event until every job ended
// or nothing can happen any more.
func (e *engine) loop(ctx context.Context) error {
	next := 0 // next record to arrive
	var wake int64 = -1
	cleanPeriod := int64(e.cfg.Params.CleanPeriod / time.Second)
	if cleanPeriod <= 0 {
		cleanPeriod = 3600
	}
	interval := int64(e.opts.Interval / time.Second)
	if e.opts.Interval == 0 {
		interval = int64(e.cfg.Params.JobSchedulingInterval / time.Second)
	}
	lastPass := int64(-1) << 40
	dirty := false // something happened since the last pass
	// news: since the last pass a job ended, the plan's wake-up came or a
	// job arrived that fits in the free slots; without it a pass finds
	// what the last one found (nothing startable) unless jobs reserve.
	news := false
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		// The next event: an arrival, an end, the plan's wake-up, a pass
		// put off by the interval.
		t := int64(-1)
		pick := func(x int64) {
			if x >= 0 && (t < 0 || x < t) {
				t = x
			}
		}
		if next < len(e.recs) {
			pick(e.base + e.recs[next].Job.Submit)
		}
		if len(e.ends) > 0 {
			pick(e.ends.peek().at)
		}
		if wake > e.now() {
			pick(wake)
		}
		if dirty {
			pick(max(lastPass+interval, e.now()))
		}
		if t < 0 {
			break
		}
		if t > e.now() {
			e.clk.Set(time.Unix(t, 0))
		}
		now := e.now()
		if e.endJobs(now) {
			dirty, news = true, true
		}
		var evs []*api.Event
		for next < len(e.recs) && e.base+e.recs[next].Job.Submit <= now {
			evs = append(evs, e.newEvent(next))
			if e.recs[next].Slots <= e.result.Slots-e.used {
				news = true
			}
			e.pendN[e.recs[next].Slots]++
			e.pendMin = min(e.pendMin, e.recs[next].Slots)
			if e.preQueue[e.recs[next].Queue] {
				e.prePend++
			}
			next++
		}
		if len(evs) > 0 {
			dirty = true
			for i, err := range e.apply(evs...) {
				if err != nil {
					return fmt.Errorf("sim: submission of job %d: %w", evs[i].JobNew.JobID, err)
				}
			}
		}
		e.clean(now - cleanPeriod)
		if wake >= 0 && wake <= now {
			dirty, news, wake = true, true, -1
		}
		if !dirty || now < lastPass+interval {
			continue
		}
		dirty = false
		act := e.opts.EveryPass || e.mayAct(news)
		news = false
		if !act {
			continue
		}
		lastPass = now
		for range 4 { // passes at this instant while they act (preemption frees slots)
			plan := e.pass()
			if e.opts.observe != nil {
				e.opts.observe(now, plan)
			}
			e.reserving = len(plan.SlotReservations) > 0
			wake = -1
			if w := plan.NextWake; !w.IsZero() && w.Unix() > now {
				wake = w.Unix()
			}
			if !e.carryOut(plan) {
				break
			}
		}
	}
	e.progress()
	for _, r := range e.recs {
		if r.Start < 0 {
			e.result.Problems = append(e.result.Problems, &LineError{Line: r.Job.Line,
				Msg: fmt.Sprintf("job %d (%d slots, queue %s) never started: nothing was left to free room for it", r.Job.ID, r.Slots, r.Queue)})
		}
	}
	return nil
}

// mayAct says whether a pass could start, preempt or resume a job or
// change what the scheduler remembers: a preempted job waits for its
// resumption, a job of a queue that may preempt waits, the last plan left
// slot reservations (a pass on a full cluster shrinks them), or some job
// waits, a slot is free and either something happened since the last pass
// that may let a job start (news: an end, a wake-up, an arrival that fits
// in the free slots) and some waiting job is no wider than the free
// slots, or some queue reserves slots (a waiting job may reserve free
// ones). Otherwise the jobs the last pass found unable to start still
// cannot (the hosts are as it left them) and the new ones are too wide,
// or every waiting job is wider than the free slots: leaving the pass out
// changes no decision.
func (e *engine) mayAct(news bool) bool {
	if e.preempted > 0 {
		return true
	}
	v := e.st.Latest()
	if v.Count(api.StatePend) == 0 {
		return false
	}
	if e.preemptive && e.prePend > 0 || e.reserving {
		return true
	}
	free := e.result.Slots - e.used
	if free <= 0 {
		return false
	}
	return e.reserveQ || news && e.pendMin <= free
}

// newEvent is the submission of record i (job ID i+1).
func (e *engine) newEvent(i int) *api.Event {
	r := e.recs[i]
	id := int64(i + 1)
	spec := &api.JobSpec{Command: "sleep " + fmt.Sprint(r.Job.Run), FromHost: e.hosts[0].Name, MinProcs: int32(r.Slots)}
	switch e.opts.RunLimits {
	case "", "requested":
		if r.Job.ReqTime > 0 {
			spec.Limits = &api.Limits{Run: r.Job.ReqTime}
		}
	case "exact":
		spec.Limits = &api.Limits{Run: max(r.Job.Run, 1)}
	}
	return &api.Event{User: r.Job.User, JobNew: &api.EvJobNew{JobID: id, Spec: spec, Queue: r.Queue, Order: id << 20,
		NumProcs: int32(r.Slots), MaxProcs: int32(r.Slots), Project: "default"}}
}

// pass runs one scheduling pass over a snapshot of the state.
func (e *engine) pass() *sched.Plan {
	e.result.Passes++
	v := e.st.Latest()
	in := &sched.Input{Now: e.clk.Now(), Config: e.cfg, Table: e.cfg.ResourceTable(), Hosts: e.hosts, View: v,
		Strict: e.cfg.Conf.StrictResReq(), Unit: e.cfg.Conf.Get("LSF_UNIT_FOR_LIMITS"), NoReasons: true, SameHosts: true}
	return e.s.Schedule(in)
}

// carryOut applies a plan as mbatchd and the sbatchds would: preemptions
// and resumptions (JOB_SIGNAL, then the host's status report), then the
// dispatches (JOB_START). It reports whether the plan acted.
func (e *engine) carryOut(plan *sched.Plan) bool {
	now := e.now()
	var evs []*api.Event
	for _, p := range plan.Preemptions {
		ev := &api.EvJobSignal{JobID: p.Key.ID, Index: p.Key.Index, Preempt: true, RunCount: p.RunCount, Action: int32(api.ActSuspend), Signal: "STOP"}
		st := &api.EvJobStatus{JobID: p.Key.ID, Index: p.Key.Index, State: api.StateSSusp, SuspReasons: sched.SuspReschedPreempt, RunCount: p.RunCount}
		if p.Terminate {
			ev.Action, ev.Signal, ev.TermReason = int32(api.ActTerminate), "KILL", sched.TermPreempt
			st = &api.EvJobStatus{JobID: p.Key.ID, Index: p.Key.Index, State: api.StateExit, ExitStatus: 9, TermReason: sched.TermPreempt,
				RunCount: p.RunCount, Usage: e.usage(p.Key.ID)}
		}
		evs = append(evs, &api.Event{JobSignal: ev}, &api.Event{JobStatus: st})
	}
	for _, r := range plan.Resumes {
		evs = append(evs, &api.Event{JobSignal: &api.EvJobSignal{JobID: r.Key.ID, Index: r.Key.Index, RunCount: r.RunCount, Action: int32(api.ActResume), Signal: "CONT"}},
			&api.Event{JobStatus: &api.EvJobStatus{JobID: r.Key.ID, Index: r.Key.Index, State: api.StateRun, RunCount: r.RunCount}})
	}
	if len(evs) > 0 {
		errs := e.apply(evs...)
		for i, p := range plan.Preemptions {
			if errs[2*i] != nil || errs[2*i+1] != nil {
				e.s.Forget(p.Key)
				continue
			}
			r := e.running[p.Key.ID]
			if r == nil {
				continue
			}
			if p.Terminate {
				r.rec.Killed, r.rec.TermReason = true, sched.TermPreempt
				e.finished(r, now)
				continue
			}
			r.remaining, r.suspended, r.suspAt = r.end-now, true, now
			e.used -= r.rec.Slots
			e.preempted++
			r.seq = e.nextSeq() // its end in the heap is void
		}
		off := 2 * len(plan.Preemptions)
		for i, rs := range plan.Resumes {
			if errs[off+2*i] != nil || errs[off+2*i+1] != nil {
				e.s.Forget(rs.Key)
				continue
			}
			r := e.running[rs.Key.ID]
			if r == nil || !r.suspended {
				continue
			}
			r.suspended = false
			e.used += r.rec.Slots
			e.preempted--
			r.rec.Suspended += now - r.suspAt
			r.end = now + r.remaining
			r.seq = e.nextSeq()
			heap.Push(&e.ends, endItem{at: r.end, id: rs.Key.ID, seq: r.seq})
		}
	}
	if len(plan.Dispatches) > 0 {
		evs = evs[:0]
		for i := range plan.Dispatches {
			evs = append(evs, plan.Dispatches[i].StartEvent())
		}
		errs := e.apply(evs...)
		v := e.st.Latest()
		for i, d := range plan.Dispatches {
			if errs[i] != nil {
				continue
			}
			for _, h := range d.Hosts {
				e.dispatchedOn(h.Host)
			}
			j := v.Job(d.Key)
			rec := e.recs[d.Key.ID-1]
			rec.Start, rec.Backfill = now-e.base, d.Backfill
			if e.preQueue[rec.Queue] {
				e.prePend--
			}
			e.pendN[rec.Slots]--
			for e.pendMin < len(e.pendN) && e.pendN[e.pendMin] == 0 {
				e.pendMin++
			}
			length := rec.Job.Run
			if lim := int64(sched.RunLimit(j, e.cfg.Queue(j.Queue)) / time.Second); lim > 0 && length > lim {
				length, rec.Killed, rec.TermReason = lim, true, "TERM_RUNLIMIT"
			}
			r := &run{id: d.Key.ID, rec: rec, end: now + length, seq: e.nextSeq()}
			e.running[d.Key.ID] = r
			e.used += rec.Slots
			heap.Push(&e.ends, endItem{at: r.end, id: d.Key.ID, seq: r.seq})
		}
	}
	return len(plan.Preemptions)+len(plan.Resumes) > 0
}

func (e *engine) nextSeq() uint64 { e.seq++; return e.seq }

// dispatchedOn records a dispatch time on a host (JOB_ACCEPT_INTERVAL).
func (e *engine) dispatchedOn(name string) {
	if i, ok := e.hostIdx[name]; ok {
		e.hosts[i].LastDispatch = e.clk.Now()
	}
}

// usage is a job's final usage: its slots busy for its run.
func (e *engine) usage(id int64) *api.Usage {
	r := e.running[id]
	if r == nil {
		return nil
	}
	cpu := float64((e.now() - e.base - r.rec.Start - r.rec.Suspended) * int64(r.rec.Slots))
	return &api.Usage{CPUTime: cpu, UTime: cpu}
}

// endJobs ends the runs due by now, as their hosts' final reports would;
// it reports whether any ended.
func (e *engine) endJobs(now int64) bool {
	var evs []*api.Event
	var runs []*run
	for len(e.ends) > 0 && e.ends.peek().at <= now {
		it := heap.Pop(&e.ends).(endItem)
		r := e.running[it.id]
		if r == nil || r.seq != it.seq || r.suspended {
			continue
		}
		st := &api.EvJobStatus{JobID: it.id, State: api.StateDone, RunCount: 1, Usage: e.usage(it.id)}
		if r.rec.Killed {
			st.State, st.ExitStatus, st.TermReason = api.StateExit, 9, r.rec.TermReason
		}
		evs = append(evs, &api.Event{JobStatus: st})
		runs = append(runs, r)
	}
	if len(evs) == 0 {
		return false
	}
	e.apply(evs...)
	for _, r := range runs {
		e.finished(r, now)
	}
	return true
}

// finished records a run's end and feeds it to the fairshare history.
func (e *engine) finished(r *run, now int64) {
	id := r.id
	r.rec.End = now - e.base
	delete(e.running, id)
	if r.suspended {
		e.preempted--
	} else {
		e.used -= r.rec.Slots
	}
	if fr, ok := sched.FinishedRunOf(e.st.Latest().Job(state.Key{ID: id})); ok {
		e.s.Feed().Finished(fr)
	}
	e.cleanQ = append(e.cleanQ, id)
	e.cleanAt = append(e.cleanAt, now)
	e.done++
	if e.opts.Progress != nil && e.done%e.opts.ProgressEvery == 0 {
		e.progress()
	}
}

func (e *engine) progress() {
	if e.opts.Progress != nil {
		e.opts.Progress(Progress{Done: e.done, Total: len(e.recs), Simulated: time.Duration(e.now()-e.base) * time.Second})
	}
}

// clean removes the jobs that ended before cutoff (CLEAN_PERIOD), as
// mbatchd's housekeeping does: the state stays the size of the live jobs.
func (e *engine) clean(cutoff int64) {
	n := 0
	for n < len(e.cleanQ) && e.cleanAt[n] < cutoff {
		n++
	}
	if n == 0 {
		return
	}
	evs := make([]*api.Event, n)
	for i, id := range e.cleanQ[:n] {
		evs[i] = &api.Event{JobClean: &api.EvJobClean{JobID: id}}
	}
	e.apply(evs...)
	e.cleanQ, e.cleanAt = e.cleanQ[n:], e.cleanAt[n:]
}
