package mbd

import (
	"context"
	"errors"
	"io"
	"slices"
	"sync"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/job"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

// Pending reasons mbatchd sets for runs that end before starting.
const (
	pendSbdUnreach  int32 = 1601 // Unable to reach slave batch server
	pendJobRequeued int32 = 23   // Requeue the job for the next run
)

// sbdSession serves one sbatchd's bidirectional session.
func (s *Server) sbdSession(ctx context.Context, st *rpc.ServerStream) error {
	var first api.SbdMessage
	if err := st.Recv(&first); err != nil {
		return err
	}
	if first.Hello == nil {
		return rpc.Errorf(rpc.InvalidArgument, "sbatchd session must start with a hello")
	}
	cfg := s.cfg.Current()
	host := first.Hello.Host
	bh := cfg.BatchHost(host)
	if bh == nil {
		return rpc.Errorf(rpc.PermissionDenied, "%s: Request from non-LSF host rejected", host)
	}
	// Only the sbatchd of the host the session speaks for.
	if id := st.Identity(); !id.IsDaemon(auth.KindSbatchd, bh.Name) {
		s.log.Warn("sbatchd session refused: not from the sbatchd of its host", "host", bh.Name, "user", id.User, "daemon", id.Daemon, "from", id.Host, "addr", id.Addr)
		return rpc.Errorf(rpc.PermissionDenied, "User permission denied")
	}
	sess := &session{host: bh.Name, st: st, done: make(chan struct{}), welcomed: make(chan struct{})}
	sess.notServing.Store(first.Hello.NotServing)
	s.sess.add(sess)
	s.log.Info("sbatchd connected", "host", bh.Name, "jobs", len(first.Hello.Jobs))
	defer func() {
		s.sess.remove(sess, s.clock.Now())
		close(sess.done)
		s.log.Info("sbatchd disconnected", "host", bh.Name)
		s.poke()
	}()

	known := map[state.Key]bool{}
	for _, r := range first.Hello.Jobs {
		known[state.Key{ID: r.JobID, Index: r.Index}] = true
	}
	s.reports(ctx, sess, first.Hello.Jobs)
	welcome := &api.SbdWelcome{}
	s.st.View(func(v *state.View) {
		v.OnHost(bh.Name, func(j *state.Job) bool {
			if len(j.ExecHosts) > 0 && j.ExecHosts[0].Host == bh.Name && !known[j.Key] && j.State != api.StateUnkwn {
				welcome.Jobs = append(welcome.Jobs, s.launchRecord(cfg, j))
			}
			return true
		})
	})
	if err := sess.send(&api.MbdMessage{Welcome: welcome}); err != nil {
		return err
	}
	close(sess.welcomed)
	go s.resendSignals(context.WithoutCancel(ctx), bh.Name)
	go s.resendChkpnts(context.WithoutCancel(ctx), bh.Name) // chkpnt.go
	s.poke()
	// Status reports are recorded by a goroutine of their own, in batches:
	// while one batch commits, the next accumulates, so a host's reports
	// cost one commit per batch, not one each, and acknowledgements keep
	// flowing meanwhile.
	q := &reportQueue{wake: make(chan struct{}, 1), space: make(chan struct{}, 1)}
	rctx, stop := context.WithCancel(ctx)
	reporter := make(chan struct{})
	go func() {
		defer close(reporter)
		for {
			select {
			case <-rctx.Done():
				return
			case <-q.wake:
			}
			for rs := q.take(); len(rs) > 0; rs = q.take() {
				s.reports(rctx, sess, rs)
			}
		}
	}()
	defer func() { stop(); <-reporter }()
	for {
		var m api.SbdMessage
		err := st.Recv(&m)
		if err == io.EOF || errors.Is(err, context.Canceled) {
			return nil
		}
		if err != nil {
			return err
		}
		switch {
		case m.Status != nil:
			if !q.put(ctx, m.Status) {
				return nil
			}
		case m.Ack != nil:
			sess.acked(m.Ack)
		case m.Health != nil:
			if sess.notServing.Swap(m.Health.NotServing) != m.Health.NotServing {
				s.log.Warn("sbatchd health", "host", bh.Name, "not_serving", m.Health.NotServing)
				s.poke()
			}
		}
	}
}

// reportQueue holds status reports between the session's reader and its
// reporter goroutine, at most maxQueuedReports: when it is full the reader
// waits, the session's RPC stream fills its window, and sbatchd's sends
// wait in turn (its own queue is bounded too).
type reportQueue struct {
	mu    sync.Mutex
	items []*api.JobStatusReport
	wake  chan struct{}
	space chan struct{}
}

// maxQueuedReports bounds a session's queued reports.
const maxQueuedReports = 4 * maxReportBatch

// put queues r, waiting while the queue is full; false if ctx ends first.
func (q *reportQueue) put(ctx context.Context, r *api.JobStatusReport) bool {
	for {
		q.mu.Lock()
		if len(q.items) < maxQueuedReports {
			q.items = append(q.items, r)
			q.mu.Unlock()
			select {
			case q.wake <- struct{}{}:
			default:
			}
			return true
		}
		q.mu.Unlock()
		select {
		case <-q.space:
		case <-ctx.Done():
			return false
		}
	}
}

// take removes and returns every queued report, at most maxReportBatch.
func (q *reportQueue) take() []*api.JobStatusReport {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := min(len(q.items), maxReportBatch)
	rs := q.items[:n:n]
	q.items = q.items[n:]
	if len(q.items) == 0 {
		q.items = nil
	}
	if n > 0 {
		select {
		case q.space <- struct{}{}:
		default:
		}
	}
	return rs
}

// maxReportBatch bounds the reports recorded in one commit.
const maxReportBatch = 1000

// reports turns status reports (in the order sbatchd sent them) into
// events, records them in one proposal, and acknowledges the final ones once
// they are durable. Nothing is acknowledged when the proposal fails:
// sbatchd sends its final reports again.
func (s *Server) reports(ctx context.Context, sess *session, rs []*api.JobStatusReport) {
	if len(rs) == 0 {
		return
	}
	s.usageMu.Lock()
	for _, r := range rs {
		if r.Usage != nil {
			s.usage[state.Key{ID: r.JobID, Index: r.Index}] = r.Usage
		}
	}
	s.usageMu.Unlock()
	var evs []*api.Event
	var kills []*api.JobSignal
	s.st.View(func(v *state.View) {
		// Reports of one batch are judged against the state before any of
		// them is applied, overlaid with what earlier reports recorded.
		seen := map[state.Key]*reported{}
		for _, r := range rs {
			e, kill := s.reportEvents(v, sess, r, seen)
			evs = append(evs, e...)
			if kill != nil {
				kills = append(kills, kill)
			}
		}
	})
	if len(kills) > 0 {
		go func() {
			for _, k := range kills {
				s.log.Warn("terminating a job run mbatchd no longer wants", "host", sess.host, "job", state.Key{ID: k.JobID, Index: k.Index})
				s.signalSbd(context.WithoutCancel(ctx), sess.host, k)
			}
		}()
	}
	if len(evs) > 0 {
		errs, err := s.prop.Propose(ctx, evs...)
		if err != nil {
			s.log.Warn("status reports not recorded", "host", sess.host, "reports", len(rs), "err", err)
			return
		}
		for i, e := range errs {
			if e != nil {
				s.log.Debug("status report", "event", evs[i], "err", e)
			}
		}
		s.launchMigrated(ctx, evs, errs)
	}
	for _, r := range rs {
		if r.Final || job.Finished(r.State) {
			if err := sess.send(&api.MbdMessage{Ack: &api.Ack{Seq: r.Seq}}); err != nil {
				s.log.Debug("ack to sbatchd", "host", sess.host, "err", err)
				return
			}
		}
	}
}

// reported is what earlier reports of a batch recorded for a job.
type reported struct {
	pid    int32
	state  api.JobState
	susp   int32
	chkpnt int64 // the checkpoint request whose outcome is recorded
}

// reportEvents is the events one status report calls for, and the run to
// terminate, if any: a run mbatchd killed while its host was out of contact
// (ZOMBI), or an earlier run of a job requeued since (its host failed).
func (s *Server) reportEvents(v *state.View, sess *session, r *api.JobStatusReport, seen map[state.Key]*reported) ([]*api.Event, *api.JobSignal) {
	k := state.Key{ID: r.JobID, Index: r.Index}
	j := v.Job(k)
	live := !r.Final && !job.Finished(r.State) && r.State != api.StatePend
	kill := &api.JobSignal{JobID: k.ID, Index: k.Index, Action: api.ActTerminate, TermReason: "TERM_ZOMBIE"}
	switch {
	case j == nil:
		return nil, nil
	case r.RunCount != 0 && r.RunCount < j.RunCount && live:
		return nil, kill
	case j.State == api.StateZombi && live:
		kill.TermReason = j.TermReason
		return nil, kill
	}
	return s.reportStatus(j, sess, r, seen), nil
}

// reportStatus is the events a report of the job's current run calls for.
func (s *Server) reportStatus(j *state.Job, sess *session, r *api.JobStatusReport, seen map[state.Key]*reported) []*api.Event {
	k := j.Key
	if (r.RunCount != 0 && r.RunCount != j.RunCount) || !job.Started(j.State) && !job.Finished(j.State) {
		return nil
	}
	var evs []*api.Event
	if job.Finished(j.State) {
		// A repeated final report, or post-execution news for a finished job.
		if job.Finished(r.State) && (r.PostDone != j.PostDone || r.PostFailed != j.PostFailed) {
			evs = append(evs, &api.Event{JobStatus: &api.EvJobStatus{JobID: k.ID, Index: k.Index, State: j.State,
				PostDone: r.PostDone, PostFailed: r.PostFailed, RunCount: j.RunCount}})
		}
		return evs
	}
	cur := seen[k]
	if cur == nil {
		cur = &reported{pid: j.PID, state: j.State, susp: j.SuspReasons}
		seen[k] = cur
	}
	if job.Finished(cur.state) || cur.state == api.StatePend {
		return nil // an earlier report of the batch ended this run
	}
	evs = append(evs, s.reportChkpnt(j, r, cur)...) // chkpnt.go
	if r.PID != 0 && r.PID != cur.pid {
		cur.pid = r.PID
		evs = append(evs, &api.Event{JobExecute: &api.EvJobExecute{JobID: k.ID, Index: k.Index, PID: r.PID, PGID: r.PGID,
			ExecCwd: r.ExecCwd, ExecHome: r.ExecHome, ExecUser: r.ExecUser}})
	}
	st := &api.EvJobStatus{JobID: k.ID, Index: k.Index, State: r.State, SuspReasons: r.SuspReasons,
		SuspSubreason: r.SuspSubreason, RunCount: j.RunCount}
	var migEvs []*api.Event
	switch {
	case r.State == api.StatePend || r.Requeue:
		st.State = api.StatePend
		st.PendReason = r.PendReason
		if st.PendReason == 0 {
			st.PendReason = pendJobRequeued
		}
		if r.ExcludeHost {
			st.ExcludeHost = sess.host
		}
		migEvs = s.migrated(s.cfg.Current(), j, sess.host, st, chkpntMigrated(j, r)) // bmig (migrate.go)
	case job.Finished(r.State):
		if r.TermReason == "TERM_UNKNOWN" && (j.PID == 0 && r.PID == 0 || rerunnable(j)) {
			// Lost before it ever started, or rerunnable: run it again.
			st.State, st.PendReason = api.StatePend, pendSbdUnreach
			break
		}
		st.ExitStatus, st.TermReason, st.Usage = r.ExitStatus, r.TermReason, r.Usage
		if st.State == api.StateExit && successExit(s.cfg.Current(), j, r.ExitStatus) {
			st.State = api.StateDone // SUCCESS_EXIT_VALUES of its application profile
		}
		st.PostDone, st.PostFailed = r.PostDone, r.PostFailed
	case r.State == cur.state && r.SuspReasons == cur.susp:
		st = nil // nothing changed but usage
	}
	if st != nil {
		cur.state, cur.susp = st.State, st.SuspReasons
		evs = append(evs, &api.Event{JobStatus: st})
	}
	return append(evs, migEvs...)
}

func rerunnable(j *state.Job) bool { return j.Spec.Rerunnable }

// successExit reports whether wait status ws is a normal exit with a code
// the job's application profile lists in SUCCESS_EXIT_VALUES.
func successExit(cfg *config.Config, j *state.Job, ws int32) bool {
	if j.Spec.App == "" || ws&0x7f != 0 {
		return false
	}
	a := cfg.Application(j.Spec.App)
	if a == nil {
		return false
	}
	return slices.Contains(a.SuccessExitValues, int(ws>>8&0xff))
}
