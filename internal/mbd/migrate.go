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
// EXCLUDE() requeue values do). A checkpointing migration is durable
// (chkpnt.go: the shepherd requeues the run after the checkpoint, and the
// requeue report says so); a rerunnable job's (only killed) is volatile:
// a master that restarts before its requeue requeues it in place.

// migration is a migration in progress.
type migration struct {
	from  string
	hosts []string
}

// migTracker holds the migrations in progress, and the suspensions a MIG
// threshold already tried to migrate (by the time they began: one try per
// suspension).
type migTracker struct {
	mu    sync.Mutex
	now   map[state.Key]migration
	tried map[state.Key]int64
}

// tryOnce reports whether the suspension of k that began at since has not
// been tried yet, and notes it; it forgets the jobs not in keep.
func (m *migTracker) tryOnce(k state.Key, since int64, keep map[state.Key]bool) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tried == nil {
		m.tried = map[state.Key]int64{}
	}
	for o := range m.tried {
		if !keep[o] {
			delete(m.tried, o)
		}
	}
	if m.tried[k] == since {
		return false
	}
	m.tried[k] = since
	return true
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
	var rerun, busy bool
	s.st.View(func(v *state.View) {
		if j := v.Job(t.key); j != nil {
			c, rerun = migratable(cfg, j)
			busy = j.ChkpntReq != 0 // a checkpoint (perhaps a migration's) in progress
		}
	})
	if c.dir == "" && !rerun {
		return lsberr.New(lsberr.NotChkpntable)
	}
	if busy && c.dir != "" {
		return lsberr.New(lsberr.Migration)
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
		if err := s.startChkpnt(ctx, id, t, c, true, req.Force, true); err != nil {
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
// requeue's entry), or is kept off the host it left. durable: the run
// ends requeued after a successful bmig checkpoint (chkpntMigrated), a
// migration even for a master that did not see the bmig (the hosts are
// the job's, recorded with it).
func (s *Server) migrated(cfg *config.Config, j *state.Job, from string, st *api.EvJobStatus, durable bool) []*api.Event {
	k := j.Key
	mg, ok := s.mig.take(k)
	if !ok && durable {
		mg, ok = migration{from: from, hosts: j.MigHosts}, true
	}
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

// effectiveMig is a job's MIG threshold in minutes: the lower of its
// queue's and its execution host's (lsb.hosts), -1 when neither sets one.
func effectiveMig(cfg *config.Config, j *state.Job) int {
	m := -1
	if q := cfg.Queue(j.Queue); q != nil && q.Mig >= 0 {
		m = q.Mig
	}
	if len(j.ExecHosts) > 0 {
		if h := cfg.BatchHost(j.ExecHosts[0].Host); h != nil && h.Mig >= 0 && (m < 0 || h.Mig < m) {
			m = h.Mig
		}
	}
	return m
}

// migDue reports whether a job suspended by the system (SSUSP) has been
// so for longer than its MIG threshold at now (Unix seconds).
func migDue(j *state.Job, mig int, now int64) bool {
	return j.State == api.StateSSusp && mig >= 0 && now-j.StateTime >= int64(mig)*60
}

// migThresholds migrates the checkpointable or rerunnable jobs suspended by
// the system longer than their MIG threshold (from the housekeeping tick),
// each suspension once.
func (s *Server) migThresholds(ctx context.Context, cfg *config.Config) {
	now := s.clock.Now().Unix()
	var due []target
	var since []int64
	susp := map[state.Key]bool{}
	s.st.View(func(v *state.View) {
		v.Jobs(func(j *state.Job) bool {
			if j.State != api.StateSSusp || len(j.ExecHosts) == 0 {
				return true
			}
			susp[j.Key] = true
			if !migDue(j, effectiveMig(cfg, j), now) {
				return true
			}
			if c, rerun := migratable(cfg, j); c.dir != "" || rerun {
				due = append(due, target{key: j.Key, state: j.State, queue: j.Queue, user: j.User, host: j.ExecHosts[0].Host, run: j.RunCount})
				since = append(since, j.StateTime)
			}
			return true
		})
	})
	for i, t := range due {
		if !s.mig.tryOnce(t.key, since[i], susp) {
			continue
		}
		if err := s.migrateJob(ctx, cfg, auth.Identity{}, &api.ControlRequest{Op: api.OpMigrate}, t); err != nil {
			s.log.Warn("MIG threshold: the job stays suspended", "job", t.key, "err", err)
		}
	}
}
