package mbd

import (
	"context"
	"strings"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/job"
	"github.com/basalt-lsf/basalt/internal/mbd/sched"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
)

// minPassGap separates scheduling passes so that a burst of changes is
// handled by one pass rather than one pass per change. A pass that started,
// preempted or resumed nothing is followed by a gap three times as long as
// it took: with many pending jobs and no room, each submission would
// otherwise start another fruitless pass over all of them, and the
// scheduler would take the CPU that mbatchd needs for the submissions
// themselves; it then takes at most a quarter of a CPU. A pass that acted is
// followed by the shortest gap (slots freeing one after another are filled
// at once), and an idle cluster starts a job within milliseconds;
// MBD_SLEEP_TIME stays the longest interval.
const minPassGap = 5 * time.Millisecond

// passGap is the pause after a pass that took took and acted or not;
// interval is JOB_SCHEDULING_INTERVAL (0: not set), the least gap when set.
func passGap(took time.Duration, acted bool, interval time.Duration) time.Duration {
	if acted {
		return max(minPassGap, interval)
	}
	return max(minPassGap, 3*took, interval)
}

// schedLoop runs scheduling passes until ctx ends.
func (s *Server) schedLoop(ctx context.Context) {
	timer := s.clock.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.wake:
		case <-timer.C():
		}
		cfg := s.cfg.Current()
		began := s.clock.Now()
		next, acted := s.pass(ctx, cfg)
		gapLen := passGap(s.clock.Now().Sub(began), acted, cfg.Params.JobSchedulingInterval)
		sleep := cfg.Params.MBDSleepTime
		if sleep <= 0 {
			sleep = 10 * time.Second
		}
		if !next.IsZero() {
			if d := next.Sub(s.clock.Now()); d < sleep {
				sleep = max(d, gapLen)
			}
		}
		timer.Reset(sleep)
		gap := s.clock.NewTimer(gapLen)
		select {
		case <-ctx.Done():
			gap.Stop()
			return
		case <-gap.C():
		}
	}
}

// pass runs one scheduling pass and starts what it decided; it returns when
// the next time-driven pass is due (zero: none), and whether it started,
// preempted or resumed any job.
func (s *Server) pass(ctx context.Context, cfg *config.Config) (time.Time, bool) {
	s.refreshLoad(ctx, 5*time.Second)
	now := s.clock.Now()
	var plan *sched.Plan
	s.st.View(func(v *state.View) {
		in := &sched.Input{Now: now, Config: cfg, Table: cfg.ResourceTable(), Hosts: s.schedHosts(cfg, v), View: v,
			Strict: cfg.Conf.StrictResReq(), Unit: resreqUnit(cfg)}
		s.policyInput(in)
		plan = s.sched.Schedule(in)
	})
	s.reasons.Store(plan.Reasons)
	if o := s.observer(); o != nil {
		o.SchedPass(s.clock.Now().Sub(now), plan.Examined)
	}
	s.carryOut(ctx, plan)
	s.carryResizes(ctx, plan, now)
	defer s.mcPassDone()
	acted := len(plan.Dispatches)+len(plan.Preemptions)+len(plan.Resumes)+len(plan.Resizes) > 0
	if len(plan.Dispatches) == 0 {
		return plan.NextWake, acted
	}
	events := make([]*api.Event, len(plan.Dispatches))
	for i, d := range plan.Dispatches {
		events[i] = d.StartEvent()
	}
	errs, err := s.prop.Propose(ctx, events...)
	if err != nil {
		s.log.Warn("dispatch not recorded", "err", err)
		return plan.NextWake, acted
	}
	for i, d := range plan.Dispatches {
		if errs[i] != nil {
			s.log.Warn("dispatch rejected", "job", d.Key, "err", errs[i])
			continue
		}
		for _, h := range d.Hosts {
			s.hosts.dispatched(h.Host, now)
		}
		go s.launch(ctx, d.Key)
	}
	return plan.NextWake, acted
}

// launch sends a dispatched job to its first execution host's sbatchd. If
// the host cannot take it, the job goes back to pending.
func (s *Server) launch(ctx context.Context, k state.Key) {
	cfg := s.cfg.Current()
	var l *api.JobLaunch
	var host string
	var run int32
	s.st.View(func(v *state.View) {
		j := v.Job(k)
		if j == nil || !job.Started(j.State) || len(j.ExecHosts) == 0 {
			return
		}
		l = s.launchRecord(cfg, j)
		host, run = j.ExecHosts[0].Host, j.RunCount
	})
	if l == nil {
		return
	}
	sess := s.sess.get(host)
	var reason int32
	if sess == nil {
		reason = 1601 // PEND_SBD_UNREACH
	} else {
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		ack, err := sess.call(cctx, &api.MbdMessage{Launch: l})
		cancel()
		switch {
		case err != nil:
			// The launch may or may not have reached sbatchd: its next
			// hello settles it (re-adopted or reported lost).
			s.log.Warn("launch not acknowledged", "job", k, "host", host, "err", err)
			return
		case ackErr(ack) != nil:
			s.log.Warn("sbatchd refused job", "job", k, "host", host, "err", ackErr(ack))
			reason = 1608 // PEND_SBD_JOB_ACCEPT
		default:
			return
		}
	}
	ev := &api.Event{JobStatus: &api.EvJobStatus{JobID: k.ID, Index: k.Index, State: api.StatePend, PendReason: reason, RunCount: run}}
	if err := s.prop.Propose1(ctx, ev); err != nil {
		s.log.Warn("returning job to pending", "job", k, "err", err)
	}
}

// launchRecord builds what sbatchd needs to run j.
func (s *Server) launchRecord(cfg *config.Config, j *state.Job) *api.JobLaunch {
	l := &api.JobLaunch{
		JobID: j.ID, Index: j.Index, User: j.User, Spec: j.Spec.Full(), SubmitTime: j.SubmitTime, RunCount: j.RunCount,
		Forced: j.NoSuspend, DispatchTime: j.StartTime, JobName: j.DisplayName(), ExecRusage: j.ExecRusage,
		Cluster: cfg.ClusterName(), EffectiveResReq: j.EffectiveResReq,
	}
	for _, h := range j.ExecHosts {
		l.ExecHosts = append(l.ExecHosts, &api.ExecHost{Host: h.Host, Slots: h.Slots, GPUs: h.GPUs, GPUReq: h.GPUReq})
	}
	if j.Array != nil && len(j.Array.Indices) > 0 {
		l.ArrayEnd = j.Array.Indices[len(j.Array.Indices)-1]
		l.ArrayStep = 1
		if n := len(j.Array.Indices); n > 1 {
			l.ArrayStep = j.Array.Indices[1] - j.Array.Indices[0]
		}
	}
	q := cfg.Queue(j.Queue)
	if q != nil {
		l.Queue = queueExec(q)
	} else {
		l.Queue = &api.QueueExec{Name: j.Queue}
	}
	app := cfg.Application(l.Spec.App)
	if app != nil {
		applyApplication(l, app)
	}
	if v := l.Spec.RequeueExitValues; v != "" {
		// bsub -Q: the job's own values, over the profile's and the
		// queue's (checked at submission).
		if r, err := config.ParseRequeueExitValues(v); err == nil {
			setRequeue(l.Queue, r)
		}
	}
	foldChkpnt(cfg, l, j)
	l.Limits = effectiveLimits(l.Spec.Limits, app, q)
	if b := j.BackfillLimit; b > 0 && (l.Limits.Run <= 0 || b < l.Limits.Run) {
		// Interruptible backfill: the job must leave the reserved slots
		// before the reserving job's predicted start.
		l.Limits.Run = b
	}
	return l
}

// applyApplication folds a job's application profile into its launch: the
// profile's pre- and post-execution commands unless the job has its own
// (-E, -Ep), and its job starter, requeue exit values, job controls, nice
// value, rerunnable flag and environment over the queue's.
func applyApplication(l *api.JobLaunch, a *config.Application) {
	if l.Spec.PreExec == "" {
		l.Spec.PreExec = a.PreExec
	}
	if l.Spec.PostExec == "" {
		l.Spec.PostExec = a.PostExec
	}
	qe := l.Queue
	if a.JobStarter != "" {
		qe.JobStarter = a.JobStarter
	}
	if a.RequeueExitValues != nil {
		setRequeue(qe, *a.RequeueExitValues)
	}
	if t := actionText(a.JobControls.Suspend); t != "" {
		qe.SuspendAction = t
	}
	if t := actionText(a.JobControls.Resume); t != "" {
		qe.ResumeAction = t
	}
	if t := actionText(a.JobControls.Terminate); t != "" {
		qe.TerminateAction = t
	}
	if a.Nice != nil {
		qe.Nice = int32(*a.Nice)
	}
	if a.Rerunnable != nil {
		qe.Rerunnable = *a.Rerunnable
	}
	if len(a.Env) > 0 {
		l.Spec.Env = append(append([]string(nil), l.Spec.Env...), a.Env...)
	}
}

// setRequeue makes r the launch's requeue exit values.
func setRequeue(qe *api.QueueExec, r config.RequeueExitValues) {
	qe.RequeueExitValues, qe.ExcludeExitValues = nil, nil
	for _, c := range r.Codes {
		qe.RequeueExitValues = append(qe.RequeueExitValues, int32(c))
	}
	for _, c := range r.Exclude {
		qe.ExcludeExitValues = append(qe.ExcludeExitValues, int32(c))
	}
}

func queueExec(q *config.Queue) *api.QueueExec {
	qe := &api.QueueExec{
		Name: q.Name, Priority: int32(q.Priority), Nice: int32(q.Nice), PreExec: q.PreExec, PostExec: q.PostExec,
		PrePostExecUser: q.PrePostExecUser, JobStarter: q.JobStarter, StopCond: q.StopCond.Text,
		ResumeCond: q.ResumeCond.Text, TerminateWhen: q.TerminateWhen, Rerunnable: q.Rerunnable,
	}
	if !q.RunWindow.Always() {
		qe.RunWindow = q.RunWindow.String()
	}
	qe.SuspendAction = actionText(q.JobControls.Suspend)
	qe.ResumeAction = actionText(q.JobControls.Resume)
	qe.TerminateAction = actionText(q.JobControls.Terminate)
	setRequeue(qe, q.RequeueExitValues)
	for _, t := range q.Thresholds {
		qe.Thresholds = append(qe.Thresholds, threshold(t))
	}
	return qe
}

func actionText(a config.JobAction) string {
	if a.Kind == config.ActionDefault {
		return ""
	}
	return strings.TrimSpace(a.String())
}

func threshold(t config.LoadThreshold) *api.Threshold {
	th := &api.Threshold{Index: t.Index}
	if t.HasSched {
		th.Sched, th.HasSched = t.Sched, true
	}
	if t.HasStop {
		th.Stop, th.HasStop = t.Stop, true
	}
	return th
}

// effectiveLimits merges the job's limits with the queue's defaults and
// maxima (the job's own value wins when given; the queue default applies
// otherwise; a maximum caps both).
func effectiveLimits(job *api.Limits, app *config.Application, q *config.Queue) *api.Limits {
	l := &api.Limits{}
	if job != nil {
		*l = *job
	}
	// The job's limits, else the application profile's, else the queue's.
	if app != nil {
		fillLimits(l, app.Limits)
	}
	if q != nil {
		fillLimits(l, q.Limits)
	}
	return l
}

// fillLimits sets the limits l does not set from rl (the default limit if
// any, else the maximum).
func fillLimits(l *api.Limits, rl config.ResourceLimits) {
	pickT := func(v *int64, tl config.TimeLimit) {
		if *v == 0 && tl.Default > 0 {
			*v = int64(tl.Default.Seconds())
		}
		if *v == 0 && tl.Max > 0 {
			*v = int64(tl.Max.Seconds())
		}
	}
	pickS := func(v *int64, sl config.SizeLimit) {
		if !sl.Set {
			return
		}
		if *v == 0 && sl.Default > 0 {
			*v = sl.Default
		}
		if *v == 0 && sl.Max > 0 {
			*v = sl.Max
		}
	}
	pickT(&l.Run, rl.Run)
	pickT(&l.CPU, rl.CPU)
	pickS(&l.Mem, rl.Mem)
	pickS(&l.Data, rl.Data)
	pickS(&l.Process, rl.Process)
	pickS(&l.Thread, rl.Thread)
	pickS(&l.File, rl.File)
	pickS(&l.Stack, rl.Stack)
	if l.Core == 0 && !l.CoreZero && rl.Core.Zero() {
		l.CoreZero = true
	}
	pickS(&l.Core, rl.Core)
	pickS(&l.Swap, rl.Swap)
}

// housekeeping removes finished jobs after CLEAN_PERIOD and reloads the
// configuration when an #if time() block changes.
func (s *Server) housekeeping(ctx context.Context) {
	tick := s.clock.NewTicker(10 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C():
		}
		cfg := s.cfg.Current()
		if !cfg.NextChange.IsZero() && !s.clock.Now().Before(cfg.NextChange) {
			if err := s.cfg.Reload(ctx); err != nil {
				s.log.Warn("time-based reconfiguration failed", "err", err)
			}
		}
		s.clean(ctx, cfg)
		s.rsvTick(ctx)
		s.periodicChkpnts(ctx, cfg) // chkpnt.go
		s.migThresholds(ctx, cfg)   // migrate.go
		s.sampleHosts(cfg)          // showstatus.go
	}
}

// clean proposes JOB_CLEAN for jobs finished more than CLEAN_PERIOD ago.
func (s *Server) clean(ctx context.Context, cfg *config.Config) {
	period := cfg.Params.CleanPeriod
	if period <= 0 {
		period = time.Hour
	}
	cutoff := s.clock.Now().Add(-period).Unix()
	var evs []*api.Event
	s.st.View(func(v *state.View) {
		v.Jobs(func(j *state.Job) bool {
			if job.Finished(j.State) && j.EndTime > 0 && j.EndTime < cutoff {
				evs = append(evs, &api.Event{JobClean: &api.EvJobClean{JobID: j.ID, Index: j.Index}})
				if len(evs) >= 10000 {
					return false
				}
			}
			return true
		})
	})
	if len(evs) == 0 {
		return
	}
	if _, err := s.prop.Propose(ctx, evs...); err != nil {
		s.log.Warn("cleaning finished jobs", "err", err)
	}
	s.usageMu.Lock()
	for _, e := range evs {
		delete(s.usage, state.Key{ID: e.JobClean.JobID, Index: e.JobClean.Index})
	}
	s.usageMu.Unlock()
}
