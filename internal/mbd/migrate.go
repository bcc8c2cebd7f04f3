package mbd

import (
	"context"
	"sync"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/job"
	"github.com/basalt-lsf/basalt/internal/lsberr"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
)

// Migration (bmig, MIG thresholds): a checkpointable job is checkpointed
// and killed (echkpnt, then TERM_CHKPNT), a rerunnable one only killed;
// either way its run ends requeued, keeping its job ID, and its next run
// restarts from the checkpoint (erestart) or from the beginning. The
// requeue report (sbd.go, migrated) places the job at once: on the hosts
// bmig -m named (JOB_FORCE and JOB_START in the same log entry as the
// requeue, so no scheduling pass sees it pending), or, without -m,
// anywhere but the host it left (the host is excluded for the job, as
// EXCLUDE() requeue values do). The migrations in progress are volatile.

// migration is a migration in progress.
type migration struct {
	from  string
	hosts []string
}

// migTracker holds the migrations in progress.
type migTracker struct {
	mu  sync.Mutex
	now map[state.Key]migration
}

func (m *migTracker) begin(k state.Key, mg migration) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, busy := m.now[k]; busy {
		return false
	}
	if m.now == nil {
		m.now = map[state.Key]migration{}
	}
	m.now[k] = mg
	return true
}

func (m *migTracker) take(k state.Key) (migration, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	mg, ok := m.now[k]
	delete(m.now, k)
	return mg, ok
}

// migratable reports how a job can migrate: from a checkpoint, or by
// running again from the beginning.
func migratable(cfg *config.Config, j *state.Job) (c chkpntSpec, rerun bool) {
	c = effectiveChkpnt(cfg, j)
	rerun = j.Spec.Rerunnable
	if q := cfg.Queue(j.Queue); q != nil && q.Rerunnable && !j.Spec.NotRerunnable {
		rerun = true
	}
	if a := cfg.Application(j.Spec.App); a != nil && a.Rerunnable != nil && !j.Spec.NotRerunnable {
		rerun = rerun || *a.Rerunnable
	}
	return c, rerun
}

// migrateJob is bmig for one job.
func (s *Server) migrateJob(ctx context.Context, cfg *config.Config, id auth.Identity, req *api.ControlRequest, t target) error {
	switch {
	case job.Finished(t.state):
		return lsberr.New(lsberr.JobFinished)
	case !job.Started(t.state):
		return lsberr.New(lsberr.NotStarted)
	}
	var c chkpntSpec
	var rerun bool
	s.st.View(func(v *state.View) {
		if j := v.Job(t.key); j != nil {
			c, rerun = migratable(cfg, j)
		}
	})
	if c.dir == "" && !rerun {
		return lsberr.New(lsberr.NotChkpntable)
	}
	var hosts []string
	if len(req.Hosts) > 0 {
		eh, err := s.forcedHosts(cfg, req.Hosts, t)
		if err != nil {
			return err
		}
		for _, h := range eh {
			hosts = append(hosts, h.Host)
		}
	}
	if !s.mig.begin(t.key, migration{from: t.host, hosts: hosts}) {
		return lsberr.New(lsberr.Migration)
	}
	ev := &api.Event{User: id.User, UID: int32(id.UID), JobMig: &api.EvJobMig{JobID: t.key.ID, Index: t.key.Index, Hosts: req.Hosts}}
	if err := s.propose(ctx, ev); err != nil {
		s.mig.take(t.key)
		return err
	}
	if c.dir != "" {
		if err := s.startChkpnt(id, t, c, true, req.Force, true); err != nil {
			s.mig.take(t.key)
			return err
		}
		return nil
	}
	sig := &api.Event{User: id.User, UID: int32(id.UID), JobSignal: &api.EvJobSignal{JobID: t.key.ID, Index: t.key.Index,
		Action: int32(api.ActRequeue), Signal: "KILL", TermReason: "TERM_REQUEUE_OWNER", RunCount: t.run}}
	if err := s.propose(ctx, sig); err != nil {
		s.mig.take(t.key)
		return err
	}
	if err := s.signalSbd(ctx, t.host, &api.JobSignal{JobID: t.key.ID, Index: t.key.Index, Action: api.ActRequeue, TermReason: "TERM_REQUEUE_OWNER"}); err != nil {
		s.mig.take(t.key)
		return err
	}
	return nil
}

// migrated completes a migration when the job's run ends requeued on host
// from: the job goes to the hosts asked for (the events to add to the
// requeue's entry), or is kept off the host it left.
func (s *Server) migrated(cfg *config.Config, k state.Key, from string, st *api.EvJobStatus) []*api.Event {
	mg, ok := s.mig.take(k)
	if !ok {
		return nil
	}
	if len(mg.hosts) == 0 {
		st.ExcludeHost = from
		return nil
	}
	eh, err := s.forcedHosts(cfg, mg.hosts, target{key: k})
	if err != nil {
		s.log.Warn("migration: the job stays pending", "job", k, "err", err)
		return nil
	}
	return []*api.Event{
		{JobForce: &api.EvJobForce{JobID: k.ID, Index: k.Index, Hosts: mg.hosts}},
		{JobStart: &api.EvJobStart{JobID: k.ID, Index: k.Index, ExecHosts: eh, Forced: true}},
	}
}

// launchMigrated launches the jobs a batch of reports placed (migrated).
func (s *Server) launchMigrated(ctx context.Context, evs []*api.Event, errs []error) {
	for i, e := range evs {
		if e.JobStart == nil || !e.JobStart.Forced || (i < len(errs) && errs[i] != nil) {
			continue
		}
		k := state.Key{ID: e.JobStart.JobID, Index: e.JobStart.Index}
		for _, h := range e.JobStart.ExecHosts {
			s.hosts.dispatched(h.Host, s.clock.Now())
		}
		go s.launch(context.WithoutCancel(ctx), k)
	}
}
