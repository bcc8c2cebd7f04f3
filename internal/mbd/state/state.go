package state

import (
	"sort"
	"sync"

	"github.com/basalt-lsf/basalt/api"
)

const (
	pendState  = api.StatePend
	psuspState = api.StatePSusp
)

// QueueState is a queue's administrative state (badmin qopen/qclose/qact/qinact).
type QueueState struct {
	Closed   bool
	Inactive bool
}

// HostState is a host's administrative state (badmin hopen/hclose).
type HostState struct {
	Closed  bool
	Comment string
	Time    int64
}

// State is mbatchd's state. The zero value is not usable; call New.
type State struct {
	mu sync.RWMutex

	jobs    map[Key]*Job
	arrays  map[int64]*Array
	pending map[string]*pendingList // by queue
	onHost  map[string]map[Key]*Job // started jobs by execution host
	byName  map[nameKey][]*Job      // jobs by (user, name), submission order
	queues  map[string]*QueueState
	hosts   map[string]*HostState
	envs    *envTable
	strs    stringTable
	specs   map[*Spec]int // spec -> jobs using it
	bases   *baseTable

	lastJobID   int64 // ID of the last submission applied, in log order
	lastOrder   int64
	finished    int64 // jobs finished since the last event log switch
	masterStart int64
	applied     uint64 // last applied log index
	applying    uint64 // index of the entry being applied (Job.StateIndex)
	counts      map[api.JobState]int
}

type nameKey struct{ user, name string }

// New returns an empty state.
func New() *State {
	return &State{
		jobs:    map[Key]*Job{},
		arrays:  map[int64]*Array{},
		pending: map[string]*pendingList{},
		onHost:  map[string]map[Key]*Job{},
		byName:  map[nameKey][]*Job{},
		queues:  map[string]*QueueState{},
		hosts:   map[string]*HostState{},
		envs:    newEnvTable(),
		strs:    stringTable{},
		specs:   map[*Spec]int{},
		bases:   newBaseTable(),
		counts:  map[api.JobState]int{},
	}
}

// View runs fn with read access to the state.
func (s *State) View(fn func(v *View)) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	fn(&View{s})
}

// View is read access to the state, valid only inside State.View.
type View struct{ s *State }

// Job returns the job with key k, or nil.
func (v *View) Job(k Key) *Job { return v.s.jobs[k] }

// Array returns array id's shared data, or nil.
func (v *View) Array(id int64) *Array { return v.s.arrays[id] }

// Elements calls fn for each element of array id in index order.
func (v *View) Elements(id int64, fn func(*Job) bool) {
	a := v.s.arrays[id]
	if a == nil {
		return
	}
	for _, i := range a.Indices {
		if j := v.s.jobs[Key{id, i}]; j != nil && !fn(j) {
			return
		}
	}
}

// NumJobs is the number of jobs and array elements held.
func (v *View) NumJobs() int { return len(v.s.jobs) }

// Count returns how many jobs are in state st.
func (v *View) Count(st api.JobState) int { return v.s.counts[st] }

// Jobs calls fn for every job in ID order until fn returns false.
func (v *View) Jobs(fn func(*Job) bool) {
	keys := make([]Key, 0, len(v.s.jobs))
	for k := range v.s.jobs {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].ID != keys[j].ID {
			return keys[i].ID < keys[j].ID
		}
		return keys[i].Index < keys[j].Index
	})
	for _, k := range keys {
		if !fn(v.s.jobs[k]) {
			return
		}
	}
}

// Pending calls fn for the pending (PEND and PSUSP) jobs of queue in
// dispatch order until fn returns false.
func (v *View) Pending(queue string, fn func(*Job) bool) {
	if p := v.s.pending[queue]; p != nil {
		p.each(fn)
	}
}

// PendingStamp identifies what a queue's pending list holds: the jobs, their
// order and their submissions. Two stamps of a queue are equal only if
// Pending would call fn with the same jobs in the same order, each with the
// same Spec and slots (a scheduler keeps what it derived from a list while
// the stamp stays). The zero stamp is that of a queue that never had
// pending jobs.
type PendingStamp struct {
	list    *pendingList
	version uint64
}

// PendingStamp returns queue's pending list's stamp.
func (v *View) PendingStamp(queue string) PendingStamp {
	if p := v.s.pending[queue]; p != nil {
		return PendingStamp{p, p.version}
	}
	return PendingStamp{}
}

// PendingQueues returns the queues that have pending jobs.
func (v *View) PendingQueues() []string {
	var qs []string
	for q, p := range v.s.pending {
		if len(p.jobs) > p.dead {
			qs = append(qs, q)
		}
	}
	sort.Strings(qs)
	return qs
}

// Listed reports whether a pending job is in its queue's dispatch list
// (Pending walks it); a job outside it has position 0.
func (v *View) Listed(j *Job) bool { return j.inPending != nil }

// Position returns a pending job's 1-based position in its queue, or 0.
func (v *View) Position(j *Job) int {
	if j.inPending == nil {
		return 0
	}
	return j.inPending.position(j)
}

// OnHost calls fn for each started job (RUN, SSUSP, USUSP, UNKWN, ZOMBI)
// holding slots on host.
func (v *View) OnHost(host string, fn func(*Job) bool) {
	for _, j := range v.s.onHost[host] {
		if !fn(j) {
			return
		}
	}
}

// StartedHosts lists the hosts that hold started jobs.
func (v *View) StartedHosts() []string {
	hs := make([]string, 0, len(v.s.onHost))
	for h, m := range v.s.onHost {
		if len(m) > 0 {
			hs = append(hs, h)
		}
	}
	sort.Strings(hs)
	return hs
}

// ByName returns the jobs of user named name, in submission order.
func (v *View) ByName(user, name string) []*Job { return v.s.byName[nameKey{user, name}] }

// NamesOf calls fn for each (user, name) key whose name matches pred.
func (v *View) NamesOf(user string, match func(name string) bool, fn func(*Job)) {
	for k, js := range v.s.byName {
		if (user == "" || k.user == user) && match(k.name) {
			for _, j := range js {
				fn(j)
			}
		}
	}
}

// QueueState returns queue's administrative state (zero: open and active).
func (v *View) QueueState(queue string) QueueState {
	if q := v.s.queues[queue]; q != nil {
		return *q
	}
	return QueueState{}
}

// HostState returns host's administrative state.
func (v *View) HostState(host string) HostState {
	if h := v.s.hosts[host]; h != nil {
		return *h
	}
	return HostState{}
}

// LastJobID is the ID of the last submission applied, in log order: new
// IDs continue after it (wrapping at MAX_JOBID).
func (v *View) LastJobID() int64 { return v.s.lastJobID }

// HasJobID reports whether any job or array with this ID is in the system.
func (v *View) HasJobID(id int64) bool {
	if _, ok := v.s.arrays[id]; ok {
		return true
	}
	_, ok := v.s.jobs[Key{id, 0}]
	return ok
}

// LastOrder is the largest FCFS key handed out.
func (v *View) LastOrder() int64 { return v.s.lastOrder }

// Finished is the number of jobs finished since the last log switch.
func (v *View) Finished() int64 { return v.s.finished }

// Applied is the index of the last applied log entry.
func (v *View) Applied() uint64 { return v.s.applied }
