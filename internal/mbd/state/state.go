package state

import (
	"sort"
	"sync"
	"sync/atomic"

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
//
// The applier (Apply, Restore) owns tables and changes it copy-on-write;
// readers get immutable snapshots of it (see View and the package doc).
type State struct {
	// mu serialises the applier and the publication of a snapshot: a
	// reader waits at most for one entry to apply, never for another
	// reader, and the applier never waits for a reader's work.
	mu sync.Mutex
	tables
	gen   uint64                 // the applier's generation (see generations)
	cur   atomic.Pointer[tables] // the last published snapshot
	dirty atomic.Bool            // applied since cur was published

	// The applier's own: interning tables and use counts.
	envs     *envTable
	strs     stringTable
	specs    map[*Spec]int // spec -> jobs using it
	bases    *baseTable
	applying uint64   // index of the entry being applied (Job.StateIndex)
	keyOrder []keyRef // subKeys in the order they were recorded
}

// tables is one version of everything readers see. The applier's version
// is State.tables; a published one is never written again.
type tables struct {
	jobs    cowMap[Key, *Job]
	arrays  cowMap[int64, *Array]
	pending cowSmall[string, *pendingList] // by queue
	onHost  cowMap[string, *hostJobs]      // started jobs by execution host
	started cowMap[Key, *Job]              // the jobs of onHost, once each
	byName  cowMap[nameKey, *nameList]     // jobs by (user, name), submission order
	queues  cowSmall[string, QueueState]
	hosts   cowSmall[string, HostState]
	counts  cowSmall[api.JobState, int]
	subKeys cowMap[nameKey, *SubmitKey]  // (user, submission key)
	jgroups cowSmall[string, JobGroup]   // job groups by path
	fwd     cowSmall[Key, bool]          // jobs whose forward is active
	stale   cowSmall[Key, bool]          // jobs with remote copies to kill (Job.FwdStale)
	rsvs    cowSmall[string, *api.EvRsv] // advance reservations by ID (rsv.go)

	lastJobID   int64 // ID of the last submission applied, in log order
	lastOrder   int64
	finished    int64 // jobs finished since the last event log switch
	masterStart int64
	applied     uint64 // last applied log index
}

type nameKey struct{ user, name string }

// New returns an empty state.
func New() *State {
	s := &State{
		tables: tables{
			jobs:    newCowMap[Key, *Job](hashKey),
			arrays:  newCowMap[int64, *Array](hashID),
			onHost:  newCowMap[string, *hostJobs](hashString),
			started: newCowMap[Key, *Job](hashKey),
			byName:  newCowMap[nameKey, *nameList](hashName),
			subKeys: newCowMap[nameKey, *SubmitKey](hashName),
		},
		envs:  newEnvTable(),
		strs:  stringTable{},
		specs: map[*Spec]int{},
		bases: newBaseTable(),
	}
	s.publish()
	return s
}

// publish makes the applier's tables the current snapshot and starts a new
// generation, so that the applier copies whatever it changes next. Called
// with mu held (or before the State is shared).
func (s *State) publish() {
	t := new(tables)
	*t = s.tables
	s.cur.Store(t)
	s.gen = nextGen()
	s.dirty.Store(false)
}

// snapshot returns the state as of the last entry applied: the published
// snapshot, or a new one when entries were applied since.
func (s *State) snapshot() *tables {
	if !s.dirty.Load() {
		return s.cur.Load()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dirty.Load() {
		s.publish()
	}
	return s.cur.Load()
}

// Latest returns an immutable view of the state as of the last entry
// applied. It stays valid (and unchanged) for as long as it is kept:
// later entries apply to new versions of what they change.
func (s *State) Latest() *View { return &View{s.snapshot()} }

// View runs fn with a snapshot of the state (see Latest). No lock is held
// while fn runs: entries apply meanwhile, and fn does not see them.
func (s *State) View(fn func(v *View)) { fn(s.Latest()) }

// View is an immutable snapshot of the state. Its jobs and everything they
// point to are shared with the applier and with other views: readers must
// not modify them.
type View struct{ s *tables }

// Job returns the job with key k, or nil.
func (v *View) Job(k Key) *Job {
	j, _ := v.s.jobs.get(k)
	return j
}

// Array returns array id's shared data, or nil.
func (v *View) Array(id int64) *Array {
	a, _ := v.s.arrays.get(id)
	return a
}

// Elements calls fn for each element of array id in index order.
func (v *View) Elements(id int64, fn func(*Job) bool) {
	a := v.Array(id)
	if a == nil {
		return
	}
	for _, i := range a.Indices {
		if j := v.Job(Key{id, i}); j != nil && !fn(j) {
			return
		}
	}
}

// NumJobs is the number of jobs and array elements held.
func (v *View) NumJobs() int { return v.s.jobs.n }

// Count returns how many jobs are in state st.
func (v *View) Count(st api.JobState) int { return v.s.counts.m[st] }

// Jobs calls fn for every job in ID order until fn returns false.
func (v *View) Jobs(fn func(*Job) bool) {
	keys := make([]Key, 0, v.s.jobs.n)
	v.s.jobs.each(func(k Key, _ *Job) bool {
		keys = append(keys, k)
		return true
	})
	sortKeys(keys)
	for _, k := range keys {
		if !fn(v.Job(k)) {
			return
		}
	}
}

func sortKeys(keys []Key) {
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].ID != keys[j].ID {
			return keys[i].ID < keys[j].ID
		}
		return keys[i].Index < keys[j].Index
	})
}

// Pending calls fn for the pending (PEND and PSUSP) jobs of queue in
// dispatch order until fn returns false.
func (v *View) Pending(queue string, fn func(*Job) bool) {
	if p := v.s.pending.m[queue]; p != nil {
		p.each(fn)
	}
}

// PendingStamp identifies what a queue's pending list holds: the jobs, their
// order and their submissions. Two stamps of a queue are equal only if
// Pending would call fn with the same jobs (the same records: a job changed
// since is a new record) in the same order, each with the same Spec and
// slots (a scheduler keeps what it derived from a list while the stamp
// stays). The zero stamp is that of a queue that never had pending jobs.
type PendingStamp struct {
	list    *listID
	version uint64
}

// PendingStamp returns queue's pending list's stamp.
func (v *View) PendingStamp(queue string) PendingStamp {
	if p := v.s.pending.m[queue]; p != nil {
		return PendingStamp{p.id, p.version}
	}
	return PendingStamp{}
}

// PendingQueues returns the queues that have pending jobs.
func (v *View) PendingQueues() []string {
	var qs []string
	for q, p := range v.s.pending.m {
		if p.n > p.dead {
			qs = append(qs, q)
		}
	}
	sort.Strings(qs)
	return qs
}

// Listed reports whether a pending job is in its queue's dispatch list
// (Pending walks it); a job outside it has position 0. j may come from
// another view: the answer is this view's.
func (v *View) Listed(j *Job) bool {
	c := v.Job(j.Key)
	return c != nil && c.listed
}

// Position returns a pending job's 1-based position in its queue, or 0.
func (v *View) Position(j *Job) int {
	c := v.Job(j.Key)
	if c == nil || !c.listed {
		return 0
	}
	if p := v.s.pending.m[c.Queue]; p != nil {
		return p.position(c.Key)
	}
	return 0
}

// OnHost calls fn for each started job (RUN, SSUSP, USUSP, UNKWN, ZOMBI)
// holding slots on host.
func (v *View) OnHost(host string, fn func(*Job) bool) {
	ks, _ := v.s.onHost.get(host)
	if ks == nil {
		return
	}
	for _, j := range ks.jobs {
		if !fn(j) {
			return
		}
	}
}

// Started calls fn once for each started job that OnHost lists under one
// of its hosts, in no particular order, until fn returns false. It visits
// the jobs without a look-up per host: a scheduling pass counts every
// started job this way.
func (v *View) Started(fn func(*Job) bool) {
	v.s.started.each(func(_ Key, j *Job) bool { return fn(j) })
}

// StartedChanges compares the started jobs of v with those of an earlier
// view prev: it calls gone for each record of prev that v does not hold
// (the job ended, or its record changed) and came for each record of v
// that prev did not hold, in no particular order. Its cost follows what
// changed: the parts of the index the two views share are passed over.
func (v *View) StartedChanges(prev *View, gone, came func(*Job)) {
	diff(&v.s.started, &prev.s.started, func(_ Key, j *Job) { gone(j) }, func(_ Key, j *Job) { came(j) })
}

// NumStarted is the number of jobs Started visits.
func (v *View) NumStarted() int { return v.s.started.n }

// StartedHosts lists the hosts that hold started jobs.
func (v *View) StartedHosts() []string {
	hs := make([]string, 0, v.s.onHost.n)
	v.s.onHost.each(func(h string, ks *hostJobs) bool {
		if len(ks.jobs) > 0 {
			hs = append(hs, h)
		}
		return true
	})
	sort.Strings(hs)
	return hs
}

// ByName returns the jobs of user named name, in submission order.
func (v *View) ByName(user, name string) []*Job {
	l, _ := v.s.byName.get(nameKey{user, name})
	if l == nil {
		return nil
	}
	return v.jobsOf(l.keys)
}

func (v *View) jobsOf(keys []Key) []*Job {
	js := make([]*Job, 0, len(keys))
	for _, k := range keys {
		if j := v.Job(k); j != nil {
			js = append(js, j)
		}
	}
	return js
}

// NamesOf calls fn for each (user, name) key whose name matches pred.
func (v *View) NamesOf(user string, match func(name string) bool, fn func(*Job)) {
	v.s.byName.each(func(k nameKey, l *nameList) bool {
		if (user == "" || k.user == user) && match(k.name) {
			for _, key := range l.keys {
				if j := v.Job(key); j != nil {
					fn(j)
				}
			}
		}
		return true
	})
}

// QueueState returns queue's administrative state (zero: open and active).
func (v *View) QueueState(queue string) QueueState { return v.s.queues.m[queue] }

// HostState returns host's administrative state.
func (v *View) HostState(host string) HostState { return v.s.hosts.m[host] }

// LastJobID is the ID of the last submission applied, in log order: new
// IDs continue after it (wrapping at MAX_JOBID).
func (v *View) LastJobID() int64 { return v.s.lastJobID }

// HasJobID reports whether any job or array with this ID is in the system.
func (v *View) HasJobID(id int64) bool {
	if _, ok := v.s.arrays.get(id); ok {
		return true
	}
	_, ok := v.s.jobs.get(Key{id, 0})
	return ok
}

// LastOrder is the largest FCFS key handed out.
func (v *View) LastOrder() int64 { return v.s.lastOrder }

// Finished is the number of jobs finished since the last log switch.
func (v *View) Finished() int64 { return v.s.finished }

// Applied is the index of the last applied log entry.
func (v *View) Applied() uint64 { return v.s.applied }
