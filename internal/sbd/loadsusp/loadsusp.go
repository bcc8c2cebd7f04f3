package loadsusp

import (
	"math"
	"sort"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/resreq"
)

// Suspend reason bits (LSB_SUSP_REASONS) this package sets or reads.
const (
	SuspUserResume  = 0x1
	SuspUserStop    = 0x2
	SuspQueueWindow = 0x8
	SuspLoadReason  = 0x40
	SuspStopCond    = 0x200
	SuspResumeCond  = 0x400
	SuspPgIt        = 0x800
	SuspLoadUnavail = 0x2000
	SuspAdminStop   = 0x4000
)

// resumable are the reasons a system suspension may have for the load check
// to resume it; a job stopped by a user (USUSP) or preempted by mbatchd is
// resumed only on request.
const resumable = SuspUserResume | SuspQueueWindow | SuspLoadReason | SuspStopCond | SuspResumeCond | SuspPgIt | SuspLoadUnavail

// Threshold is a load index's loadSched/loadStop pair, by table index.
type Threshold struct {
	Index             int
	Sched, Stop       float64
	HasSched, HasStop bool
}

// Job is what the decision needs to know of a job on the host.
type Job struct {
	Key      string
	Priority int   // its queue's PRIORITY
	Start    int64 // when it started (later jobs are suspended first)
	State    api.JobState
	Reasons  int32 // current suspend reasons
	Forced   bool  // brun -f: never suspended for load or windows
	// Queue-level conditions: thresholds, and STOP_COND/RESUME_COND (nil
	// when undefined; a defined one replaces the thresholds for its side).
	Thresholds []Threshold
	StopCond   *resreq.Compiled
	ResumeCond *resreq.Compiled
	WindowOpen bool // the queue's RUN_WINDOW is open
	// TERMINATE_WHEN: terminate instead of suspending.
	TerminateOnWindow, TerminateOnLoad bool
}

// Host is the host's load and thresholds.
type Host struct {
	// Load holds the host's values by resource table index (effective
	// run queue lengths); nil when LIM's load is unavailable.
	Load       *resreq.Host
	Thresholds []Threshold
	// Increasing reports, by table index, whether more is more loaded.
	Increasing func(index int) bool
	PGSuspIT   time.Duration
}

// Op is what to do to a job.
type Op int

// Operations.
const (
	Suspend Op = iota + 1
	Resume
	Terminate
)

// Action is one decision.
type Action struct {
	Key        string
	Op         Op
	Reasons    int32
	Subreason  int32
	TermReason string
}

// Decide returns what to do this turn. suspendAllowed is false when a job
// was suspended for load within the last SBD_SLEEP_TIME (at most one per
// interval). Window closures apply to every job of the queue at once.
func Decide(h Host, jobs []Job, suspendAllowed bool) []Action {
	var out []Action
	running := 0
	for _, j := range jobs {
		if j.State == api.StateRun {
			running++
		}
	}
	// Run windows.
	for _, j := range jobs {
		if j.State != api.StateRun || j.Forced || j.WindowOpen {
			continue
		}
		if j.TerminateOnWindow {
			out = append(out, Action{Key: j.Key, Op: Terminate, TermReason: "TERM_WINDOW"})
		} else {
			out = append(out, Action{Key: j.Key, Op: Suspend, Reasons: SuspQueueWindow})
		}
		running--
	}
	acted := map[string]bool{}
	for _, a := range out {
		acted[a.Key] = true
	}
	// Load: lowest priority first, the latest started first among equals.
	if suspendAllowed && h.Load != nil {
		cands := sorted(jobs, func(a, b *Job) bool {
			if a.Priority != b.Priority {
				return a.Priority < b.Priority
			}
			return a.Start > b.Start
		})
		idle := value(h.Load, resreq.IdxIt)
		for _, j := range cands {
			if j.State != api.StateRun || j.Forced || acted[j.Key] {
				continue
			}
			// The only batch job of an interactively idle host keeps
			// running: its own load must not suspend it.
			if running == 1 && idle >= 1 {
				break
			}
			reasons, sub, ok := h.stopReason(j)
			if !ok {
				continue
			}
			if j.TerminateOnLoad {
				out = append(out, Action{Key: j.Key, Op: Terminate, TermReason: "TERM_LOAD"})
			} else {
				out = append(out, Action{Key: j.Key, Op: Suspend, Reasons: reasons, Subreason: sub})
			}
			break
		}
	}
	// Resumption: highest priority first, the earliest started first.
	cands := sorted(jobs, func(a, b *Job) bool {
		if a.Priority != b.Priority {
			return a.Priority > b.Priority
		}
		return a.Start < b.Start
	})
	for _, j := range cands {
		if j.State != api.StateSSusp || j.Reasons&^resumable != 0 || j.Reasons == 0 || !j.WindowOpen {
			continue
		}
		if h.Load == nil || !h.schedOK(j) {
			continue
		}
		out = append(out, Action{Key: j.Key, Op: Resume})
		break
	}
	return out
}

// sorted orders pointers to the jobs (the records are not copied).
func sorted(jobs []Job, less func(a, b *Job) bool) []*Job {
	c := make([]*Job, len(jobs))
	for i := range jobs {
		c[i] = &jobs[i]
	}
	sort.SliceStable(c, func(i, k int) bool { return less(c[i], c[k]) })
	return c
}

func value(h *resreq.Host, i int) float64 {
	if h == nil || i >= len(h.Num) {
		return math.NaN()
	}
	return h.Num[i]
}

func (h Host) increasing(i int) bool {
	if h.Increasing != nil {
		return h.Increasing(i)
	}
	def := resreq.BuiltinTable()
	return i < def.Len() && def.Def(i).Increasing
}

// beyond reports whether load v is past limit in the index's direction.
func (h Host) beyond(i int, v, limit float64) bool {
	if v != v {
		return false
	}
	if h.increasing(i) {
		return v > limit
	}
	return v < limit
}

// stopReason reports whether a suspending condition holds for job j:
// a host or queue loadStop exceeded, or the queue's STOP_COND true.
func (h Host) stopReason(j *Job) (reasons, sub int32, ok bool) {
	idleLong := h.PGSuspIT > 0 && value(h.Load, resreq.IdxIt)*float64(time.Minute) > float64(h.PGSuspIT)
	check := func(ts []Threshold) (int32, bool) {
		for _, t := range ts {
			if !t.HasStop || (t.Index == resreq.IdxPg && idleLong) {
				continue
			}
			if h.beyond(t.Index, value(h.Load, t.Index), t.Stop) {
				return int32(t.Index), true
			}
		}
		return 0, false
	}
	if i, hit := check(h.Thresholds); hit {
		return SuspLoadReason, i, true
	}
	if j.StopCond != nil {
		if j.StopCond.Select(h.Load) {
			return SuspStopCond, 0, true
		}
		return 0, 0, false
	}
	if i, hit := check(j.Thresholds); hit {
		return SuspLoadReason, i, true
	}
	return 0, 0, false
}

// schedOK reports whether every resuming condition holds for job j: the
// host's and the queue's loadSched (or the queue's RESUME_COND instead).
func (h Host) schedOK(j *Job) bool {
	within := func(ts []Threshold) bool {
		for _, t := range ts {
			if !t.HasSched {
				continue
			}
			v := value(h.Load, t.Index)
			if v != v || h.beyond(t.Index, v, t.Sched) {
				return false
			}
		}
		return true
	}
	if !within(h.Thresholds) {
		return false
	}
	if j.ResumeCond != nil {
		return j.ResumeCond.Select(h.Load)
	}
	return within(j.Thresholds)
}

// Thresholds converts api thresholds to table indices; unknown index names
// are dropped.
func Thresholds(t *resreq.Table, in []*api.Threshold) []Threshold {
	var out []Threshold
	for _, x := range in {
		i, ok := t.Index(x.Index)
		if !ok {
			continue
		}
		out = append(out, Threshold{Index: i, Sched: x.Sched, Stop: x.Stop, HasSched: x.HasSched, HasStop: x.HasStop})
	}
	return out
}

// Cond compiles a STOP_COND or RESUME_COND; "" gives nil.
func Cond(t *resreq.Table, s string) (*resreq.Compiled, error) {
	if s == "" {
		return nil, nil
	}
	r, err := resreq.Parse(s, resreq.Options{Context: resreq.CtxCond, Table: t})
	if err != nil {
		return nil, err
	}
	return r.Compile(t, resreq.Local{})
}
