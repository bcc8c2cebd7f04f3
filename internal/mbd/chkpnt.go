package mbd

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/chkpnt"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/job"
	"github.com/basalt-lsf/basalt/internal/lsberr"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
)

// Checkpointing (bchkpnt, periodic checkpoints, bmig's checkpoint): mbatchd
// asks the job's sbatchd (ActChkpnt), which runs echkpnt and answers when
// it ends; the answer becomes two events, the checkpoint initiated (with
// echkpnt's PID) and its outcome (EvJobChkpnt: lsb.events JOB_SIGACT and
// CHKPNT, bhist's lines). The checkpoints in progress are volatile: a
// master that restarts in the middle loses the answer (the job goes on;
// its next checkpoint is taken as usual).

// chkpntWait bounds a checkpoint: echkpnt is a site's program and may take
// long, but not for ever.
const chkpntWait = 30 * time.Minute

// chkpntTracker is the set of checkpoints in progress, and when periodic
// checkpoints were last tried (a failing one is tried again a period
// later, not at every tick).
type chkpntTracker struct {
	mu    sync.Mutex
	now   map[state.Key]bool
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

func (c *chkpntTracker) begin(k state.Key) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.now[k] {
		return false
	}
	if c.now == nil {
		c.now = map[state.Key]bool{}
	}
	c.now[k] = true
	return true
}

func (c *chkpntTracker) end(k state.Key) {
	c.mu.Lock()
	delete(c.now, k)
	c.mu.Unlock()
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
	return s.startChkpnt(id, t, c, req.ChkpntKill, req.ChkpntForce, false)
}

// startChkpnt asks the job's sbatchd for a checkpoint and records its
// outcome when it comes; it returns once the request is under way.
func (s *Server) startChkpnt(id auth.Identity, t target, c chkpntSpec, kill, force, migrate bool) error {
	if t.host == "" || !s.sess.connected(t.host) {
		return lsberr.New(lsberr.NotRunning)
	}
	if !s.chk.begin(t.key) {
		return lsberr.Errorf(lsberr.BadArg, "Job is already being checkpointed")
	}
	go func() {
		defer s.chk.end(t.key)
		ctx, cancel := context.WithTimeout(context.Background(), chkpntWait)
		defer cancel()
		k := &api.EvJobChkpnt{JobID: t.key.ID, Index: t.key.Index, Kill: kill, Migrate: migrate, Period: c.period,
			RunCount: t.run, JobState: t.state}
		// The job is killed (-k, bmig) only once the checkpoint is
		// recorded, so that its next run is known to restart from it.
		sig := &api.JobSignal{JobID: t.key.ID, Index: t.key.Index, Action: api.ActChkpnt, ChkpntForce: force}
		var ack *api.Ack
		var err error
		if sess := s.sess.get(t.host); sess == nil {
			err = errSessionGone
		} else {
			ack, err = sess.call(ctx, &api.MbdMessage{Signal: sig})
		}
		done := *k
		done.Phase = api.ChkpntSucceeded
		switch {
		case err != nil:
			done.Phase, done.Message = api.ChkpntFailed, err.Error()
		case ackErr(ack) != nil:
			done.Phase, done.Message = api.ChkpntFailed, ack.Status.Message
		}
		if ack != nil {
			k.ActPID, done.ActPID = ack.PID, ack.PID
		}
		k.Phase = api.ChkpntInitiated
		if done.Phase == api.ChkpntFailed {
			s.log.Warn("checkpoint failed", "job", t.key, "host", t.host, "err", done.Message)
			if migrate {
				s.mig.take(t.key) // the job goes on where it is
			}
		}
		ev := func(x *api.EvJobChkpnt) *api.Event {
			return &api.Event{User: id.User, UID: int32(id.UID), JobChkpnt: x}
		}
		if _, err := s.prop.Propose(ctx, ev(k), ev(&done)); err != nil {
			s.log.Warn("recording a checkpoint", "job", t.key, "err", err)
			if migrate {
				s.mig.take(t.key)
			}
			return
		}
		if done.Phase != api.ChkpntSucceeded || !kill && !migrate {
			return
		}
		end := &api.JobSignal{JobID: t.key.ID, Index: t.key.Index, Action: api.ActSignal, Signal: int32(syscall.SIGKILL), TermReason: "TERM_CHKPNT"}
		if migrate {
			end = &api.JobSignal{JobID: t.key.ID, Index: t.key.Index, Action: api.ActRequeue, TermReason: "TERM_CHKPNT"}
		}
		if err := s.signalSbd(ctx, t.host, end); err != nil {
			s.log.Warn("ending a checkpointed job", "job", t.key, "host", t.host, "err", err)
		}
	}()
	return nil
}

// chkpntDue reports whether a running job's periodic checkpoint is due at
// now (Unix seconds): a period has passed since its last checkpoint, or
// since its run started.
func chkpntDue(j *state.Job, c chkpntSpec, now, tried int64) bool {
	if c.dir == "" || c.period <= 0 || j.State != api.StateRun {
		return false
	}
	since := max(j.StartTime, j.ChkpntTime, tried)
	return now-since >= c.period
}

// periodicChkpnts starts the periodic checkpoints that are due (from the
// housekeeping tick, every 10 seconds: periods are in minutes).
func (s *Server) periodicChkpnts(cfg *config.Config) {
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
		_ = s.startChkpnt(auth.Identity{}, t, specs[i], false, false, false)
	}
}
