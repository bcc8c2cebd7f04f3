package mbd

import (
	"context"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/job"
	"github.com/basalt-lsf/basalt/internal/mbd/sched"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
)

// Server-side glue of the scheduling policies: what a pass decides besides
// dispatching (preemptions, resumptions of preempted jobs), and what it
// publishes for the commands (reservations, share accounts).

// policyInput completes a pass's input with what only the server knows:
// the usage sbatchd reported for running jobs (fairshare CPU time).
func (s *Server) policyInput(in *sched.Input) {
	in.RunningUsage = func(k state.Key) *api.Usage {
		s.usageMu.Lock()
		defer s.usageMu.Unlock()
		return s.usage[k]
	}
}

// carryOut records and sends the preemptions and resumptions of a plan,
// before its dispatches: each is a JOB_SIGNAL event (preemption marked, so
// the state counts it against MAX_JOB_PREEMPT) and then the job control
// sent to the job's first execution host through its sbatchd session.
// Preempted jobs are suspended with SUSP_RESCHED_PREEMPT through the
// queue's SUSPEND action, or terminated with TERM_PREEMPT
// (TERMINATE_WHEN=PREEMPT); sbatchd never resumes them on load, mbatchd
// does. An action that cannot be recorded is forgotten by the scheduler,
// which decides again next pass.
func (s *Server) carryOut(ctx context.Context, plan *sched.Plan) {
	type send struct {
		host string
		sig  *api.JobSignal
	}
	var evs []*api.Event
	var keys []state.Key
	var sends []send
	for _, p := range plan.Preemptions {
		ev := &api.EvJobSignal{JobID: p.Key.ID, Index: p.Key.Index, Preempt: true, RunCount: p.RunCount,
			Action: int32(api.ActSuspend), Signal: "STOP"}
		sig := &api.JobSignal{JobID: p.Key.ID, Index: p.Key.Index, Action: api.ActSuspend, SuspReasons: sched.SuspReschedPreempt}
		if p.Terminate {
			ev.Action, ev.Signal, ev.TermReason = int32(api.ActTerminate), "KILL", sched.TermPreempt
			sig = &api.JobSignal{JobID: p.Key.ID, Index: p.Key.Index, Action: api.ActTerminate, TermReason: sched.TermPreempt}
		}
		evs = append(evs, &api.Event{JobSignal: ev})
		keys = append(keys, p.Key)
		sends = append(sends, send{p.Host, sig})
	}
	for _, r := range plan.Resumes {
		evs = append(evs, &api.Event{JobSignal: &api.EvJobSignal{JobID: r.Key.ID, Index: r.Key.Index, RunCount: r.RunCount,
			Action: int32(api.ActResume), Signal: "CONT"}})
		keys = append(keys, r.Key)
		sends = append(sends, send{r.Host, &api.JobSignal{JobID: r.Key.ID, Index: r.Key.Index, Action: api.ActResume}})
	}
	if len(evs) == 0 {
		return
	}
	errs, err := s.prop.Propose(ctx, evs...)
	if err != nil {
		s.log.Warn("preemption not recorded", "err", err)
		for _, k := range keys {
			s.sched.Forget(k)
		}
		return
	}
	for i, sd := range sends {
		if errs[i] != nil {
			s.log.Warn("preemption rejected", "job", keys[i], "err", errs[i])
			s.sched.Forget(keys[i])
			continue
		}
		go func(sd send) {
			if err := s.signalSbd(ctx, sd.host, sd.sig); err != nil {
				s.log.Warn("preemption signal", "job", sd.sig.JobID, "host", sd.host, "err", err)
			}
		}(sd)
	}
}

// policyApplied feeds the scheduler's fairshare history with the runs an
// applied log entry ended. The FSM's applied hook calls it (after the state
// applied the entry).
func (s *Server) policyApplied(e *api.LogEntry) {
	ends := false
	for _, ev := range e.Events {
		if ev.JobStatus != nil && job.Finished(ev.JobStatus.State) {
			ends = true
			break
		}
	}
	if !ends {
		return
	}
	var runs []sched.FinishedRun
	s.st.View(func(v *state.View) {
		for _, ev := range e.Events {
			st := ev.JobStatus
			if st == nil || !job.Finished(st.State) {
				continue
			}
			r, ok := sched.FinishedRunOf(v.Job(state.Key{ID: st.JobID, Index: st.Index}))
			if !ok {
				continue
			}
			runs = append(runs, r)
		}
	})
	for _, r := range runs {
		s.sched.Feed().Finished(r)
	}
}

// hostReservation is what bhosts -l shows as reserved on host: rusage
// amounts (LoadValue.Reserved; Total is the load minus them) and slots
// held by processor reservations (RSV); nil when nothing is reserved.
func (s *Server) hostReservation(host string) *sched.HostReservation {
	if p := s.sched.Published(); p != nil {
		return p.Reserved[host]
	}
	return nil
}

// queueShares are a fairshare queue's accounts (bqueues -l), and
// partitionShares a host partition's (bhpart).
func (s *Server) queueShares(queue string) []*api.ShareAccount {
	if p := s.sched.Published(); p != nil {
		return p.QueueShares[queue]
	}
	return nil
}

func (s *Server) partitionShares(part string) []*api.ShareAccount {
	if p := s.sched.Published(); p != nil {
		return p.PartitionShares[part]
	}
	return nil
}

func unixTime(sec int64) time.Time {
	if sec <= 0 {
		return time.Time{}
	}
	return time.Unix(sec, 0)
}
