package sched

import (
	"slices"
	"strings"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/mbd/depend"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
)

// LSF pending reason codes used by the standard plugins (lsbatch.h).
const (
	PendJobStartTime  int32 = 2
	PendJobDepend     int32 = 3
	PendJobDepInvalid int32 = 4
	PendSysUnable     int32 = 35
	PendArrayJLimit   int32 = 38
	PendQueInact      int32 = 301
	PendQueWindow     int32 = 302
	PendQueJobLimit   int32 = 303
	PendQueUsrJLimit  int32 = 304
	PendQueUsrPJLimit int32 = 305
	PendQuePJobLimit  int32 = 314
	PendUserJobLimit  int32 = 601
	PendUserStop      int32 = 607
	PendHostResReq    int32 = 1001
	PendHostNonExcl   int32 = 1002
	PendHostDisabled  int32 = 1301
	PendHostLocked    int32 = 1302
	PendHostLessSlots int32 = 1303
	PendHostWindow    int32 = 1304
	PendHostJobLimit  int32 = 1305
	PendQueProcJLimit int32 = 1306
	PendQueHostJLimit int32 = 1307
	PendHostUsrJLimit int32 = 1309
	PendHostQueMemb   int32 = 1310
	PendHostUsrSpec   int32 = 1311
	PendHostAccptOne  int32 = 1314
	PendLoadUnavail   int32 = 1315
	PendHostNoLIM     int32 = 1316
	PendHostExclusive int32 = 1322
	PendSbdUnreach    int32 = 1601
)

// Gate decides whether a job can be considered at all; it returns the
// reason it cannot, or nil.
type Gate interface {
	Name() string
	Gate(p *pass, jc *jobCtx) *api.PendReason
}

// Filter decides whether a host can take a job; it returns a pending reason
// code, or 0.
type Filter interface {
	Name() string
	Filter(p *pass, jc *jobCtx, h *hostCtx) int32
}

// DefaultGates are the job-level checks, in order.
func DefaultGates() []Gate {
	return []Gate{queueGate{}, holdGate{}, beginGate{}, dependGate{}, arrayLimitGate{}, requirementGate{}, askedGate{}, queueLimitGate{}}
}

// DefaultFilters are the host-level checks, in order.
func DefaultFilters() []Filter {
	return []Filter{statusFilter{}, queueHostsFilter{}, askedFilter{}, excludedFilter{}, windowFilter{},
		acceptFilter{}, exclusiveFilter{}, slotsFilter{}, userSlotsFilter{}, queueHostSlotsFilter{}, selectFilter{}}
}

type queueGate struct{}

func (queueGate) Name() string { return "queue" }
func (queueGate) Gate(p *pass, jc *jobCtx) *api.PendReason {
	if !jc.q.open {
		return &api.PendReason{Code: jc.q.reason}
	}
	return nil
}

type holdGate struct{}

func (holdGate) Name() string { return "hold" }
func (holdGate) Gate(p *pass, jc *jobCtx) *api.PendReason {
	if jc.j.State == api.StatePSusp {
		return &api.PendReason{Code: PendUserStop}
	}
	return nil
}

type beginGate struct{}

func (beginGate) Name() string { return "begin-time" }
func (beginGate) Gate(p *pass, jc *jobCtx) *api.PendReason {
	if b := jc.j.Spec.BeginTime; b > 0 && b > p.in.Now.Unix() {
		p.wakeAt(unixTime(b))
		return &api.PendReason{Code: PendJobStartTime}
	}
	return nil
}

type dependGate struct{}

func (dependGate) Name() string { return "dependency" }
func (dependGate) Gate(p *pass, jc *jobCtx) *api.PendReason {
	d := jc.j.Spec.Dependency
	if d == "" {
		return nil
	}
	e, ok := p.s.deps[jc.j.Spec]
	if !ok {
		var err error
		if e, err = depend.Parse(d); err != nil {
			e = nil
		}
		p.s.deps[jc.j.Spec] = e
	}
	if e == nil {
		return &api.PendReason{Code: PendJobDepInvalid}
	}
	switch depend.Eval(e, &resolver{v: p.in.View, user: jc.j.User, lastSub: p.in.Config.Params.JobDepLastSub}) {
	case depend.Waiting:
		return &api.PendReason{Code: PendJobDepend}
	case depend.Never:
		return &api.PendReason{Code: PendJobDepInvalid}
	}
	return nil
}

// resolver answers dependency references from the state.
type resolver struct {
	v       *state.View
	user    string
	lastSub bool
}

func info(j *state.Job) depend.JobInfo {
	exit := 0
	if j.State == api.StateExit {
		if ws := j.ExitStatus; ws&0x7f == 0 {
			exit = int(ws>>8) & 0xff
		} else {
			exit = 128 + int(ws&0x7f)
		}
	}
	return depend.JobInfo{State: j.State, ExitCode: exit, PostDone: j.PostDone, PostFailed: j.PostFailed, Started: j.RunCount > 0}
}

func (r *resolver) Resolve(ref depend.Ref) []depend.JobInfo {
	var out []depend.JobInfo
	if ref.JobID != 0 {
		if ref.Index != 0 {
			if j := r.v.Job(state.Key{ID: ref.JobID, Index: ref.Index}); j != nil {
				out = append(out, info(j))
			}
			return out
		}
		if j := r.v.Job(state.Key{ID: ref.JobID}); j != nil {
			return []depend.JobInfo{info(j)}
		}
		r.v.Elements(ref.JobID, func(j *state.Job) bool { out = append(out, info(j)); return true })
		return out
	}
	var jobs []*state.Job
	if strings.HasSuffix(ref.Name, "*") {
		prefix := strings.TrimSuffix(ref.Name, "*")
		r.v.NamesOf(r.user, func(n string) bool { return strings.HasPrefix(n, prefix) }, func(j *state.Job) { jobs = append(jobs, j) })
	} else {
		jobs = r.v.ByName(r.user, ref.Name)
	}
	if r.lastSub && len(jobs) > 0 {
		last := jobs[0]
		for _, j := range jobs {
			if j.ID > last.ID {
				last = j
			}
		}
		jobs = []*state.Job{last}
	}
	for _, j := range jobs {
		out = append(out, info(j))
	}
	return out
}

type arrayLimitGate struct{}

func (arrayLimitGate) Name() string { return "array-limit" }
func (arrayLimitGate) Gate(p *pass, jc *jobCtx) *api.PendReason {
	a := jc.j.Array
	if a == nil || a.Limit <= 0 {
		return nil
	}
	running := 0
	p.in.View.Elements(a.ID, func(e *state.Job) bool {
		if e.State == api.StateRun || e.State == api.StateSSusp || e.State == api.StateUSusp {
			running++
		}
		return true
	})
	running += p.startedThisPass(a.ID)
	if running >= int(a.Limit) {
		return &api.PendReason{Code: PendArrayJLimit}
	}
	return nil
}

func (p *pass) startedThisPass(arrayID int64) int {
	n := 0
	for _, d := range p.plan.Dispatches {
		if d.Key.ID == arrayID {
			n++
		}
	}
	return n
}

type requirementGate struct{}

func (requirementGate) Name() string { return "requirement" }
func (requirementGate) Gate(p *pass, jc *jobCtx) *api.PendReason {
	c, err := p.req(jc.j, jc.q)
	if err != nil {
		return &api.PendReason{Code: PendSysUnable, Detail: err.Error()}
	}
	jc.req = c
	return nil
}

type askedGate struct{}

func (askedGate) Name() string { return "asked-hosts" }
func (askedGate) Gate(p *pass, jc *jobCtx) *api.PendReason {
	if len(jc.j.Spec.AskedHosts) == 0 {
		return nil
	}
	jc.asked = map[string]int{}
	for _, a := range jc.j.Spec.AskedHosts {
		name, pref := splitPref(a)
		for _, h := range p.expandHost(name) {
			if cur, ok := jc.asked[h]; !ok || pref > cur {
				jc.asked[h] = pref
			}
		}
	}
	return nil
}

// splitPref splits "host+2" into host and preference (LSF: "+" alone is 1).
func splitPref(s string) (string, int) {
	i := strings.LastIndexByte(s, '+')
	if i <= 0 {
		return s, 0
	}
	if i == len(s)-1 {
		return s[:i], 1
	}
	n := 0
	for _, c := range s[i+1:] {
		if c < '0' || c > '9' {
			return s, 0
		}
		n = n*10 + int(c-'0')
	}
	return s[:i], n
}

// expandHost resolves a host, host group or "others"/"all" name.
func (p *pass) expandHost(name string) []string {
	if name == "all" || name == "others" {
		out := make([]string, len(p.hosts))
		for i, h := range p.hosts {
			out[i] = h.Name
		}
		return out
	}
	if g := p.in.Config.HostGroup(name); g != nil {
		return g.Members
	}
	for _, h := range p.hosts {
		if strings.EqualFold(h.Name, name) {
			return []string{h.Name}
		}
	}
	return nil
}

type queueLimitGate struct{}

func (queueLimitGate) Name() string { return "queue-limits" }
func (queueLimitGate) Gate(p *pass, jc *jobCtx) *api.PendReason {
	cfg := jc.q.cfg
	if cfg.QJobLimit > 0 && jc.q.used+jc.slots > cfg.QJobLimit {
		if jc.slots > 1 && jc.q.used < cfg.QJobLimit {
			return &api.PendReason{Code: PendQuePJobLimit}
		}
		return &api.PendReason{Code: PendQueJobLimit}
	}
	if cfg.UJobLimit > 0 && jc.q.userUsed[jc.j.User]+jc.slots > cfg.UJobLimit {
		if jc.slots > 1 && jc.q.userUsed[jc.j.User] < cfg.UJobLimit {
			return &api.PendReason{Code: PendQueUsrPJLimit}
		}
		return &api.PendReason{Code: PendQueUsrJLimit}
	}
	return nil
}

type statusFilter struct{}

func (statusFilter) Name() string { return "host-status" }
func (statusFilter) Filter(p *pass, jc *jobCtx, h *hostCtx) int32 {
	switch h.Status {
	case "ok", "closed_Full", "closed_Excl":
		return 0
	case "closed_Adm":
		return PendHostDisabled
	case "closed_Lock":
		return PendHostLocked
	case "unreach":
		return PendSbdUnreach
	case "closed_LIM":
		return PendHostNoLIM
	}
	return PendLoadUnavail
}

type queueHostsFilter struct{}

func (queueHostsFilter) Name() string { return "queue-hosts" }
func (queueHostsFilter) Filter(p *pass, jc *jobCtx, h *hostCtx) int32 {
	if jc.q.hosts != nil {
		if _, ok := jc.q.hosts[h.Name]; !ok {
			return PendHostQueMemb
		}
	}
	return 0
}

type askedFilter struct{}

func (askedFilter) Name() string { return "asked-hosts" }
func (askedFilter) Filter(p *pass, jc *jobCtx, h *hostCtx) int32 {
	if jc.asked != nil {
		if _, ok := jc.asked[h.Name]; !ok {
			return PendHostUsrSpec
		}
	}
	return 0
}

type excludedFilter struct{}

func (excludedFilter) Name() string { return "excluded-hosts" }
func (excludedFilter) Filter(p *pass, jc *jobCtx, h *hostCtx) int32 {
	if slices.Contains(jc.j.ExcludedHosts, h.Name) {
		return PendHostUsrSpec
	}
	return 0
}

type windowFilter struct{}

func (windowFilter) Name() string { return "dispatch-window" }
func (windowFilter) Filter(p *pass, jc *jobCtx, h *hostCtx) int32 {
	if h.Cfg != nil && !h.Cfg.DispatchWindow.Always() && !h.Cfg.DispatchWindow.Open(p.in.Now) {
		p.wakeAt(h.Cfg.DispatchWindow.Next(p.in.Now))
		return PendHostWindow
	}
	return 0
}

type acceptFilter struct{}

func (acceptFilter) Name() string { return "job-accept-interval" }
func (acceptFilter) Filter(p *pass, jc *jobCtx, h *hostCtx) int32 {
	if h.accepted {
		p.wakeAt(h.LastDispatch.Add(p.in.Config.Params.MBDSleepTime * durationMul(p.acceptN)))
		return PendHostAccptOne
	}
	return 0
}

type exclusiveFilter struct{}

func (exclusiveFilter) Name() string { return "exclusive" }
func (exclusiveFilter) Filter(p *pass, jc *jobCtx, h *hostCtx) int32 {
	if h.exclusive {
		return PendHostExclusive
	}
	if jc.j.Spec.Exclusive && h.hasJobs {
		return PendHostNonExcl
	}
	return 0
}

type slotsFilter struct{}

func (slotsFilter) Name() string { return "host-slots" }
func (slotsFilter) Filter(p *pass, jc *jobCtx, h *hostCtx) int32 {
	if h.freeSlots() == 0 {
		return PendHostJobLimit
	}
	return 0
}

type userSlotsFilter struct{}

func (userSlotsFilter) Name() string { return "host-user-slots" }
func (userSlotsFilter) Filter(p *pass, jc *jobCtx, h *hostCtx) int32 {
	if h.Cfg != nil && h.Cfg.JLU > 0 && h.userUsed[jc.j.User] >= h.Cfg.JLU {
		return PendHostUsrJLimit
	}
	return 0
}

type queueHostSlotsFilter struct{}

func (queueHostSlotsFilter) Name() string { return "queue-host-slots" }
func (queueHostSlotsFilter) Filter(p *pass, jc *jobCtx, h *hostCtx) int32 {
	cfg := jc.q.cfg
	if cfg.HJobLimit > 0 && h.queueUsed[jc.j.Queue] >= cfg.HJobLimit {
		return PendQueHostJLimit
	}
	if cfg.PJobLimit > 0 {
		lim := int(cfg.PJobLimit*float64(max(h.NCPUs, 1)) + 0.999999)
		if h.queueUsed[jc.j.Queue] >= lim {
			return PendQueProcJLimit
		}
	}
	return 0
}

type selectFilter struct{}

func (selectFilter) Name() string { return "select" }
func (selectFilter) Filter(p *pass, jc *jobCtx, h *hostCtx) int32 {
	if jc.req == nil || h.vals.Num == nil {
		return 0
	}
	if !jc.req.Select(&h.vals) {
		return PendHostResReq
	}
	return 0
}
