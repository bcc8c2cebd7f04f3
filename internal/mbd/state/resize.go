package state

import (
	"fmt"
	"math"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/job"
)

// ErrResize is wrapped by the refusals of a resize event that does not
// fit the job as it is now (replayed, such an event changes nothing).
var ErrResize = fmt.Errorf("illegal resize")

// resetResize forgets a run's resize state: a new run (dispatch, requeue,
// rerun) starts from the job's original allocation request.
func (j *Job) resetResize() {
	j.ResizeMin, j.ResizeMax, j.ResizeNoAuto, j.Resized, j.ResizeAfter = 0, 0, false, false, 0
}

func (j *Job) resizeFlags() int32 {
	var f int32
	if j.ResizeNoAuto {
		f |= api.SnapResizeNoAuto
	}
	if j.Resized {
		f |= api.SnapResizeResized
	}
	return f
}

// ResizeTime is when the job's allocation last changed in this run (Unix
// seconds; 0 never).
func (j *Job) ResizeTime() int64 {
	if !j.Resized {
		return 0
	}
	return j.StartTime + int64(j.ResizeAfter)
}

// resized records an allocation change at t.
func (j *Job) resized(t int64) {
	j.Resized = true
	j.ResizeAfter = int32(min(max(t-j.StartTime, 0), math.MaxInt32))
}

// PendingResize is the job's active pending allocation request: the
// additional tasks it may still get, at least min and at most max (0, 0:
// none). An autoresizable job that still grows by itself asks for 1 to
// -n max minus what it holds; a bresize request asks for what it said.
func (j *Job) PendingResize() (lo, hi int32) {
	if !job.Started(j.State) {
		return 0, 0
	}
	if j.ResizeMax > 0 {
		return j.ResizeMin, j.ResizeMax
	}
	if j.Spec == nil || !j.Spec.AutoResizable || j.ResizeNoAuto {
		return 0, 0
	}
	if n := j.MaxProcs - j.Slots(); n > 0 {
		return 1, n
	}
	return 0, 0
}

// NotifyCmd is the job's resize notification command (bsub -rnc, or
// bresize's -rnc or -rncn since).
func (j *Job) NotifyCmd() string {
	if j.Spec == nil {
		return ""
	}
	return j.Spec.ResizeNotifyCmd
}

// jobResize applies a resize event. Grow adds its hosts' slots to the
// allocation (the pending request shrinks by as much, and ends once
// satisfied); release takes them out (the first execution host keeps at
// least one slot); request records a pending request, and the job stops
// growing by itself; cancel forgets the pending request (an autoresizable
// job stops growing by itself too).
func (s *State) jobResize(t int64, e *api.EvJobResize) error {
	j, err := s.getW(e.JobID, e.Index)
	if err != nil {
		return err
	}
	if !job.Started(j.State) || len(j.ExecHosts) == 0 {
		return fmt.Errorf("job %s: resize of a %s job: %w", j.Key, job.Name(j.State), ErrResize)
	}
	if e.RunCount != 0 && e.RunCount != j.RunCount {
		return fmt.Errorf("job %s: resize of run %d, the job is in run %d: %w", j.Key, e.RunCount, j.RunCount, ErrResize)
	}
	if e.SetNotify && e.NotifyCmd != j.Spec.ResizeNotifyCmd {
		// bresize -rnc, -rncn: the job's command from now on, in a
		// submission of its own (as bmod makes one).
		full := j.Spec.Full()
		full.ResizeNotifyCmd = e.NotifyCmd
		spec := s.internSpec(full)
		s.releaseSpec(j.Spec)
		j.Spec = spec
	}
	if e.CancelPending {
		j.ResizeMin, j.ResizeMax, j.ResizeNoAuto = 0, 0, true
	}
	switch e.Action {
	case api.ResizeOpGrow:
		hosts, err := growHosts(j.ExecHosts, e.Hosts, s.strs.get)
		if err != nil {
			return fmt.Errorf("job %s: %w", j.Key, err)
		}
		added := int32(0)
		for _, h := range e.Hosts {
			added += h.Slots
		}
		s.setHosts(j, hosts)
		if j.ResizeMax > 0 {
			j.ResizeMax -= added
			j.ResizeMin = max(j.ResizeMin-added, 1)
			if j.ResizeMax <= 0 {
				j.ResizeMin, j.ResizeMax = 0, 0
			}
		}
		j.resized(t)
	case api.ResizeOpRelease:
		hosts, err := releaseHosts(j.ExecHosts, e.Hosts)
		if err != nil {
			return fmt.Errorf("job %s: %w", j.Key, err)
		}
		s.setHosts(j, hosts)
		j.resized(t)
	case api.ResizeOpRequest:
		if e.Max <= 0 || e.Min < 0 || e.Min > e.Max {
			return fmt.Errorf("job %s: resize request %d,%d: %w", j.Key, e.Min, e.Max, ErrResize)
		}
		j.ResizeMin, j.ResizeMax, j.ResizeNoAuto = max(e.Min, 1), e.Max, true
	case api.ResizeOpCancel:
		j.ResizeMin, j.ResizeMax, j.ResizeNoAuto = 0, 0, true
	default:
		return fmt.Errorf("job %s: resize action %d: %w", j.Key, e.Action, ErrResize)
	}
	return nil
}

// setHosts replaces a started job's allocation, keeping the host index
// (OnHost) true.
func (s *State) setHosts(j *Job, hosts []*api.ExecHost) {
	s.leaveHosts(j)
	j.ExecHosts = hosts
	s.enterHosts(j)
}

// growHosts is the allocation with add's slots added (a new slice of new
// records: the old ones may be read by an earlier view).
func growHosts(cur, add []*api.ExecHost, intern func(string) string) ([]*api.ExecHost, error) {
	out := copyHosts(cur)
	for _, a := range add {
		if a.Slots <= 0 {
			return nil, fmt.Errorf("grow by %d slots on %s: %w", a.Slots, a.Host, ErrResize)
		}
		found := false
		for _, h := range out {
			if h.Host == a.Host {
				h.Slots += a.Slots
				found = true
				break
			}
		}
		if !found {
			out = append(out, &api.ExecHost{Host: intern(a.Host), Slots: a.Slots})
		}
	}
	return out, nil
}

// releaseHosts is the allocation without rel's slots; a host left with
// none leaves it, but the first execution host keeps at least one.
func releaseHosts(cur, rel []*api.ExecHost) ([]*api.ExecHost, error) {
	out := copyHosts(cur)
	for _, r := range rel {
		i := -1
		for k, h := range out {
			if h.Host == r.Host {
				i = k
				break
			}
		}
		if i < 0 {
			return nil, fmt.Errorf("host %s is not in the allocation: %w", r.Host, ErrResize)
		}
		if r.Slots <= 0 || r.Slots > out[i].Slots {
			return nil, fmt.Errorf("release of %d slots of %d on %s: %w", r.Slots, out[i].Slots, r.Host, ErrResize)
		}
		out[i].Slots -= r.Slots
	}
	if len(out) == 0 || out[0].Slots <= 0 {
		return nil, fmt.Errorf("the first execution host must keep a slot: %w", ErrResize)
	}
	kept := out[:0]
	for _, h := range out {
		if h.Slots > 0 {
			kept = append(kept, h)
		}
	}
	return kept, nil
}

func copyHosts(hs []*api.ExecHost) []*api.ExecHost {
	out := make([]*api.ExecHost, len(hs))
	for i, h := range hs {
		c := *h
		out[i] = &c
	}
	return out
}
