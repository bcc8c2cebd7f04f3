package eventlog

import (
	"slices"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/job"
)

// Window is a time interval, Unix seconds, both ends included; a zero end
// is open (bhist and bacct -C, -S, -D "t0,t1").
type Window struct{ From, To int64 }

// IsZero reports whether the window does not restrict anything.
func (w Window) IsZero() bool { return w.From == 0 && w.To == 0 }

// Contains reports whether t is in the window.
func (w Window) Contains(t int64) bool {
	return (w.From == 0 || t >= w.From) && (w.To == 0 || t <= w.To)
}

// Filter selects jobs for bhist and bacct. Empty lists do not restrict.
// User and host groups are expanded by the caller, which knows the
// configuration; "" user (the requester) is resolved by the caller too.
type Filter struct {
	// Jobs are explicit job IDs; an Index 0 selects every element of an
	// array. Explicit jobs are shown whatever their state unless States is
	// set.
	Jobs     []*api.JobRef
	Users    []string // "all" or an empty list: every user
	Queues   []string
	Hosts    []string // execution hosts
	Projects []string
	// JobName matches the job name; '*' is a wildcard (bhist/bacct -J).
	JobName string
	// States are JobState bits (DONE and EXIT for bhist -d, PEND|PSUSP for
	// -p...). 0: bhist shows unfinished jobs (all jobs with -a, given as
	// every bit), bacct finished ones.
	States uint32
	// Submitted, Dispatched and Completed are -S, -D and -C.
	Submitted, Dispatched, Completed Window
}

// AllStates selects jobs in any state (bhist -a).
const AllStates = ^uint32(0)

// FilterFromRequest builds a Filter from a JobsRequest. requester is the
// user a "" User means.
func FilterFromRequest(r *api.JobsRequest, requester string) Filter {
	f := Filter{Jobs: r.Jobs, JobName: r.JobName, States: r.StateMask}
	u := r.User
	if u == "" {
		u = requester
	}
	if u != "" && u != "all" {
		f.Users = []string{u}
	}
	if r.Queue != "" {
		f.Queues = []string{r.Queue}
	}
	if r.Host != "" {
		f.Hosts = []string{r.Host}
	}
	if r.Project != "" {
		f.Projects = []string{r.Project}
	}
	if r.IncludeFinished {
		f.States = AllStates
	}
	f.Submitted = Window{r.Since, r.Until}
	f.Dispatched = Window{r.DispatchedFrom, r.DispatchedTo}
	f.Completed = Window{r.CompletedFrom, r.CompletedTo}
	return f
}

// wantJob reports whether job id/idx is among the explicit jobs (true when
// there are none).
func (f *Filter) wantJob(id int64, idx int32) bool {
	if len(f.Jobs) == 0 {
		return true
	}
	for _, j := range f.Jobs {
		if j.JobID == id && (j.Index == 0 || j.Index == idx) {
			return true
		}
	}
	return false
}

func (f *Filter) wantJobID(id int64) bool {
	if len(f.Jobs) == 0 {
		return true
	}
	for _, j := range f.Jobs {
		if j.JobID == id {
			return true
		}
	}
	return false
}

func inList(list []string, v string) bool {
	return len(list) == 0 || slices.Contains(list, v)
}

func (f *Filter) wantUser(u string) bool {
	return len(f.Users) == 0 || slices.Contains(f.Users, "all") || slices.Contains(f.Users, u)
}

// wantName matches bhist/bacct -J: the job name, or for an array element
// the array's name, with '*' wildcards.
func (f *Filter) wantName(name string) bool {
	if f.JobName == "" {
		return true
	}
	return job.NameMatch(f.JobName, name)
}

// wantState applies States; def is the mask used when States is 0.
func (f *Filter) wantState(st api.JobState, def uint32) bool {
	m := f.States
	if m == 0 {
		m = def
	}
	return uint32(st)&m != 0
}

func anyIn(list []string, hosts []*api.ExecHost) bool {
	if len(list) == 0 {
		return true
	}
	for _, h := range hosts {
		if slices.Contains(list, h.Host) {
			return true
		}
	}
	return false
}
