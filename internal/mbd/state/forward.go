package state

import (
	"fmt"
	"maps"
	"slices"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/job"
)

// Forward is a job's MultiCluster forwarding (LSF's job forwarding model):
// the receive-jobs queue of the cluster it went to, the key of the
// forward (the remote submission's idempotency key), and what the
// execution cluster said of it. A forwarded job is out of its queue's
// dispatch list while Active; it returns to it when the forward comes
// back (Back).
type Forward struct {
	Cluster   string
	Queue     string
	Key       string
	Time      int64 // when it was forwarded (Unix seconds)
	RemoteID  int64 // its ID in the execution cluster; 0 until accepted
	ExecHosts []string
	Active    bool // the execution cluster holds it (not finished, not back)
}

// StaleForward is a remote copy of a job's earlier forward, taken back
// (or the job killed) while its cluster did not answer: the master kills
// it when that cluster answers again, then records that it did. Part of
// the replicated state, so a master elected meanwhile still does it.
type StaleForward struct {
	Cluster  string
	Queue    string
	Key      string
	RemoteID int64 // 0: never learnt (found by Key)
}

// StaleForwards calls fn for each job with remote copies to kill
// (Job.FwdStale), in key order.
func (v *View) StaleForwards(fn func(*Job) bool) {
	v.inKeyOrder(v.s.stale, fn)
}

func (s *State) setStale(j *Job) {
	if len(j.FwdStale) > 0 {
		s.stale.w(s.gen)[j.Key] = true
	} else if s.stale.m[j.Key] {
		delete(s.stale.w(s.gen), j.Key)
	}
}

// ErrNotForwarded refuses an update of a forward the job no longer has.
var ErrNotForwarded = fmt.Errorf("job is not forwarded under that key: %w", ErrStale)

// Forwarded calls fn for each job whose forward is active, in key order.
func (v *View) Forwarded(fn func(*Job) bool) {
	v.inKeyOrder(v.s.fwd, fn)
}

// NumForwarded is the number of jobs whose forward is active.
func (v *View) NumForwarded() int { return len(v.s.fwd.m) }

func (s *State) setForwarded(j *Job, on bool) {
	if on {
		s.fwd.w(s.gen)[j.Key] = true
	} else if s.fwd.m[j.Key] {
		delete(s.fwd.w(s.gen), j.Key)
	}
}

func (s *State) jobForward(t int64, e *api.EvJobForward) error {
	j, err := s.getW(e.JobID, e.Index)
	if err != nil {
		return err
	}
	if j.State != api.StatePend || (j.Fwd != nil && j.Fwd.Active) {
		return fmt.Errorf("job %s: forward of a job that is not pending here (%s): %w", j.Key, job.Name(j.State), job.ErrIllegalTransition)
	}
	s.unlist(j)
	j.Fwd = &Forward{Cluster: s.strs.get(e.Cluster), Queue: s.strs.get(e.Queue), Key: e.Key, Time: t, Active: true}
	j.FwdCount++
	s.setForwarded(j, true)
	return nil
}

func (s *State) jobFwdUpdate(t int64, e *api.EvJobFwdUpdate) error {
	j, err := s.getW(e.JobID, e.Index)
	if err != nil {
		return err
	}
	if e.StaleDone {
		i := slices.IndexFunc(j.FwdStale, func(sf StaleForward) bool { return sf.Key == e.Key })
		if i < 0 {
			return fmt.Errorf("job %s: no remote copy of forward %s to kill: %w", j.Key, e.Key, ErrStale)
		}
		j.FwdStale = slices.Delete(slices.Clone(j.FwdStale), i, i+1)
		s.setStale(j)
		return nil
	}
	if j.Fwd == nil || j.Fwd.Key != e.Key {
		return fmt.Errorf("job %s: %w", j.Key, ErrNotForwarded)
	}
	f := *j.Fwd
	j.Fwd = &f
	if e.RemoteID != 0 {
		f.RemoteID = e.RemoteID
	}
	if e.Back && !f.Active {
		return fmt.Errorf("job %s: back from a forward that ended: %w", j.Key, ErrStale)
	}
	if e.Stale && !slices.ContainsFunc(j.FwdStale, func(sf StaleForward) bool { return sf.Key == f.Key }) {
		j.FwdStale = append(slices.Clip(j.FwdStale), StaleForward{Cluster: f.Cluster, Queue: f.Queue, Key: f.Key, RemoteID: f.RemoteID})
		s.setStale(j)
	}
	if e.Back {
		j.Fwd = nil
		s.setForwarded(j, false)
		if job.Pending(j.State) {
			s.list(j)
		}
		return nil
	}
	if len(e.ExecHosts) > 0 {
		f.ExecHosts = e.ExecHosts
	}
	if e.State == 0 || e.State == j.State {
		return nil
	}
	var in job.Input
	switch e.State {
	case api.StateRun:
		switch j.State {
		case api.StatePend:
			in = job.Dispatch
		case api.StateUSusp:
			in = job.UserResume
		default:
			in = job.SystemResume
		}
	case api.StateUSusp:
		in = job.UserStop
	case api.StateSSusp:
		in = job.SystemSuspend
	case api.StatePSusp:
		in = job.UserStop
	case api.StatePend:
		in = job.UserResume
	case api.StateDone:
		in = job.Finish
	case api.StateExit:
		in = job.Fail
		if job.Pending(j.State) {
			in = job.KillPending
		}
	default:
		return fmt.Errorf("job %s: remote state %s not understood", j.Key, job.Name(e.State))
	}
	if err := s.transition(j, in, t); err != nil {
		return err
	}
	if e.StartTime != 0 {
		j.StartTime = e.StartTime
	}
	if job.Finished(j.State) {
		f.Active = false
		s.setForwarded(j, false)
		j.ExitStatus = e.ExitStatus
		j.Usage = e.Usage
		// EndTime stays when the update was recorded (the lsb.acct record
		// is of that time), within a round of the remote end.
		j.TermReason = e.Reason
	}
	return nil
}

// inKeyOrder calls fn for each job of set, in key order, until fn returns
// false.
func (v *View) inKeyOrder(set cowSmall[Key, bool], fn func(*Job) bool) {
	keys := slices.Collect(maps.Keys(set.m))
	sortKeys(keys)
	for _, k := range keys {
		if j := v.Job(k); j != nil && !fn(j) {
			return
		}
	}
}
