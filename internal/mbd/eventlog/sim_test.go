package eventlog

import (
	"github.com/basalt-lsf/basalt/api"
)

// sim is a miniature mbatchd state for the writer tests: it folds events
// into Jobs the way internal/mbd/state does, and serves them as the
// writer's JobSource.
type sim struct {
	jobs map[jobKey]*Job
}

func newSim() *sim { return &sim{jobs: map[jobKey]*Job{}} }

func (s *sim) Job(id int64, idx int32) *Job { return s.jobs[jobKey{id, idx}] }

func (s *sim) ActiveJobs() []*Job {
	var out []*Job
	for _, j := range s.jobs {
		if j.State != api.StateDone && j.State != api.StateExit {
			out = append(out, j)
		}
	}
	return out
}

func (s *sim) apply(e *api.LogEntry) {
	for _, ev := range e.Events {
		t := ev.Time / 1e9
		switch {
		case ev.JobNew != nil:
			n := ev.JobNew
			base := Job{ID: n.JobID, User: ev.User, UID: ev.UID, Queue: n.Queue, Name: n.JobName,
				Project: n.Project, Spec: n.Spec, ArraySpec: n.ArraySpec, ArrayLimit: n.ArrayLimit,
				State: api.StatePend, SubmitTime: t, NumProcs: n.NumProcs, MaxProcs: n.MaxProcs}
			if n.Hold {
				base.State = api.StatePSusp
			}
			idx := n.ArrayIndices
			if len(idx) == 0 {
				idx = []int32{0}
			}
			for _, i := range idx {
				j := base
				j.Index = i
				s.jobs[jobKey{n.JobID, i}] = &j
			}
		case ev.JobStart != nil:
			if j := s.Job(ev.JobStart.JobID, ev.JobStart.Index); j != nil {
				j.State, j.StartTime, j.ExecHosts, j.HostFactor = api.StateRun, t, ev.JobStart.ExecHosts, 1
				j.RunCount++
			}
		case ev.JobExecute != nil:
			x := ev.JobExecute
			if j := s.Job(x.JobID, x.Index); j != nil {
				j.PID, j.PGID, j.ExecCwd, j.ExecHome, j.ExecUser = x.PID, x.PGID, x.ExecCwd, x.ExecHome, x.ExecUser
			}
		case ev.JobStatus != nil:
			st := ev.JobStatus
			if j := s.Job(st.JobID, st.Index); j != nil {
				if (j.State == api.StateDone || j.State == api.StateExit) && j.State == st.State {
					continue // post-execution result or a repeated report
				}
				j.State, j.ExitStatus, j.TermReason, j.Usage = st.State, st.ExitStatus, st.TermReason, st.Usage
				j.SuspReasons, j.PendReason = st.SuspReasons, st.PendReason
				if st.State == api.StateDone || st.State == api.StateExit {
					j.EndTime = t
				}
			}
		case ev.JobClean != nil:
			delete(s.jobs, jobKey{ev.JobClean.JobID, ev.JobClean.Index})
		}
	}
}

// workload is a sequence of log entries: jobs submitted, dispatched,
// finished, and a few administrative events.
type workload struct {
	t       int64
	entries []*api.LogEntry
}

func (w *workload) add(evs ...*api.Event) {
	for _, ev := range evs {
		w.t++
		ev.Time = (t0 + w.t) * 1e9
	}
	w.entries = append(w.entries, &api.LogEntry{Events: evs})
}

func (w *workload) submit(id int64, user string, indices ...int32) {
	n := &api.EvJobNew{JobID: id, Queue: "normal", Project: "default", NumProcs: 1, MaxProcs: 1,
		Spec: &api.JobSpec{Command: "sleep 10", FromHost: "login", SubCwd: "/home/" + user, SubHome: "/home/" + user}}
	if len(indices) > 0 {
		n.ArrayIndices = indices
		n.ArraySpec = FormatIndexList(indices)
		n.JobName = "arr"
		n.Spec.JobName = "arr[" + n.ArraySpec + "]"
	}
	w.add(&api.Event{User: user, UID: 1000, JobNew: n})
}

func (w *workload) start(id int64, idx int32, host string) {
	w.add(&api.Event{JobStart: &api.EvJobStart{JobID: id, Index: idx, ExecHosts: []*api.ExecHost{{Host: host, Slots: 1}}, RunCount: 1}},
		&api.Event{JobExecute: &api.EvJobExecute{JobID: id, Index: idx, PID: int32(1000 + id), PGID: int32(1000 + id), ExecUser: "u"}})
}

func (w *workload) finish(id int64, idx int32, st api.JobState) {
	w.add(&api.Event{JobStatus: &api.EvJobStatus{JobID: id, Index: idx, State: st, RunCount: 1,
		Usage: &api.Usage{CPUTime: 1, UTime: 1, MaxMem: 100, RunTime: 5}}})
}
