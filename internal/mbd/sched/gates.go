package sched

import (
	"sort"
	"strings"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/mbd/depend"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
)

// jobCtx is one job being placed.
type jobCtx struct {
	j           *state.Job
	q           *queueCtx
	req         *reqEntry
	asked       map[int32]int // -m hosts with preference; nil = any
	askedKey    string
	excludedKey string
	slots       int
	// ownRsv is set when the job holds reserved slots: its view of those
	// hosts is its own, so it bypasses the class caches.
	ownRsv bool
	// backfill: the job may use slots reserved for jobs predicted to start
	// after it ends (its run limit).
	backfill    bool
	backfillEnd time.Time
	// runLimit is an interruptible backfill dispatch's run limit.
	runLimit time.Duration
	curView  view
	// noReasons is set while the job looks for hosts whose rejections
	// nobody reads (a backfill attempt, a reservation): the walk does not
	// count them by reason.
	noReasons bool
}

func time_(n int) time.Duration { return time.Duration(n) }

type queueGate struct{}

func (queueGate) Name() string { return "queue" }
func (queueGate) Gate(p *pass, jc *jobCtx) []*api.PendReason {
	if !jc.q.open {
		return p.one(jc.q.reason)
	}
	return nil
}

type holdGate struct{}

func (holdGate) Name() string { return "hold" }
func (holdGate) Gate(p *pass, jc *jobCtx) []*api.PendReason {
	if jc.j.State == api.StatePSusp {
		return p.one(PendUserStop)
	}
	return nil
}

type beginGate struct{}

func (beginGate) Name() string { return "begin-time" }
func (beginGate) Gate(p *pass, jc *jobCtx) []*api.PendReason {
	if b := jc.j.Spec.BeginTime; b > 0 && b > p.in.Now.Unix() {
		p.wakeAt(time.Unix(b, 0))
		return p.one(PendJobStartTime)
	}
	return nil
}

// Pending reasons of a job whose pre-execution command failed (sbatchd
// sends it back with them).
const (
	PendJobPreExecFailed   int32 = 6
	PendQueuePreExecFailed int32 = 306
)

// retryGate holds a job whose pre-execution command failed until the next
// dispatch turn (MBD_SLEEP_TIME after it came back), as LSF does: it is
// not dispatched again at once, in a loop of failing pre-execs, and keeps
// its reason meanwhile.
type retryGate struct{}

func (retryGate) Name() string { return "pre-exec-retry" }
func (retryGate) Gate(p *pass, jc *jobCtx) []*api.PendReason {
	j := jc.j
	if j.PendReason != PendJobPreExecFailed && j.PendReason != PendQueuePreExecFailed {
		return nil
	}
	if at := time.Unix(j.PendSince, 0).Add(p.cfg.Params.MBDSleepTime); p.in.Now.Before(at) {
		p.wakeAt(at)
		return p.one(j.PendReason)
	}
	return nil
}

type dependGate struct{}

func (dependGate) Name() string { return "dependency" }
func (dependGate) Gate(p *pass, jc *jobCtx) []*api.PendReason {
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
		return p.one(PendJobDepInvalid)
	}
	switch depend.Eval(e, &resolver{v: p.in.View, user: jc.j.User, index: jc.j.Index, lastSub: p.cfg.Params.JobDepLastSub}) {
	case depend.Waiting:
		return p.one(PendJobDepend)
	case depend.Never:
		return p.one(PendJobDepInvalid)
	}
	return nil
}

// resolver answers dependency references from the state, for the job (or
// array element: index) whose condition it is.
type resolver struct {
	v       *state.View
	user    string
	index   int32
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
	if ref.Each {
		if r.index == 0 {
			return nil // [*] of a job that is no array element: none
		}
		ref.Index, ref.Each = r.index, false // the element of the same index
	}
	var jobs []*state.Job
	RefJobs(r.v, r.user, ref, func(j *state.Job) { jobs = append(jobs, j) })
	if r.lastSub && ref.JobID == 0 && len(jobs) > 0 {
		last := jobs[0]
		for _, j := range jobs {
			if j.ID > last.ID {
				last = j
			}
		}
		jobs = []*state.Job{last}
	}
	out := make([]depend.JobInfo, len(jobs))
	for i, j := range jobs {
		out[i] = info(j)
	}
	return out
}

// RefJobs calls fn for each job a dependency reference names for user: the
// job of an ID, or its array's elements; the user's jobs of a name (name* a
// prefix); with an index, only that element. [*] (ref.Each) is the caller's
// to resolve to an index first; RefJobs ignores it.
func RefJobs(v *state.View, user string, ref depend.Ref, fn func(*state.Job)) {
	if ref.JobID != 0 {
		switch j := v.Job(state.Key{ID: ref.JobID, Index: ref.Index}); {
		case j != nil:
			fn(j)
		case ref.Index == 0:
			v.Elements(ref.JobID, func(j *state.Job) bool { fn(j); return true })
		}
		return
	}
	each := func(j *state.Job) {
		if ref.Index == 0 || j.Index == ref.Index {
			fn(j)
		}
	}
	if prefix, wild := strings.CutSuffix(ref.Name, "*"); wild {
		v.NamesOf(user, func(n string) bool { return strings.HasPrefix(n, prefix) }, each)
		return
	}
	for _, j := range v.ByName(user, ref.Name) {
		each(j)
	}
}

type arrayLimitGate struct{}

func (arrayLimitGate) Name() string { return "array-limit" }
func (arrayLimitGate) Gate(p *pass, jc *jobCtx) []*api.PendReason {
	a := jc.j.Array
	if a == nil || a.Limit <= 0 {
		return nil
	}
	if p.arrayRun == nil {
		p.arrayRun = map[int64]int{}
	}
	running, ok := p.arrayRun[a.ID]
	if !ok {
		p.in.View.Elements(a.ID, func(e *state.Job) bool {
			if e.State == api.StateRun || e.State == api.StateSSusp || e.State == api.StateUSusp {
				running++
			}
			return true
		})
		p.arrayRun[a.ID] = running
	}
	if running >= int(a.Limit) {
		return p.one(PendArrayJLimit)
	}
	return nil
}

type requirementGate struct{}

func (requirementGate) Name() string { return "requirement" }
func (requirementGate) Gate(p *pass, jc *jobCtx) []*api.PendReason {
	if jc.req.err != nil {
		if jc.req.reasons == nil {
			jc.req.reasons = []*api.PendReason{{Code: PendSysUnable, Detail: jc.req.err.Error()}}
		}
		return jc.req.reasons
	}
	return nil
}

type askedGate struct{}

func (askedGate) Name() string { return "asked-hosts" }
func (askedGate) Gate(p *pass, jc *jobCtx) []*api.PendReason {
	if len(jc.j.Spec.AskedHosts) > 0 {
		key := strings.Join(jc.j.Spec.AskedHosts, " ")
		if p.asked == nil {
			p.asked = map[string]map[int32]int{}
		}
		m, ok := p.asked[key]
		if !ok {
			m = map[int32]int{}
			for _, a := range jc.j.Spec.AskedHosts {
				name, pref := splitPref(a)
				for _, hn := range expandHostName(p, name) {
					if h := p.byName[hn]; h != nil {
						if cur, ok := m[h.idx]; !ok || pref > cur {
							m[h.idx] = pref
						}
					}
				}
			}
			p.asked[key] = m
		}
		jc.asked, jc.askedKey = m, key
	}
	if p.restrict != nil {
		key := jc.askedKey + "|" + p.restrictKey
		if p.asked == nil {
			p.asked = map[string]map[int32]int{}
		}
		m, ok := p.asked[key]
		if !ok {
			m = map[int32]int{}
			for idx, pref := range p.restrict {
				if jc.asked == nil {
					m[idx] = pref
				} else if ap, in := jc.asked[idx]; in {
					m[idx] = ap
				}
			}
			p.asked[key] = m
		}
		jc.asked, jc.askedKey = m, key
	}
	if len(jc.j.ExcludedHosts) > 0 {
		ex := append([]string(nil), jc.j.ExcludedHosts...)
		sort.Strings(ex)
		jc.excludedKey = strings.Join(ex, " ")
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

// queueLimitGate: QJOB_LIMIT and UJOB_LIMIT count every started job of the
// queue, suspended ones included (lsf-reference §4.2).
type queueLimitGate struct{}

func (queueLimitGate) Name() string { return "queue-limits" }
func (queueLimitGate) Gate(p *pass, jc *jobCtx) []*api.PendReason {
	cfg := jc.q.cfg
	if cfg.QJobLimit > 0 && jc.q.used+jc.slots > cfg.QJobLimit {
		if jc.slots > 1 && jc.q.used < cfg.QJobLimit {
			return p.one(PendQuePJobLimit)
		}
		return p.one(PendQueJobLimit)
	}
	if cfg.UJobLimit > 0 && jc.q.userUsed[jc.j.User]+jc.slots > cfg.UJobLimit {
		if jc.slots > 1 && jc.q.userUsed[jc.j.User] < cfg.UJobLimit {
			return p.one(PendQueUsrPJLimit)
		}
		return p.one(PendQueUsrJLimit)
	}
	return nil
}

// userLimitGate: MAX_JOBS of lsb.users for the user (its own row, a
// group@ row of one of its groups, else default) and for each of its
// groups as a whole (the group's row, else default). With preemption a
// preemptive queue does not count suspended jobs against the user's own
// limit, nor against group limits with PREEMPT_FOR=GROUP_MAX.
type userLimitGate struct{}

func (userLimitGate) Name() string { return "user-limits" }
func (userLimitGate) Gate(p *pass, jc *jobCtx) []*api.PendReason {
	us := p.cfg.Users
	if us == nil || len(us.Users) == 0 {
		return nil
	}
	u := p.user(jc.j.User)
	if l := p.userRow(jc.j.User); l != nil && l.MaxJobs >= 0 {
		used := u.run + u.susp
		if jc.q.preemptive {
			used = u.run
		}
		if used+jc.slots > l.MaxJobs {
			if jc.slots > 1 && used < l.MaxJobs {
				return p.one(PendUserPJobLimit)
			}
			return p.one(PendUserJobLimit)
		}
	}
	for _, g := range p.userGroups[jc.j.User] {
		l := us.Limit(g, false)
		if l == nil {
			l = us.Limit("default", false)
		}
		if l == nil || l.MaxJobs < 0 {
			continue
		}
		gc := p.group(g)
		used := gc.run + gc.susp
		if jc.q.preemptive && p.cfg.Params.HasPreemptFor("GROUP_MAX") {
			used = gc.run
		}
		if used+jc.slots > l.MaxJobs {
			if jc.slots > 1 && used < l.MaxJobs {
				return p.one(PendUGrpPJobLimit)
			}
			return p.one(PendUGrpJobLimit)
		}
	}
	return nil
}

type clusterLimitGate struct{}

func (clusterLimitGate) Name() string { return "resource-limits" }
func (clusterLimitGate) Gate(p *pass, jc *jobCtx) []*api.PendReason {
	return p.limits.jobRoom(p, jc)
}

type poolGate struct{}

func (poolGate) Name() string { return "slot-pool" }
func (poolGate) Gate(p *pass, jc *jobCtx) []*api.PendReason {
	return p.poolRoom(jc)
}
