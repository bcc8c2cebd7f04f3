package mbd

import (
	"context"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/job"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
)

// pendHostFailRequeue is the pending reason of a rerunnable job requeued
// because its execution host failed (PEND_SBD_JOB_REQUEUE).
const pendHostFailRequeue int32 = 311

// unknownAfter is how long a host's sbatchd may be out of contact before
// mbatchd stops trusting what it knows of the host's jobs: twice
// SBD_SLEEP_TIME (sbatchd reports at least that often while connected).
func unknownAfter(cfg *config.Config) time.Duration {
	d := 2 * cfg.Params.SBDSleepTime
	if d <= 0 {
		d = time.Minute
	}
	return d
}

// watchHosts checks every second for hosts whose sbatchd has been out of
// contact for unknownAfter (see checkLostHosts).
func (s *Server) watchHosts(ctx context.Context, since time.Time) {
	tick := s.clock.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C():
		}
		s.checkLostHosts(ctx, since)
	}
}

// checkLostHosts applies LSF's rules to the started jobs of hosts whose
// sbatchd has been out of contact for unknownAfter: a rerunnable job on a
// host that is down (its LIM too) is requeued to run again elsewhere; any
// other job becomes UNKWN until its sbatchd reports again (state.jobStatus
// then restores it). A job killed meanwhile is ZOMBI (see control.go).
func (s *Server) checkLostHosts(ctx context.Context, since time.Time) {
	cfg := s.cfg.Current()
	after := unknownAfter(cfg)
	now := s.clock.Now()
	var lost []string
	s.st.View(func(v *state.View) {
		for _, h := range v.StartedHosts() {
			if at, ok := s.sess.lostSince(h, since); ok && now.Sub(at) >= after {
				lost = append(lost, h)
			}
		}
	})
	if len(lost) == 0 {
		return
	}
	s.refreshLoad(ctx, time.Second) // is the host down, or only its sbatchd?
	var evs []*api.Event
	s.st.View(func(v *state.View) {
		for _, h := range lost {
			down := s.hostDown(h)
			v.OnHost(h, func(j *state.Job) bool {
				if len(j.ExecHosts) == 0 || j.ExecHosts[0].Host != h {
					return true // the first execution host's sbatchd runs the job
				}
				st := &api.EvJobStatus{JobID: j.ID, Index: j.Index, RunCount: j.RunCount}
				switch {
				case down && rerunnable(j):
					st.State, st.PendReason = api.StatePend, pendHostFailRequeue
				case j.State == api.StateRun || j.State == api.StateSSusp || j.State == api.StateUSusp:
					st.State = api.StateUnkwn
				default:
					return true
				}
				evs = append(evs, &api.Event{JobStatus: st})
				return true
			})
		}
	})
	if len(evs) == 0 {
		return
	}
	errs, err := s.prop.Propose(ctx, evs...)
	if err != nil {
		s.log.Warn("recording jobs of unreachable hosts", "err", err)
		return
	}
	for i, e := range errs {
		if e != nil {
			s.log.Warn("job of an unreachable host", "event", evs[i], "err", e)
		} else {
			st := evs[i].JobStatus
			s.log.Warn("execution host out of contact", "job", state.Key{ID: st.JobID, Index: st.Index}, "state", job.Name(st.State))
		}
	}
	s.poke()
}

// hostDown reports whether the master LIM says host is unavailable (or
// does not report it at all): the host itself, not only its sbatchd, is
// gone.
func (s *Server) hostDown(host string) bool {
	if s.opts.Load == nil {
		return false // no LIM to ask: only sbatchd's silence is known
	}
	s.hosts.mu.Lock()
	defer s.hosts.mu.Unlock()
	ld := s.hosts.load[host]
	return ld == nil || ld.Status == "unavail"
}
