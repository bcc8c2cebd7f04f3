package mbd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/job"
	"github.com/basalt-lsf/basalt/internal/lsberr"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

func errNoJob(k state.Key) error {
	return rpc.Errorf(rpc.NotFound, "Job <%s> is not found", k)
}

// target is one job a control request acts on, seen under View.
type target struct {
	key     state.Key
	state   api.JobState
	queue   string
	user    string
	host    string // first execution host
	run     int32
	forcedN bool
	// array is the array's ID when the request named the whole array by
	// its ID: its elements answer as one (LSF's "Job <5> is being
	// terminated" for bkill 5).
	array int64
}

// control handles bkill, bstop, bresume, brequeue, brun, bswitch, btop, bbot.
func (s *Server) control(ctx context.Context, id auth.Identity, req *api.ControlRequest) (*api.ControlReply, error) {
	cfg := s.cfg.Current()
	reply := &api.ControlReply{}
	if err := selectorError(cfg, req.Queue, req.Host); err != nil {
		reply.Status = lsbStatus(err)
		return reply, nil
	}
	var targets []target
	s.st.View(func(v *state.View) {
		targets = s.controlTargets(v, cfg, id, req, reply)
	})
	if len(targets) == 0 && len(reply.Results) == 0 {
		reply.Status = &api.Status{Code: int32(lsberr.NoJob), Message: lsberr.NoJob.Text()}
		return reply, nil
	}
	results := make([]*api.ControlResult, len(targets))
	one := func(i int) {
		t := s.current(targets[i])
		targets[i] = t
		res := &api.ControlResult{Job: &api.JobRef{JobID: t.key.ID, Index: t.key.Index}}
		if !s.mayControl(id, cfg, t) {
			res.Status = &api.Status{Code: int32(lsberr.Permission), Message: lsberr.Permission.Text()}
		} else if err := s.controlOne(ctx, cfg, id, req, t, res); err != nil {
			res.Status = lsbStatus(err)
		}
		results[i] = res
	}
	if concurrentOp(req.Op) && len(targets) > 1 {
		// Each job is acted on independently: on many jobs at once (bkill 0),
		// their events share log entries (group commit) instead of waiting
		// for one commit each.
		var wg sync.WaitGroup
		sem := make(chan struct{}, controlWorkers)
		for i := range targets {
			sem <- struct{}{}
			wg.Add(1)
			go func() {
				defer func() { <-sem; wg.Done() }()
				one(i)
			}()
		}
		wg.Wait()
	} else {
		for i := range targets {
			one(i)
		}
	}
	arrays := map[int64]*api.ControlResult{}
	for i, t := range targets {
		res := results[i]
		if t.array == 0 {
			reply.Results = append(reply.Results, res)
			continue
		}
		// A whole array answers once: done when any element was, with the
		// first element's error otherwise.
		whole := arrays[t.array]
		if whole == nil {
			whole = &api.ControlResult{Job: &api.JobRef{JobID: t.array}, Status: res.Status, Detail: res.Detail}
			arrays[t.array] = whole
			reply.Results = append(reply.Results, whole)
		} else if res.Status == nil && whole.Status != nil {
			whole.Status, whole.Detail = nil, res.Detail
		}
	}
	return reply, nil
}

// controlWorkers bounds the jobs one request acts on at once.
const controlWorkers = 256

// concurrentOp reports whether op acts on each job independently of the
// others, so that a request's jobs may be acted on at once. Moving jobs in
// their queue (btop, bbot) and switching them keep the request's order.
func concurrentOp(op api.ControlOp) bool {
	switch op {
	case api.OpKill, api.OpStop, api.OpResume:
		return true
	}
	return false
}

// current re-reads t's job as it is now: a request's targets are resolved
// together, and acting on one takes time (an array's elements are killed
// one by one), during which a pending one may be dispatched.
func (s *Server) current(t target) target {
	s.st.View(func(v *state.View) {
		j := v.Job(t.key)
		if j == nil {
			return
		}
		t.state, t.queue, t.run, t.forcedN, t.host = j.State, j.Queue, j.RunCount, j.NoSuspend, ""
		if len(j.ExecHosts) > 0 {
			t.host = j.ExecHosts[0].Host
		}
	})
	return t
}

// startedSince acts again on a job that was pending when an action for a
// pending job was proposed, if it has been dispatched since: the pending
// action's event then changed nothing (sbatchd acts on a started job), and
// the started job's path must be taken.
func (s *Server) startedSince(ctx context.Context, cfg *config.Config, id auth.Identity, req *api.ControlRequest, t target, res *api.ControlResult) error {
	if n := s.current(t); job.Started(n.state) && n.run != t.run {
		return s.controlOne(ctx, cfg, id, req, n, res)
	}
	return nil
}

func (s *Server) mayControl(id auth.Identity, cfg *config.Config, t target) bool {
	return s.mayControlJob(id, cfg, t.user, t.queue)
}

// controlTargets resolves the jobs a request names.
func (s *Server) controlTargets(v *state.View, cfg *config.Config, id auth.Identity, req *api.ControlRequest, reply *api.ControlReply) []target {
	var out []target
	// The narrowing selectors (-app, -g, -sla, bkill -stat) apply to named
	// jobs too: a named job they exclude is not acted on.
	narrow := s.filter(cfg, id, &api.JobsRequest{User: "all", App: req.App, JobGroup: req.JobGroup, SLA: req.SLA, StateMask: req.StateMask})
	narrow.mask = ^uint32(0)
	if req.StateMask != 0 {
		narrow.mask = req.StateMask
	}
	narrowing := req.App != "" || req.JobGroup != "" || req.SLA != "" || req.StateMask != 0
	add := func(j *state.Job) bool {
		if !narrow.match(j) {
			return false
		}
		t := target{key: j.Key, state: j.State, queue: j.Queue, user: j.User, run: j.RunCount, forcedN: j.NoSuspend}
		if len(j.ExecHosts) > 0 {
			t.host = j.ExecHosts[0].Host
		}
		out = append(out, t)
		return true
	}
	if len(req.Jobs) > 0 && !req.AllJobs {
		for _, ref := range req.Jobs {
			found := false
			if ref.Index != 0 {
				if j := v.Job(state.Key{ID: ref.JobID, Index: ref.Index}); j != nil {
					found = add(j)
				}
			} else if j := v.Job(state.Key{ID: ref.JobID}); j != nil {
				found = add(j)
			} else {
				n, exists := len(out), false
				v.Elements(ref.JobID, func(j *state.Job) bool {
					exists = true
					if (!job.Finished(j.State) || req.Op == api.OpRequeue) && add(j) {
						out[len(out)-1].array = ref.JobID
					}
					return true
				})
				switch {
				case len(out) > n:
					found = true
				case exists && !narrowing:
					// Every element has finished.
					reply.Results = append(reply.Results, &api.ControlResult{Job: ref,
						Status: &api.Status{Code: int32(lsberr.JobFinished), Message: lsberr.JobFinished.Text()}})
					found = true
				}
			}
			if !found {
				reply.Results = append(reply.Results, &api.ControlResult{Job: ref,
					Status: &api.Status{Code: int32(lsberr.NoJob), Message: lsberr.NoJob.Text()}})
			}
		}
		return out
	}
	// Job ID 0 or selectors: every matching job (add applies the narrowing
	// selectors).
	jr := &api.JobsRequest{User: req.User, Queue: req.Queue, Host: req.Host, JobName: req.JobName}
	if req.Op == api.OpRequeue || req.IncludeFinished {
		jr.IncludeFinished = true
	}
	f := s.filter(cfg, id, jr)
	v.Jobs(func(j *state.Job) bool {
		if f.match(j) {
			add(j)
		}
		return true
	})
	return out
}

// Suspend reasons recorded for user and administrator actions.
const (
	suspUserStop  int32 = 0x2
	suspAdminStop int32 = 0x4000
)

// controlOne acts on one job.
func (s *Server) controlOne(ctx context.Context, cfg *config.Config, id auth.Identity, req *api.ControlRequest, t target, res *api.ControlResult) error {
	if done, err := s.mcControlOne(ctx, req, t); done {
		return err
	}
	byAdmin := t.user != id.User
	ev := func(e *api.Event) *api.Event { e.User, e.UID = id.User, int32(id.UID); return e }
	sigEv := func(action api.SignalAction, sig, term string) *api.Event {
		return ev(&api.Event{JobSignal: &api.EvJobSignal{JobID: t.key.ID, Index: t.key.Index, Action: int32(action), Signal: sig, TermReason: term, RunCount: t.run}})
	}
	switch req.Op {
	case api.OpKill:
		// bkill -s STOP (TSTP) is bstop and -s CONT of a suspended job is
		// bresume, for a pending job too (which any other signal
		// terminates); CONT has no effect on a pending job and is only
		// delivered to a running one.
		as := func(op api.ControlOp) error {
			r := *req
			r.Op, r.Signal = op, 0
			return s.controlOne(ctx, cfg, id, &r, t, res)
		}
		switch sig := syscall.Signal(req.Signal); {
		case req.Remove:
		case sig == syscall.SIGSTOP || sig == syscall.SIGTSTP:
			return as(api.OpStop)
		case sig == syscall.SIGCONT && (t.state == api.StatePSusp || t.state == api.StateUSusp || t.state == api.StateSSusp):
			return as(api.OpResume)
		case sig == syscall.SIGCONT && t.state == api.StatePend:
			return nil
		}
		if job.Finished(t.state) {
			return lsberr.New(lsberr.JobFinished)
		}
		term := "TERM_OWNER"
		if byAdmin {
			term = "TERM_ADMIN"
		}
		if req.Remove {
			force := "TERM_FORCE_OWNER"
			if byAdmin {
				force = "TERM_FORCE_ADMIN"
			}
			evs := []*api.Event{sigEv(api.ActTerminate, "KILL", force)}
			if job.Started(t.state) {
				evs = append(evs, ev(&api.Event{JobStatus: &api.EvJobStatus{JobID: t.key.ID, Index: t.key.Index, State: api.StateExit,
					TermReason: force, ExitStatus: int32(syscall.SIGKILL), RunCount: t.run}}))
			}
			if err := s.propose(ctx, evs...); err != nil {
				return err
			}
			if t.host != "" {
				s.signalSbd(ctx, t.host, &api.JobSignal{JobID: t.key.ID, Index: t.key.Index, Action: api.ActTerminate, TermReason: force})
			}
			if !job.Started(t.state) {
				return s.startedSince(ctx, cfg, id, req, t, res)
			}
			return nil
		}
		if job.Pending(t.state) {
			if err := s.propose(ctx, sigEv(api.ActTerminate, "KILL", term)); err != nil {
				return err
			}
			return s.startedSince(ctx, cfg, id, req, t, res)
		}
		action, name := api.ActTerminate, "KILL"
		if req.Signal != 0 {
			action, name = api.ActSignal, signalName(int(req.Signal))
		}
		if action == api.ActTerminate && (t.state == api.StateUnkwn || !s.sess.connected(t.host)) {
			// Killed while its host is out of contact: ZOMBI until the host
			// confirms the job ended (mbatchd kills it when the host is back).
			if t.state == api.StateZombi {
				return nil
			}
			return s.propose(ctx, sigEv(action, name, term), ev(&api.Event{JobStatus: &api.EvJobStatus{JobID: t.key.ID, Index: t.key.Index,
				State: api.StateZombi, TermReason: term, RunCount: t.run}}))
		}
		if err := s.propose(ctx, sigEv(action, name, term)); err != nil {
			return err
		}
		return s.signalSbd(ctx, t.host, &api.JobSignal{JobID: t.key.ID, Index: t.key.Index, Action: action, Signal: req.Signal, TermReason: term})
	case api.OpStop:
		if job.Finished(t.state) {
			return lsberr.New(lsberr.JobFinished)
		}
		reason := suspUserStop
		if byAdmin {
			reason = suspAdminStop
		}
		if err := s.propose(ctx, sigEv(api.ActSuspend, "STOP", "")); err != nil {
			return err
		}
		if job.Started(t.state) {
			return s.signalSbd(ctx, t.host, &api.JobSignal{JobID: t.key.ID, Index: t.key.Index, Action: api.ActSuspend, SuspReasons: reason})
		}
		return s.startedSince(ctx, cfg, id, req, t, res)
	case api.OpResume:
		switch {
		case job.Finished(t.state):
			return lsberr.New(lsberr.JobFinished)
		case t.state == api.StatePend || t.state == api.StateRun:
			return lsberr.Errorf(lsberr.BadArg, "The job is not suspended")
		}
		if err := s.propose(ctx, sigEv(api.ActResume, "CONT", "")); err != nil {
			return err
		}
		if job.Started(t.state) {
			return s.signalSbd(ctx, t.host, &api.JobSignal{JobID: t.key.ID, Index: t.key.Index, Action: api.ActResume})
		}
		return nil
	case api.OpRequeue:
		mask := req.RequeueStates
		if mask == 0 {
			mask = uint32(api.StateDone | api.StateExit | api.StateRun | api.StateSSusp | api.StateUSusp)
		}
		if uint32(t.state)&mask == 0 {
			if job.Pending(t.state) {
				return lsberr.New(lsberr.NotStarted)
			}
			return lsberr.Errorf(lsberr.BadArg, "The job is not in a state selected for requeue")
		}
		if job.Finished(t.state) {
			return s.propose(ctx, ev(&api.Event{JobRequeue: &api.EvJobRequeue{JobID: t.key.ID, Index: t.key.Index, Hold: req.RequeueHold}}))
		}
		if err := s.propose(ctx, sigEv(api.ActRequeue, "KILL", "TERM_REQUEUE_OWNER")); err != nil {
			return err
		}
		return s.signalSbd(ctx, t.host, &api.JobSignal{JobID: t.key.ID, Index: t.key.Index, Action: api.ActRequeue, TermReason: "TERM_REQUEUE_OWNER"})
	case api.OpForceRun:
		if !s.isAdmin(id, cfg) {
			return lsberr.New(lsberr.Permission)
		}
		if !job.Pending(t.state) {
			return lsberr.New(lsberr.JobStarted)
		}
		hosts, err := s.forcedHosts(cfg, req.Hosts, t)
		if err != nil {
			return err
		}
		evs := []*api.Event{
			ev(&api.Event{JobForce: &api.EvJobForce{JobID: t.key.ID, Index: t.key.Index, Hosts: req.Hosts, Force: req.Force}}),
			ev(&api.Event{JobStart: &api.EvJobStart{JobID: t.key.ID, Index: t.key.Index, ExecHosts: hosts, Forced: true, NoSuspend: req.Force}}),
		}
		if err := s.propose(ctx, evs...); err != nil {
			return err
		}
		for _, h := range hosts {
			s.hosts.dispatched(h.Host, s.clock.Now())
		}
		go s.launch(context.WithoutCancel(ctx), t.key)
		return nil
	case api.OpSwitch:
		if job.Finished(t.state) {
			return lsberr.New(lsberr.JobFinished)
		}
		var err error
		s.st.View(func(v *state.View) {
			j := v.Job(t.key)
			if j == nil {
				err = lsberr.New(lsberr.NoJob)
				return
			}
			n := &api.EvJobNew{NumProcs: j.NumProcs, MaxProcs: j.MaxProcs}
			err = s.queueAccepts(v, cfg, auth.Identity{User: j.User, UID: int(j.UID)}, req.DestQueue, j.Spec.Full(), n, nil)
		})
		if err != nil {
			return err
		}
		res.Detail = req.DestQueue
		return s.propose(ctx, ev(&api.Event{JobSwitch: &api.EvJobSwitch{JobID: t.key.ID, Index: t.key.Index, Queue: req.DestQueue, Order: s.ids.nextOrder()}}))
	case api.OpMoveTop, api.OpMoveBottom:
		if !job.Pending(t.state) {
			if job.Finished(t.state) {
				return lsberr.New(lsberr.JobFinished)
			}
			return lsberr.New(lsberr.JobStarted)
		}
		pos := req.Position
		if pos < 1 {
			pos = 1
		}
		res.Detail = fmt.Sprint(pos)
		return s.propose(ctx, ev(&api.Event{JobMove: &api.EvJobMove{JobID: t.key.ID, Index: t.key.Index, Position: pos, Bottom: req.Op == api.OpMoveBottom}}))
	case api.OpMigrate:
		return s.migrateJob(ctx, cfg, id, req, t)
	case api.OpChkpnt:
		return s.chkpntJob(ctx, cfg, id, req, t)
	}
	return lsberr.New(lsberr.BadArg)
}

// propose proposes events and returns the first event's error.
func (s *Server) propose(ctx context.Context, evs ...*api.Event) error {
	errs, err := s.prop.Propose(ctx, evs...)
	if err != nil {
		return s.unavailable(err)
	}
	for _, e := range errs {
		switch {
		case errors.Is(e, state.ErrStartedSince):
			// A pending job's change (bmod) reached a job dispatched since
			// it was checked: what bmod says of a running job.
			return lsberr.New(lsberr.RunningModify)
		case e != nil:
			return lsberr.Errorf(lsberr.MbdInternal, "%v", e)
		}
	}
	return nil
}

// signalSbd delivers a job control action to the job's execution host.
func (s *Server) signalSbd(ctx context.Context, host string, sig *api.JobSignal) error {
	sess := s.sess.get(host)
	if sess == nil {
		s.log.Warn("job control for an unreachable host; it applies when the host reconnects", "host", host, "job", sig.JobID)
		return nil
	}
	cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	ack, err := sess.call(cctx, &api.MbdMessage{Signal: sig})
	if err != nil {
		s.log.Warn("job control not acknowledged; sent again when the host's sbatchd reconnects", "host", host, "job", sig.JobID, "err", err)
		s.unsent.add(host, sig)
		return nil
	}
	if e := ackErr(ack); e != nil {
		return lsberr.Errorf(lsberr.NotRunning, "%v", e)
	}
	return nil
}

// forcedHosts places a brun'd job on the named hosts.
func (s *Server) forcedHosts(cfg *config.Config, names []string, t target) ([]*api.ExecHost, error) {
	var hosts []string
	for _, n := range names {
		name, _ := splitPref(n)
		m := expandHostName(cfg, name)
		if len(m) == 0 {
			return nil, lsberr.Errorf(lsberr.BadHost, "%s: %s", name, lsberr.BadHost.Text())
		}
		hosts = append(hosts, m...)
	}
	if len(hosts) == 0 {
		return nil, lsberr.Errorf(lsberr.BadHost, "%s", "brun needs -m host_name")
	}
	var slots int32 = 1
	s.st.View(func(v *state.View) {
		if j := v.Job(t.key); j != nil {
			slots = j.Slots()
		}
	})
	out := []*api.ExecHost{}
	idx := map[string]*api.ExecHost{}
	for i := int32(0); i < slots; i++ {
		h := hosts[int(i)%len(hosts)]
		if e := idx[h]; e != nil {
			e.Slots++
			continue
		}
		e := &api.ExecHost{Host: h, Slots: 1}
		idx[h] = e
		out = append(out, e)
	}
	return out, nil
}

// signalName is LSF's symbol for a signal number ("KILL", "TERM"...).
func signalName(sig int) string {
	name := strings.TrimPrefix(strings.ToUpper(syscall.Signal(sig).String()), "SIG")
	for n, v := range signalNumbers {
		if v == sig {
			return n
		}
	}
	return name
}

// signalNumbers maps LSF/UNIX signal names to numbers (Linux).
var signalNumbers = map[string]int{
	"HUP": 1, "INT": 2, "QUIT": 3, "ILL": 4, "TRAP": 5, "ABRT": 6, "BUS": 7, "FPE": 8, "KILL": 9, "USR1": 10,
	"SEGV": 11, "USR2": 12, "PIPE": 13, "ALRM": 14, "TERM": 15, "STKFLT": 16, "CHLD": 17, "CONT": 18, "STOP": 19,
	"TSTP": 20, "TTIN": 21, "TTOU": 22, "URG": 23, "XCPU": 24, "XFSZ": 25, "VTALRM": 26, "PROF": 27, "WINCH": 28,
	"IO": 29, "PWR": 30, "SYS": 31,
}
