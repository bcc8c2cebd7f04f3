package mbd

import (
	"context"
	"sync"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/job"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
)

// unsentSignals holds job control actions whose delivery was not
// acknowledged (the host's session ended on the way: sbatchd restarting,
// a network cut): LSF "retries the most recent signal request" once the
// host is reachable again, so each job keeps its latest one until the
// host's next session is welcomed.
type unsentSignals struct {
	mu     sync.Mutex
	byHost map[string]map[state.Key]*api.JobSignal
}

func (u *unsentSignals) add(host string, sig *api.JobSignal) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.byHost == nil {
		u.byHost = map[string]map[state.Key]*api.JobSignal{}
	}
	m := u.byHost[host]
	if m == nil {
		m = map[state.Key]*api.JobSignal{}
		u.byHost[host] = m
	}
	m[state.Key{ID: sig.JobID, Index: sig.Index}] = sig
}

// addIfNone keeps sig unless another action of the job waits already (a
// resize notice never replaces a kill).
func (u *unsentSignals) addIfNone(host string, sig *api.JobSignal) {
	u.mu.Lock()
	if _, ok := u.byHost[host][state.Key{ID: sig.JobID, Index: sig.Index}]; ok {
		u.mu.Unlock()
		return
	}
	u.mu.Unlock()
	u.add(host, sig)
}

func (u *unsentSignals) take(host string) []*api.JobSignal {
	u.mu.Lock()
	defer u.mu.Unlock()
	m := u.byHost[host]
	delete(u.byHost, host)
	out := make([]*api.JobSignal, 0, len(m))
	for _, sig := range m {
		out = append(out, sig)
	}
	return out
}

// resendSignals delivers host's unacknowledged job control again, for the
// jobs still running there, once its new session is welcomed.
func (s *Server) resendSignals(ctx context.Context, host string) {
	sigs := s.unsent.take(host)
	if len(sigs) == 0 {
		return
	}
	var live []*api.JobSignal
	s.st.View(func(v *state.View) {
		for _, sig := range sigs {
			if j := v.Job(state.Key{ID: sig.JobID, Index: sig.Index}); j != nil && len(j.ExecHosts) > 0 && j.ExecHosts[0].Host == host && !job.Finished(j.State) {
				live = append(live, sig)
			}
		}
	})
	for _, sig := range live {
		s.log.Warn("job control not acknowledged before: sent again", "host", host, "job", state.Key{ID: sig.JobID, Index: sig.Index})
		s.signalSbd(ctx, host, sig)
	}
}
