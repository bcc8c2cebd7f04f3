package mbd

import (
	"context"
	"errors"
	"io"
	"os"

	"github.com/basalt-lsf/basalt/api"
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
	if id := st.Identity(); !id.IsRoot() && !s.isAdmin(id, cfg) && id.UID != os.Getuid() {
		return rpc.Errorf(rpc.PermissionDenied, "User permission denied")
	}
	sess := &session{host: bh.Name, st: st, done: make(chan struct{})}
	s.sess.add(sess)
	s.log.Info("sbatchd connected", "host", bh.Name, "jobs", len(first.Hello.Jobs))
	defer func() {
		s.sess.remove(sess)
		close(sess.done)
		s.log.Info("sbatchd disconnected", "host", bh.Name)
		s.poke()
	}()

	known := map[state.Key]bool{}
	for _, r := range first.Hello.Jobs {
		known[state.Key{ID: r.JobID, Index: r.Index}] = true
		s.report(ctx, sess, r)
	}
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
	s.poke()
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
			s.report(ctx, sess, m.Status)
		case m.Ack != nil:
			sess.acked(m.Ack)
		}
	}
}

// report turns one status report into events and acknowledges final ones
// once they are durable.
func (s *Server) report(ctx context.Context, sess *session, r *api.JobStatusReport) {
	k := state.Key{ID: r.JobID, Index: r.Index}
	if r.Usage != nil {
		s.usageMu.Lock()
		s.usage[k] = r.Usage
		s.usageMu.Unlock()
	}
	final := r.Final || job.Finished(r.State)
	ack := func() {
		if final {
			if err := sess.send(&api.MbdMessage{Ack: &api.Ack{Seq: r.Seq}}); err != nil {
				s.log.Debug("ack to sbatchd", "host", sess.host, "err", err)
			}
		}
	}
	var evs []*api.Event
	s.st.View(func(v *state.View) {
		j := v.Job(k)
		if j == nil || (r.RunCount != 0 && r.RunCount != j.RunCount) || !job.Started(j.State) && !job.Finished(j.State) {
			return
		}
		if job.Finished(j.State) {
			// A repeated final report, or post-execution news for a finished job.
			if job.Finished(r.State) && (r.PostDone != j.PostDone || r.PostFailed != j.PostFailed) {
				evs = append(evs, &api.Event{JobStatus: &api.EvJobStatus{JobID: k.ID, Index: k.Index, State: j.State,
					PostDone: r.PostDone, PostFailed: r.PostFailed, RunCount: j.RunCount}})
			}
			return
		}
		if r.PID != 0 && r.PID != j.PID {
			evs = append(evs, &api.Event{JobExecute: &api.EvJobExecute{JobID: k.ID, Index: k.Index, PID: r.PID, PGID: r.PGID,
				ExecCwd: r.ExecCwd, ExecHome: r.ExecHome, ExecUser: r.ExecUser}})
		}
		st := &api.EvJobStatus{JobID: k.ID, Index: k.Index, State: r.State, SuspReasons: r.SuspReasons,
			SuspSubreason: r.SuspSubreason, RunCount: j.RunCount}
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
		case job.Finished(r.State):
			if r.TermReason == "TERM_UNKNOWN" && (j.PID == 0 && r.PID == 0 || rerunnable(j)) {
				// Lost before it ever started, or rerunnable: run it again.
				st.State, st.PendReason = api.StatePend, pendSbdUnreach
				break
			}
			st.ExitStatus, st.TermReason, st.Usage = r.ExitStatus, r.TermReason, r.Usage
			st.PostDone, st.PostFailed = r.PostDone, r.PostFailed
		case r.State == j.State && r.SuspReasons == j.SuspReasons:
			st = nil // nothing changed but usage
		}
		if st != nil {
			evs = append(evs, &api.Event{JobStatus: st})
		}
	})
	if len(evs) == 0 {
		ack()
		return
	}
	errs, err := s.prop.Propose(ctx, evs...)
	if err != nil {
		s.log.Warn("status report not recorded", "job", k, "err", err)
		return // not acknowledged: sbatchd sends it again
	}
	for _, e := range errs {
		if e != nil {
			s.log.Debug("status report", "job", k, "err", e)
		}
	}
	ack()
}

func rerunnable(j *state.Job) bool { return j.Spec.Rerunnable }
