package mbd

import (
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/raft"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/cli/output"
	"github.com/basalt-lsf/basalt/internal/job"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
)

// Observer receives measurements mbatchd makes as it works (scheduling
// passes, log commits). Its methods are called on hot paths and must not
// block: a Prometheus histogram observes with atomics. Set it with
// SetObserver before Run.
type Observer interface {
	SchedPass(took time.Duration, examined int)
	Commit(took time.Duration)
}

// SetObserver installs o (safe at any time; commits are observed only
// when it is set before Run).
func (s *Server) SetObserver(o Observer) { s.obs.Store(&o) }

// observer is the installed Observer, or nil.
func (s *Server) observer() Observer {
	if o := s.obs.Load(); o != nil {
		return *o
	}
	return nil
}

// queueCounters are the event counts of one queue since mbatchd started
// (monotonic: Prometheus counters).
type queueCounters struct {
	submitted, dispatched, finished atomic.Uint64
}

// counters maps queue names to their counters. The FSM goroutine is the
// only writer: a new queue copies the map (queues are few) and publishes
// it; scrapes load the pointer and read the atomics, so neither waits.
type counters struct {
	mu sync.Mutex // held only by the writer adding a queue
	m  atomic.Pointer[map[string]*queueCounters]
}

func (c *counters) queue(name string) *queueCounters {
	if m := c.m.Load(); m != nil {
		if q := (*m)[name]; q != nil {
			return q
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.m.Load()
	n := map[string]*queueCounters{}
	if old != nil {
		if q := (*old)[name]; q != nil {
			return q
		}
		for k, v := range *old {
			n[k] = v
		}
	}
	q := &queueCounters{}
	n[name] = q
	c.m.Store(&n)
	return q
}

// count adds an applied entry's submissions, dispatches and finishes to
// their queues' counters (FSM goroutine; errs are the events' apply
// results). A final status repeated for post-execution results is not a
// second finish.
func (c *counters) count(st *state.State, e *api.LogEntry, errs []error) {
	for i, ev := range e.Events {
		if i < len(errs) && errs[i] != nil {
			continue
		}
		switch {
		case ev.JobNew != nil:
			n := uint64(1)
			if len(ev.JobNew.ArrayIndices) > 0 {
				n = uint64(len(ev.JobNew.ArrayIndices))
			}
			c.queue(ev.JobNew.Queue).submitted.Add(n)
		case ev.JobStart != nil:
			if q := st.QueueOf(state.Key{ID: ev.JobStart.JobID, Index: ev.JobStart.Index}); q != "" {
				c.queue(q).dispatched.Add(1)
			}
		case ev.JobStatus != nil:
			s := ev.JobStatus
			if (s.State == api.StateDone || s.State == api.StateExit) && !s.PostDone && !s.PostFailed {
				if q := st.QueueOf(state.Key{ID: s.JobID, Index: s.Index}); q != "" {
					c.queue(q).finished.Add(1)
				}
			}
		}
	}
}

// Stats is mbatchd's state as the metrics collectors read it at scrape
// time: counts over the latest state view and the last published
// scheduling results, with no per-job detail.
type Stats struct {
	// Jobs counts jobs by state name (PEND, RUN...) and queue.
	Jobs []JobCount
	// Pending counts pending jobs by queue and main pending reason (the
	// first of the last pass's reasons; "" when the scheduler has not
	// given one yet).
	Pending []ReasonCount
	Queues  []QueueStats
	Hosts   []HostSlots
	// Shares are the fairshare accounts of fairshare queues at the top of
	// their share trees.
	Shares []ShareStat
	// RaftLastIndex is the log's last index, RaftSnapshotIndex that of
	// its last snapshot (the entries between them are the live log).
	RaftLastIndex, RaftSnapshotIndex uint64
}

// JobCount is a number of jobs in one state and queue.
type JobCount struct {
	State, Queue string
	N            int
}

// ReasonCount is a number of pending jobs with one main reason.
type ReasonCount struct {
	Queue, Reason string
	N             int
}

// QueueStats are a queue's counters since mbatchd started and its slots.
type QueueStats struct {
	Name                            string
	Submitted, Dispatched, Finished uint64
	// SlotsUsed are the slots of the queue's started jobs; SlotsFree the
	// free slots of the hosts the queue may use (hosts with a slot limit,
	// able to take jobs), within QJOB_LIMIT.
	SlotsUsed, SlotsFree int
}

// HostSlots are a batch host's status and slots (Max -1: unlimited).
type HostSlots struct {
	Name, Status string
	Used, Max    int
}

// ShareStat is one share account's dynamic priority in a queue.
type ShareStat struct {
	Queue, Account string
	Priority       float64
}

func started(st api.JobState) bool {
	return st == api.StateRun || st == api.StateSSusp || st == api.StateUSusp
}

// Stats reads the latest state view, configuration and scheduling results
// (safe from any goroutine; one walk over the jobs).
func (s *Server) Stats() *Stats {
	cfg := s.cfg.Current()
	reasons := s.currentReasons()
	out := &Stats{}
	type jk struct {
		st api.JobState
		q  string
	}
	type rk struct{ q, r string }
	jobs := map[jk]int{}
	pend := map[rk]int{}
	qUsed := map[string]int{}
	hostUsed := map[string]int{}
	var hosts []HostSlots
	s.st.View(func(v *state.View) {
		v.Jobs(func(j *state.Job) bool {
			jobs[jk{j.State, j.Queue}]++
			if j.State == api.StatePend {
				r := ""
				if reasons != nil {
					if rs := reasons.Get(j.Key); len(rs) > 0 {
						r = output.PendReasonText(&api.PendReason{Code: rs[0].Code, Subcode: rs[0].Subcode, Detail: rs[0].Detail})
					}
				}
				pend[rk{j.Queue, r}]++
			}
			if started(j.State) {
				for _, eh := range j.ExecHosts {
					qUsed[j.Queue] += int(eh.Slots)
					hostUsed[eh.Host] += int(eh.Slots)
				}
			}
			return true
		})
		for _, h := range s.schedHosts(cfg, v) {
			hosts = append(hosts, HostSlots{Name: h.Name, Status: h.Status, Used: hostUsed[h.Name], Max: h.MaxSlots})
		}
	})
	for k, n := range jobs {
		out.Jobs = append(out.Jobs, JobCount{State: job.Name(k.st), Queue: k.q, N: n})
	}
	for k, n := range pend {
		out.Pending = append(out.Pending, ReasonCount{Queue: k.q, Reason: k.r, N: n})
	}
	out.Hosts = hosts
	free := map[string]int{}
	for _, h := range hosts {
		if h.Status == "ok" && h.Max >= 0 {
			free[h.Name] = max(h.Max-h.Used, 0)
		}
	}
	var ctr map[string]*queueCounters
	if m := s.ctr.m.Load(); m != nil {
		ctr = *m
	}
	for _, q := range cfg.Queues {
		qs := QueueStats{Name: q.Name, SlotsUsed: qUsed[q.Name]}
		if c := ctr[q.Name]; c != nil {
			qs.Submitted, qs.Dispatched, qs.Finished = c.submitted.Load(), c.dispatched.Load(), c.finished.Load()
		}
		if q.Hosts == nil {
			for _, f := range free {
				qs.SlotsFree += f
			}
		} else {
			for _, hp := range q.Hosts {
				qs.SlotsFree += free[hp.Host]
			}
		}
		if q.QJobLimit > 0 {
			qs.SlotsFree = max(min(qs.SlotsFree, q.QJobLimit-qs.SlotsUsed), 0)
		}
		out.Queues = append(out.Queues, qs)
		for _, a := range s.queueShares(q.Name) {
			out.Shares = append(out.Shares, ShareStat{Queue: q.Name, Account: a.Name, Priority: a.Priority})
		}
	}
	if r := s.raftR.Load(); r != nil {
		st := r.Stats()
		out.RaftLastIndex, _ = strconv.ParseUint(st["last_log_index"], 10, 64)
		out.RaftSnapshotIndex, _ = strconv.ParseUint(st["last_snapshot_index"], 10, 64)
	}
	sort.Slice(out.Jobs, func(i, j int) bool {
		a, b := out.Jobs[i], out.Jobs[j]
		return a.Queue < b.Queue || a.Queue == b.Queue && a.State < b.State
	})
	sort.Slice(out.Pending, func(i, j int) bool {
		a, b := out.Pending[i], out.Pending[j]
		return a.Queue < b.Queue || a.Queue == b.Queue && a.Reason < b.Reason
	})
	return out
}

// raftHandle is the running raft, for Stats (set once by Run).
type raftHandle = atomic.Pointer[raft.Raft]
