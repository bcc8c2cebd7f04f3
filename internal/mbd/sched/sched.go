package sched

import (
	"sort"
	"strings"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/mbd/depend"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
	"github.com/basalt-lsf/basalt/internal/resreq"
)

// Host is a batch host as the scheduler sees it.
type Host struct {
	Name string
	Cfg  *config.BatchHost
	// Status is "ok" when the host can take jobs, otherwise LSF's bhosts
	// status (unavail, unreach, closed_Adm...).
	Status string
	NCPUs  int
	Type   string
	Model  string
	// MaxSlots is the host's MXJ, -1 unlimited.
	MaxSlots int
	// Values are the host's resources and load (resreq table indices). The
	// scheduler copies them per pass and updates slots/maxslots.
	Values *resreq.Host
	// LastDispatch is when a job was last started here (JOB_ACCEPT_INTERVAL).
	LastDispatch time.Time
}

// Input is everything one pass looks at.
type Input struct {
	Now    time.Time
	Config *config.Config
	Table  *resreq.Table
	Hosts  []*Host // in cluster order
	View   *state.View
	// Strict is LSF_STRICT_RESREQ.
	Strict bool
	// Unit is LSF_UNIT_FOR_LIMITS.
	Unit string
}

// Dispatch starts one job.
type Dispatch struct {
	Key   state.Key
	Queue string
	Hosts []*api.ExecHost
}

// Plan is the result of a pass.
type Plan struct {
	Dispatches []Dispatch
	// Reasons are the pending reasons of the jobs that stay pending.
	Reasons map[state.Key][]*api.PendReason
	// NextWake is the earliest time a pass may decide differently without
	// any event (a begin time, a window opening); zero when none.
	NextWake time.Time
	// Examined counts jobs the pass looked at (for metrics and tests).
	Examined int
}

// Scheduler runs passes and keeps caches between them.
type Scheduler struct {
	reqs  map[reqKey]*compiled
	deps  map[*state.Spec]*depend.Expr
	gen   *config.Config // caches are for this configuration
	Gates []Gate
	// Filters run in order; the first that rejects a host names the reason.
	Filters []Filter
}

type reqKey struct {
	spec  *state.Spec
	queue string
	local string
}

type compiled struct {
	c   *resreq.Compiled
	err error
}

// New returns a scheduler with the standard gates and filters.
func New() *Scheduler {
	return &Scheduler{Gates: DefaultGates(), Filters: DefaultFilters()}
}

// pass is the scratch state of one Schedule call.
type pass struct {
	s       *Scheduler
	in      *Input
	plan    *Plan
	hosts   []*hostCtx
	byName  map[string]*hostCtx
	queues  map[string]*queueCtx
	users   map[string]*userCtx
	free    int // free slots over usable hosts (-1: unlimited somewhere)
	acceptN int // JOB_ACCEPT_INTERVAL turns
}

type hostCtx struct {
	*Host
	idx       int
	vals      resreq.Host
	used      int            // slots held by started jobs
	userUsed  map[string]int // per user
	queueUsed map[string]int // per queue
	exclusive bool           // runs an exclusive job
	hasJobs   bool
	accepted  bool // a job was dispatched to it this pass (JOB_ACCEPT_INTERVAL)
}

func (h *hostCtx) freeSlots() int {
	if h.MaxSlots < 0 {
		return 1 << 30
	}
	if f := h.MaxSlots - h.used; f > 0 {
		return f
	}
	return 0
}

type queueCtx struct {
	cfg      *config.Queue
	st       state.QueueState
	used     int
	userUsed map[string]int
	open     bool // dispatch and run windows open, active
	reason   int32
	hosts    map[string]int // queue HOSTS with preference; nil = all
}

type userCtx struct {
	used int
}

// jobCtx is one job being placed.
type jobCtx struct {
	j     *state.Job
	q     *queueCtx
	req   *resreq.Compiled
	asked map[string]int // -m hosts with preference; nil = any
	slots int
}

// Schedule runs one pass.
func (s *Scheduler) Schedule(in *Input) *Plan {
	if s.gen != in.Config {
		s.reqs = map[reqKey]*compiled{}
		s.deps = map[*state.Spec]*depend.Expr{}
		s.gen = in.Config
	}
	p := &pass{s: s, in: in, plan: &Plan{Reasons: map[state.Key][]*api.PendReason{}},
		byName: map[string]*hostCtx{}, queues: map[string]*queueCtx{}, users: map[string]*userCtx{}}
	p.acceptN = in.Config.Params.JobAcceptInterval
	p.buildHosts()
	p.buildQueues()
	p.countStarted()
	for _, qname := range p.queueOrder() {
		q := p.queues[qname]
		in.View.Pending(qname, func(j *state.Job) bool {
			p.plan.Examined++
			p.place(j, q)
			return true
		})
	}
	return p.plan
}

func (p *pass) buildHosts() {
	for i, h := range p.in.Hosts {
		hc := &hostCtx{Host: h, idx: i, userUsed: map[string]int{}, queueUsed: map[string]int{}}
		if h.Values != nil {
			hc.vals = resreq.Host{Num: append([]float64(nil), h.Values.Num...), Str: h.Values.Str, Exclusive: h.Values.Exclusive}
		}
		if p.acceptN > 0 && !h.LastDispatch.IsZero() &&
			p.in.Now.Sub(h.LastDispatch) < time.Duration(p.acceptN)*p.in.Config.Params.MBDSleepTime {
			hc.accepted = true
		}
		p.hosts = append(p.hosts, hc)
		p.byName[h.Name] = hc
	}
}

func (p *pass) buildQueues() {
	for _, qc := range p.in.Config.Queues {
		q := &queueCtx{cfg: qc, st: p.in.View.QueueState(qc.Name), userUsed: map[string]int{}, open: true}
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
			q.hosts = map[string]int{}
			for _, hp := range qc.Hosts {
				q.hosts[hp.Host] = hp.Pref
			}
		}
		p.queues[qc.Name] = q
	}
}

// countStarted accounts the slots held by started jobs.
func (p *pass) countStarted() {
	for _, h := range p.hosts {
		p.in.View.OnHost(h.Name, func(j *state.Job) bool {
			for _, eh := range j.ExecHosts {
				if eh.Host != h.Name {
					continue
				}
				n := int(eh.Slots)
				h.used += n
				h.userUsed[j.User] += n
				h.queueUsed[j.Queue] += n
				h.hasJobs = true
				if j.Spec.Exclusive {
					h.exclusive = true
				}
			}
			return true
		})
	}
	// Queue and user totals (a job counts once, with all its slots).
	seen := map[state.Key]bool{}
	for _, h := range p.hosts {
		p.in.View.OnHost(h.Name, func(j *state.Job) bool {
			if seen[j.Key] {
				return true
			}
			seen[j.Key] = true
			n := int(j.Slots())
			if q := p.queues[j.Queue]; q != nil {
				q.used += n
				q.userUsed[j.User] += n
			}
			p.user(j.User).used += n
			return true
		})
	}
	for _, h := range p.hosts {
		h.setSlotValues(p.in.Table)
	}
}

func (p *pass) user(name string) *userCtx {
	u := p.users[name]
	if u == nil {
		u = &userCtx{}
		p.users[name] = u
	}
	return u
}

func (h *hostCtx) setSlotValues(t *resreq.Table) {
	if h.vals.Num == nil {
		return
	}
	if i, ok := t.Index("slots"); ok && i < len(h.vals.Num) {
		h.vals.Num[i] = float64(h.freeSlots())
		if h.MaxSlots < 0 {
			h.vals.Num[i] = float64(h.NCPUs)
		}
	}
	if i, ok := t.Index("maxslots"); ok && i < len(h.vals.Num) {
		h.vals.Num[i] = float64(h.MaxSlots)
		if h.MaxSlots < 0 {
			h.vals.Num[i] = float64(h.NCPUs)
		}
	}
}

// queueOrder lists queues by PRIORITY, highest first, lsb.queues order for
// equal priorities.
func (p *pass) queueOrder() []string {
	qs := append([]*config.Queue(nil), p.in.Config.Queues...)
	sort.SliceStable(qs, func(i, j int) bool { return qs[i].Priority > qs[j].Priority })
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = q.Name
	}
	return out
}

func (p *pass) wakeAt(t time.Time) {
	if t.IsZero() || !t.After(p.in.Now) {
		return
	}
	if p.plan.NextWake.IsZero() || t.Before(p.plan.NextWake) {
		p.plan.NextWake = t
	}
}

// place tries to start one job.
func (p *pass) place(j *state.Job, q *queueCtx) {
	if q == nil {
		p.reason(j, &api.PendReason{Code: PendQueInact})
		return
	}
	jc := &jobCtx{j: j, q: q, slots: int(j.Slots())}
	for _, g := range p.s.Gates {
		if r := g.Gate(p, jc); r != nil {
			p.reason(j, r)
			return
		}
	}
	// Candidate hosts with the first rejecting filter's reason per host.
	var ok []*hostCtx
	counts := map[int32]int32{}
	names := map[int32][]string{}
	for _, h := range p.hosts {
		code := int32(0)
		for _, f := range p.s.Filters {
			if code = f.Filter(p, jc, h); code != 0 {
				break
			}
		}
		if code != 0 {
			counts[code]++
			names[code] = append(names[code], h.Name)
			continue
		}
		ok = append(ok, h)
	}
	if len(ok) > 0 {
		if hosts := p.allocate(jc, ok); hosts != nil {
			p.commit(jc, hosts)
			return
		}
		counts[PendHostLessSlots] += int32(len(ok))
		for _, h := range ok {
			names[PendHostLessSlots] = append(names[PendHostLessSlots], h.Name)
		}
	}
	codes := make([]int32, 0, len(counts))
	for c := range counts {
		codes = append(codes, c)
	}
	sort.Slice(codes, func(a, b int) bool { return codes[a] < codes[b] })
	var rs []*api.PendReason
	for _, c := range codes {
		rs = append(rs, &api.PendReason{Code: c, NumHosts: counts[c], Hosts: names[c]})
	}
	if len(rs) == 0 {
		rs = append(rs, &api.PendReason{Code: PendHostLessSlots})
	}
	p.plan.Reasons[j.Key] = rs
}

func (p *pass) reason(j *state.Job, r *api.PendReason) {
	p.plan.Reasons[j.Key] = []*api.PendReason{r}
}

// allocate chooses hosts and slot counts for the job among eligible hosts,
// or returns nil.
func (p *pass) allocate(jc *jobCtx, ok []*hostCtx) []*api.ExecHost {
	p.orderHosts(jc, ok)
	need := jc.slots
	span := jc.req.Span
	var out []*api.ExecHost
	switch {
	case span != nil && span.Hosts == 1:
		for _, h := range ok {
			if p.hostCapacity(jc, h) >= need {
				return []*api.ExecHost{{Host: h.Name, Slots: int32(need)}}
			}
		}
		return nil
	case span != nil && (span.Ptile > 0 || span.PtileMax):
		for _, h := range ok {
			per := span.Ptile
			if span.PtileMax {
				per = h.MaxSlots
				if per < 0 {
					per = h.NCPUs
				}
			}
			if per <= 0 {
				continue
			}
			n := min(per, need)
			if p.hostCapacity(jc, h) < n {
				continue
			}
			out = append(out, &api.ExecHost{Host: h.Name, Slots: int32(n)})
			need -= n
			if need == 0 {
				return out
			}
		}
		return nil
	}
	for _, h := range ok {
		n := min(p.hostCapacity(jc, h), need)
		if n <= 0 {
			continue
		}
		out = append(out, &api.ExecHost{Host: h.Name, Slots: int32(n)})
		need -= n
		if need == 0 {
			return out
		}
	}
	return nil
}

// hostCapacity is how many of the job's slots the host can take now.
func (p *pass) hostCapacity(jc *jobCtx, h *hostCtx) int {
	n := h.freeSlots()
	if jlu := h.Cfg.JLU; jlu > 0 {
		n = min(n, jlu-h.userUsed[jc.j.User])
	}
	if hj := jc.q.cfg.HJobLimit; hj > 0 {
		n = min(n, hj-h.queueUsed[jc.j.Queue])
	}
	if pj := jc.q.cfg.PJobLimit; pj > 0 {
		cpus := max(h.NCPUs, 1)
		lim := int(pj*float64(cpus) + 0.999999)
		n = min(n, lim-h.queueUsed[jc.j.Queue])
	}
	if jc.j.Spec.Exclusive {
		if h.hasJobs {
			return 0
		}
	}
	return max(n, 0)
}

// orderHosts sorts eligible hosts: -m preference, queue HOSTS preference,
// then the order[] section, then cluster order.
func (p *pass) orderHosts(jc *jobCtx, hs []*hostCtx) {
	sort.SliceStable(hs, func(a, b int) bool {
		ha, hb := hs[a], hs[b]
		if jc.asked != nil && jc.asked[ha.Name] != jc.asked[hb.Name] {
			return jc.asked[ha.Name] > jc.asked[hb.Name]
		}
		if jc.q.hosts != nil && jc.q.hosts[ha.Name] != jc.q.hosts[hb.Name] {
			return jc.q.hosts[ha.Name] > jc.q.hosts[hb.Name]
		}
		if jc.req != nil && ha.vals.Num != nil && hb.vals.Num != nil {
			if jc.req.Less(&ha.vals, &hb.vals) {
				return true
			}
			if jc.req.Less(&hb.vals, &ha.vals) {
				return false
			}
		}
		return ha.idx < hb.idx
	})
}

// commit records a dispatch and updates usage for later jobs of the pass.
func (p *pass) commit(jc *jobCtx, hosts []*api.ExecHost) {
	j := jc.j
	p.plan.Dispatches = append(p.plan.Dispatches, Dispatch{Key: j.Key, Queue: j.Queue, Hosts: hosts})
	total := 0
	for _, eh := range hosts {
		h := p.byName[eh.Host]
		n := int(eh.Slots)
		total += n
		h.used += n
		h.userUsed[j.User] += n
		h.queueUsed[j.Queue] += n
		h.hasJobs = true
		if j.Spec.Exclusive {
			h.exclusive = true
		}
		if p.acceptN > 0 {
			h.accepted = true
		}
		h.setSlotValues(p.in.Table)
	}
	jc.q.used += total
	jc.q.userUsed[j.User] += total
	p.user(j.User).used += total
}

// req returns the job's requirement merged with its queue's, compiled.
func (p *pass) req(j *state.Job, q *queueCtx) (*resreq.Compiled, error) {
	local := p.localType(j)
	k := reqKey{j.Spec, j.Queue, local.Type + "/" + local.Model}
	if c, ok := p.s.reqs[k]; ok {
		return c.c, c.err
	}
	c, err := p.compile(j, q, local)
	p.s.reqs[k] = &compiled{c, err}
	return c, err
}

func (p *pass) localType(j *state.Job) resreq.Local {
	if h := p.in.Config.BatchHost(j.Spec.FromHost); h != nil {
		return resreq.Local{Type: h.Type, Model: h.Model}
	}
	for _, h := range p.hosts {
		if strings.EqualFold(h.Name, j.Spec.FromHost) {
			return resreq.Local{Type: h.Type, Model: h.Model}
		}
	}
	return resreq.Local{}
}

func (p *pass) compile(j *state.Job, q *queueCtx, local resreq.Local) (*resreq.Compiled, error) {
	opts := resreq.Options{Strict: p.in.Strict, Context: resreq.CtxBsub, Table: p.in.Table, Unit: p.in.Unit}
	var jr *resreq.ResReq
	var err error
	if len(j.Spec.ResReq) > 0 {
		if jr, err = resreq.ParseMulti(j.Spec.ResReq, opts); err != nil {
			return nil, err
		}
	}
	var qr *resreq.ResReq
	if q.cfg.ResReq.Parsed != nil {
		qr = q.cfg.ResReq.Parsed
	} else if q.cfg.ResReq.Text != "" {
		qopts := opts
		qopts.Context = resreq.CtxQueue
		if qr, err = resreq.Parse(q.cfg.ResReq.Text, qopts); err != nil {
			qr = nil // ckconfig reported it; the queue runs without it
		}
	}
	var r *resreq.ResReq
	switch {
	case jr != nil && qr != nil:
		if r, err = resreq.Merge(jr, qr); err != nil {
			return nil, err
		}
	case jr != nil:
		r = jr
	case qr != nil:
		r = qr
	default:
		if r, err = resreq.Parse("", opts); err != nil {
			return nil, err
		}
	}
	return r.Compile(p.in.Table, local)
}
