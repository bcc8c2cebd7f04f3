package mbd

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/chkpnt"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/job"
	"github.com/basalt-lsf/basalt/internal/lsberr"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
)

// Checkpointing (bchkpnt, periodic checkpoints, bmig's checkpoint) is
// durable: mbatchd records the request in the log when it accepts it
// (EvJobChkpnt Requested, numbered per job: the job's ChkpntReq is pending)
// and only then asks the job's sbatchd (ActChkpnt with the number). The
// shepherd acknowledges once echkpnt has started and keeps the outcome in
// the run's status, which every later report carries (its final one
// included, kept by sbatchd until mbatchd acknowledges it); the master
// that gets it records the checkpoint initiated and its outcome
// (lsb.events JOB_SIGACT and CHKPNT, bhist's lines), once: a request's
// steps apply only while it is pending. The follow-up is the shepherd's:
// after a success with -k it kills the job (TERM_CHKPNT), for bmig it ends
// the run requeued, so the outcome always precedes the run's end in the
// log and the job is killed once whatever happens to mbatchd meanwhile. A
// master sends the pending requests again to a host's new session (the
// shepherd ignores a request it already had); a run that ends without the
// outcome fails its request.

// chkpntTracker notes when periodic checkpoints were last tried (a failing
// one is tried again a period later, not at every tick).
type chkpntTracker struct {
	mu    sync.Mutex
	tried map[state.Key]int64
}

// lastTried is when a periodic checkpoint of k was last tried.
func (c *chkpntTracker) lastTried(k state.Key) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tried[k]
}

// tryAt notes a periodic checkpoint of k tried at t, and forgets the jobs
// not in keep.
func (c *chkpntTracker) tryAt(k state.Key, t int64, keep func(state.Key) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tried == nil {
		c.tried = map[state.Key]int64{}
	}
	for o := range c.tried {
		if !keep(o) {
			delete(c.tried, o)
		}
	}
	c.tried[k] = t
}

// chkpntSpec is a job's effective checkpoint specification: the job's -k
// over its application profile's CHKPNT_DIR/CHKPNT_PERIOD/CHKPNT_METHOD
// over its queue's CHKPNT, with a bchkpnt -p period over all of them.
// Period is in seconds.
type chkpntSpec struct {
	dir    string
	period int64
	method string
}

func effectiveChkpnt(cfg *config.Config, j *state.Job) chkpntSpec {
	var c chkpntSpec
	if q := cfg.Queue(j.Queue); q != nil && q.Chkpnt != nil {
		c.dir, c.period = q.Chkpnt.Dir, int64(q.Chkpnt.Period/time.Second)
	}
	if a := cfg.Application(j.Spec.App); a != nil {
		for _, kv := range a.Raw {
			switch strings.ToUpper(kv.Key) {
			case "CHKPNT_DIR":
				c.dir = kv.Value
			case "CHKPNT_PERIOD":
				if m, err := strconv.Atoi(kv.Value); err == nil && m > 0 {
					c.period = int64(m) * 60
				}
			case "CHKPNT_METHOD":
				c.method = kv.Value
			}
		}
	}
	if j.Spec.ChkpntDir != "" {
		c.dir = j.Spec.ChkpntDir
		if j.Spec.ChkpntPeriod > 0 {
			c.period = j.Spec.ChkpntPeriod
		}
	}
	if j.Spec.ChkpntMethod != "" {
		c.method = j.Spec.ChkpntMethod
	}
	if j.ChkpntPeriodSet {
		c.period = j.ChkpntPeriod
	}
	return c
}

// foldChkpnt puts a job's effective checkpoint into its launch, and makes
// a run that follows a successful checkpoint (bmig, a requeue) or a job
// brestart submitted restart through LSF_SERVERDIR/erestart, with the
// job's own command in LSB_ERESTART_USRCMD.
func foldChkpnt(cfg *config.Config, l *api.JobLaunch, j *state.Job) {
	c := effectiveChkpnt(cfg, j)
	l.Spec.ChkpntDir, l.Spec.ChkpntPeriod, l.Spec.ChkpntMethod = c.dir, c.period, c.method
	from := ""
	switch {
	case c.dir != "" && j.Chkpnts > 0 && j.RunCount > 1:
		from = chkpnt.JobDir(c.dir, j.ID, j.Index)
	case l.Spec.RestartDir != "":
		from = l.Spec.RestartDir
	}
	if from == "" {
		return
	}
	force := ""
	if l.Spec.RestartForce {
		force = "-f "
	}
	l.Spec.Env = append(append([]string(nil), l.Spec.Env...), "LSB_ERESTART_USRCMD="+l.Spec.Command)
	l.Spec.Command = `exec "$LSF_SERVERDIR/erestart" ` + force + chkpnt.ShellQuote(from)
}

// chkpntJob is bchkpnt for one job.
func (s *Server) chkpntJob(ctx context.Context, cfg *config.Config, id auth.Identity, req *api.ControlRequest, t target) error {
	switch {
	case job.Finished(t.state):
		return lsberr.New(lsberr.JobFinished)
	case !job.Started(t.state):
		return lsberr.New(lsberr.NotStarted)
	}
	var c chkpntSpec
	s.st.View(func(v *state.View) {
		if j := v.Job(t.key); j != nil {
			c = effectiveChkpnt(cfg, j)
		}
	})
	if c.dir == "" {
		return lsberr.New(lsberr.NotChkpntable)
	}
	if req.SetChkpntPeriod {
		c.period = max(req.ChkpntPeriod, 0)
		e := &api.Event{User: id.User, UID: int32(id.UID), JobChkpnt: &api.EvJobChkpnt{JobID: t.key.ID, Index: t.key.Index,
			Period: c.period, SetPeriod: true, RunCount: t.run}}
		if err := s.propose(ctx, e); err != nil {
			return err
		}
	}
	return s.startChkpnt(ctx, id, t, c, req.ChkpntKill, req.ChkpntForce, false)
}

// chkpntAckWait bounds the wait for sbatchd's acknowledgement of a
// checkpoint request (the shepherd answers once echkpnt has started; the
// outcome comes in the job's status reports).
const chkpntAckWait = time.Minute

// startChkpnt records a checkpoint request and sends it to the job's
// sbatchd; it returns once the request is recorded.
func (s *Server) startChkpnt(ctx context.Context, id auth.Identity, t target, c chkpntSpec, kill, force, migrate bool) error {
	if t.host == "" || !s.sess.connected(t.host) {
		return lsberr.New(lsberr.NotRunning)
	}
	var seq int64
	busy := false
	s.st.View(func(v *state.View) {
		if j := v.Job(t.key); j != nil {
			seq, busy = j.ChkpntReqs+1, j.ChkpntReq != 0
		}
	})
	if busy || seq == 0 {
		return lsberr.Errorf(lsberr.BadArg, "%s", state.ErrChkpntBusy)
	}
	req := &api.EvJobChkpnt{JobID: t.key.ID, Index: t.key.Index, Requested: true, ReqSeq: seq, Kill: kill, Migrate: migrate,
		Force: force, Period: c.period, RunCount: t.run, JobState: t.state}
	errs, err := s.prop.Propose(ctx, &api.Event{User: id.User, UID: int32(id.UID), JobChkpnt: req})
	switch {
	case err != nil:
		return s.unavailable(err)
	case errors.Is(errs[0], state.ErrChkpntBusy), errors.Is(errs[0], state.ErrStale):
		return lsberr.Errorf(lsberr.BadArg, "%s", state.ErrChkpntBusy)
	case errs[0] != nil:
		return lsberr.Errorf(lsberr.MbdInternal, "%v", errs[0])
	}
	go s.sendChkpnt(context.WithoutCancel(ctx), t.host, chkpntSignal(t.key, seq, kill, force, migrate))
	return nil
}

// chkpntSignal is the request numbered seq to sbatchd. -k and bmig's
// requeue are the shepherd's to carry out after a success.
func chkpntSignal(k state.Key, seq int64, kill, force, migrate bool) *api.JobSignal {
	return &api.JobSignal{JobID: k.ID, Index: k.Index, Action: api.ActChkpnt, ChkpntReq: seq, ChkpntKill: kill || migrate,
		ChkpntRequeue: migrate, ChkpntForce: force, TermReason: "TERM_CHKPNT"}
}

// sendChkpnt delivers a pending checkpoint request to host. A refusal
// (the job cannot be checkpointed there) is its outcome; an unanswered
// request stays pending and is sent again to the host's next session.
func (s *Server) sendChkpnt(ctx context.Context, host string, sig *api.JobSignal) {
	sess := s.sess.get(host)
	if sess == nil {
		return
	}
	cctx, cancel := context.WithTimeout(ctx, chkpntAckWait)
	defer cancel()
	ack, err := sess.call(cctx, &api.MbdMessage{Signal: sig})
	if err != nil {
		s.log.Warn("checkpoint request not acknowledged; sent again when the host's sbatchd reconnects", "host", host,
			"job", state.Key{ID: sig.JobID, Index: sig.Index}, "err", err)
		return
	}
	if ackErr(ack) == nil {
		return
	}
	k := state.Key{ID: sig.JobID, Index: sig.Index}
	var evs []*api.Event
	s.st.View(func(v *state.View) {
		if j := v.Job(k); j != nil && j.ChkpntReq == sig.ChkpntReq {
			evs = s.chkpntOutcome(j, sig.ChkpntReq, api.ChkpntFailed, ack.PID, ack.Status.Message)
		}
	})
	if len(evs) == 0 {
		return
	}
	if _, err := s.prop.Propose(ctx, evs...); err != nil {
		// Still pending: sent again (and refused again) at the host's next
		// session.
		s.log.Warn("recording a failed checkpoint", "job", k, "err", err)
	}
}

// chkpntOutcome is the events that record the outcome of j's checkpoint
// request seq: initiated, then succeeded or failed (why, in msg). A
// failed migration's tracking ends: the job goes on where it is.
func (s *Server) chkpntOutcome(j *state.Job, seq int64, phase, pid int32, msg string) []*api.Event {
	f := j.ChkpntReqFlags
	if phase == api.ChkpntFailed {
		s.log.Warn("checkpoint failed", "job", j.Key, "err", msg)
		if f&state.ChkpntReqMigrate != 0 {
			s.mig.take(j.Key)
		}
	} else {
		msg = ""
	}
	c := effectiveChkpnt(s.cfg.Current(), j)
	k := api.EvJobChkpnt{JobID: j.Key.ID, Index: j.Key.Index, ReqSeq: seq, ActPID: pid, Kill: f&state.ChkpntReqKill != 0,
		Migrate: f&state.ChkpntReqMigrate != 0, Force: f&state.ChkpntReqForce != 0, Period: c.period, RunCount: j.RunCount,
		JobState: j.ChkpntReqState, Phase: api.ChkpntInitiated}
	done := k
	done.Phase, done.Message = phase, msg
	return []*api.Event{
		{User: j.ChkpntReqUser, JobChkpnt: &k},
		{User: j.ChkpntReqUser, JobChkpnt: &done},
	}
}

// reportChkpnt is the events a status report of j's current run calls for
// about its checkpoint request in progress: the outcome when the report
// has it, a failure when the run ended without it (a request that never
// reached the shepherd, or a run that ended first). cur is what the
// batch's earlier reports recorded for the job.
func (s *Server) reportChkpnt(j *state.Job, r *api.JobStatusReport, cur *reported) []*api.Event {
	if j.ChkpntReq == 0 || cur.chkpnt == j.ChkpntReq {
		return nil
	}
	switch {
	case r.ChkpntReq == j.ChkpntReq && (r.ChkpntPhase == api.ChkpntSucceeded || r.ChkpntPhase == api.ChkpntFailed):
		cur.chkpnt = j.ChkpntReq
		return s.chkpntOutcome(j, j.ChkpntReq, r.ChkpntPhase, r.ChkpntPID, r.ChkpntErr)
	case r.Final || job.Finished(r.State) || r.State == api.StatePend || r.Requeue:
		cur.chkpnt = j.ChkpntReq
		return s.chkpntOutcome(j, j.ChkpntReq, api.ChkpntFailed, r.ChkpntPID, "the job's run ended before its checkpoint")
	}
	return nil
}

// chkpntMigrated reports whether a requeue report ends a run that a
// successful bmig checkpoint asked the shepherd to requeue (the migration
// is then carried out even by a master that did not see bmig).
func chkpntMigrated(j *state.Job, r *api.JobStatusReport) bool {
	return r.ChkpntReq != 0 && r.ChkpntReq == j.ChkpntReqs && r.ChkpntPhase == api.ChkpntSucceeded &&
		j.ChkpntReqFlags&state.ChkpntReqMigrate != 0
}

// resendChkpnts sends host's new session the checkpoint requests pending
// for jobs running there (the shepherd ignores those it already had).
func (s *Server) resendChkpnts(ctx context.Context, host string) {
	var sigs []*api.JobSignal
	s.st.View(func(v *state.View) {
		v.OnHost(host, func(j *state.Job) bool {
			if j.ChkpntReq != 0 && len(j.ExecHosts) > 0 && j.ExecHosts[0].Host == host && job.Started(j.State) && !job.Finished(j.State) {
				f := j.ChkpntReqFlags
				sigs = append(sigs, chkpntSignal(j.Key, j.ChkpntReq, f&state.ChkpntReqKill != 0, f&state.ChkpntReqForce != 0,
					f&state.ChkpntReqMigrate != 0))
			}
			return true
		})
	})
	for _, sig := range sigs {
		s.log.Info("checkpoint request pending: sent again", "host", host, "job", state.Key{ID: sig.JobID, Index: sig.Index}, "request", sig.ChkpntReq)
		s.sendChkpnt(ctx, host, sig)
	}
}

// chkpntDue reports whether a running job's periodic checkpoint is due at
// now (Unix seconds): a period has passed since its last checkpoint, or
// since its run started.
func chkpntDue(j *state.Job, c chkpntSpec, now, tried int64) bool {
	if c.dir == "" || c.period <= 0 || j.State != api.StateRun || j.ChkpntReq != 0 {
		return false
	}
	since := max(j.StartTime, j.ChkpntTime, tried)
	return now-since >= c.period
}

// periodicChkpnts starts the periodic checkpoints that are due (from the
// housekeeping tick, every 10 seconds: periods are in minutes).
func (s *Server) periodicChkpnts(ctx context.Context, cfg *config.Config) {
	now := s.clock.Now().Unix()
	var due []target
	var specs []chkpntSpec
	running := map[state.Key]bool{}
	s.st.View(func(v *state.View) {
		v.Jobs(func(j *state.Job) bool {
			if j.State != api.StateRun || len(j.ExecHosts) == 0 {
				return true
			}
			c := effectiveChkpnt(cfg, j)
			if c.period > 0 {
				running[j.Key] = true
			}
			if chkpntDue(j, c, now, s.chk.lastTried(j.Key)) {
				due = append(due, target{key: j.Key, state: j.State, queue: j.Queue, user: j.User, host: j.ExecHosts[0].Host, run: j.RunCount})
				specs = append(specs, c)
			}
			return true
		})
	})
	for i, t := range due {
		// Busy (a checkpoint in progress), unreachable or failing: tried
		// again a period later.
		s.chk.tryAt(t.key, now, func(k state.Key) bool { return running[k] })
		_ = s.startChkpnt(ctx, auth.Identity{}, t, specs[i], false, false, false)
	}
}
