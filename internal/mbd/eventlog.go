package mbd

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/job"
	"github.com/basalt-lsf/basalt/internal/mbd/eventlog"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

// logDir is where lsb.events and lsb.acct live: LSB_SHAREDIR/<cluster>/logdir,
// or Options.LogDir (a replica's own directory).
func (s *Server) logDir(cfg *config.Config) string {
	if s.opts.LogDir != "" {
		return s.opts.LogDir
	}
	return filepath.Join(cfg.Conf.ShareDir(), cfg.ClusterName(), "logdir")
}

// jobSource shows the state to the event log writer. It is called in the
// FSM goroutine, the state's only writer, so reading without the lock there
// is safe; View is used anyway for clarity.
type jobSource struct {
	s *Server
}

func (js jobSource) Job(id int64, index int32) *eventlog.Job {
	var out *eventlog.Job
	js.s.st.View(func(v *state.View) {
		j := v.Job(state.Key{ID: id, Index: index})
		if j == nil && index == 0 {
			// A record about a whole array: its first element stands
			// for it (submission, array specification and limit).
			v.Elements(id, func(e *state.Job) bool { j = e; return false })
		}
		if j != nil {
			out = js.s.logJob(j)
		}
	})
	return out
}

func (js jobSource) ActiveJobs() []*eventlog.Job {
	var out []*eventlog.Job
	js.s.st.View(func(v *state.View) {
		v.Jobs(func(j *state.Job) bool {
			if !job.Finished(j.State) {
				out = append(out, js.s.logJob(j))
			}
			return true
		})
	})
	return out
}

// logJob builds the event log's view of j.
func (s *Server) logJob(j *state.Job) *eventlog.Job {
	lj := &eventlog.Job{
		ID: j.ID, Index: j.Index, User: j.User, UID: j.UID, Queue: j.Queue, Name: j.Name, Project: j.Project,
		Spec: j.Spec.Full(), State: j.State, SubmitTime: j.SubmitTime, StartTime: j.StartTime, EndTime: j.EndTime,
		NumProcs: j.NumProcs, MaxProcs: j.MaxProcs, ExecHosts: j.ExecHosts, PID: j.PID, PGID: j.PGID,
		ExecCwd: j.ExecCwd, ExecHome: j.ExecHome, ExecUser: j.ExecUser, ExitStatus: j.ExitStatus,
		TermReason: j.TermReason, SuspReasons: j.SuspReasons, SuspSubreason: j.SuspSubreason,
		PendReason: j.PendReason, RunCount: j.RunCount, Usage: j.Usage, StateIndex: j.StateIndex,
		EffectiveResReq: j.EffectiveResReq,
	}
	if j.Array != nil {
		lj.ArraySpec, lj.ArrayLimit = j.Array.Spec, j.Array.Limit
	}
	lj.HostFactor = 1
	if len(j.ExecHosts) > 0 {
		cfg := s.cfg.Current()
		if bh := cfg.BatchHost(j.ExecHosts[0].Host); bh != nil {
			if m, ok := cfg.Shared.Model(bh.Model); ok {
				lj.HostFactor = m.CPUFactor
			}
		}
	}
	return lj
}

// openEventLog opens the lsb.events/lsb.acct writer for the FSM.
func (s *Server) openEventLog(cfg *config.Config) (*eventlog.Writer, error) {
	return eventlog.Open(s.logDir(cfg), eventlog.Options{MaxJobNum: cfg.Params.MaxJobNum, Jobs: jobSource{s},
		Warn: func(msg string) { s.log.Warn("event log damaged", "err", msg) }})
}

// history answers bhist from the event log files.
func (s *Server) history(ctx context.Context, id auth.Identity, req *api.JobsRequest, send func(*api.HistoryReply) error) error {
	cfg := s.cfg.Current()
	q := &eventlog.HistoryQuery{Filter: eventlog.FilterFromRequest(req, id.User), Dir: s.logDir(cfg)}
	res, err := eventlog.ReadHistory(ctx, q)
	if err != nil {
		return rpc.Errorf(rpc.Internal, "reading the event log: %v", err)
	}
	reply := &api.HistoryReply{}
	found := map[state.Key]bool{}
	for _, h := range res.Jobs {
		found[state.Key{ID: h.Job.JobID, Index: h.Job.Index}] = true
		found[state.Key{ID: h.Job.JobID}] = true
		if !s.mayControlJob(id, cfg, h.Job.User, h.Job.Queue) {
			// bhist -l: the details are for those who may control the job.
			rec := *h.Job
			hideDetails(&rec)
			h = &api.JobHistory{Job: &rec, Events: h.Events}
		}
		reply.Jobs = append(reply.Jobs, h)
		if len(reply.Jobs) == 500 {
			if err := send(reply); err != nil {
				return err
			}
			reply = &api.HistoryReply{}
		}
	}
	for _, r := range req.Jobs {
		if !found[state.Key{ID: r.JobID, Index: r.Index}] {
			reply.NotFound = append(reply.NotFound, r)
		}
	}
	return send(reply)
}

// acct answers bacct from lsb.acct.
func (s *Server) acct(ctx context.Context, id auth.Identity, req *api.JobsRequest, send func(*api.JobsReply) error) error {
	cfg := s.cfg.Current()
	f := eventlog.FilterFromRequest(req, id.User)
	if !req.IncludeFinished {
		f.States = req.StateMask
	}
	res, err := eventlog.ReadAcct(ctx, &eventlog.AcctQuery{Filter: f, Dir: s.logDir(cfg)})
	if err != nil {
		return rpc.Errorf(rpc.Internal, "reading the accounting log: %v", err)
	}
	recs := res.Jobs
	for len(recs) > 1000 {
		if err := send(&api.JobsReply{Jobs: recs[:1000]}); err != nil {
			return err
		}
		recs = recs[1000:]
	}
	return send(&api.JobsReply{Jobs: recs})
}

// sysHistory answers badmin hist, mbdhist, qhist and hhist from the
// current lsb.events (as LSF reads LSB_SHAREDIR/<cluster>/logdir/lsb.events).
// Queue and host controls are no secret: anyone may ask.
func (s *Server) sysHistory(ctx context.Context, id auth.Identity, req *api.SysHistoryRequest) (*api.SysHistoryReply, error) {
	kind := eventlog.SysKind(req.Kind)
	if kind < eventlog.SysAll || kind > eventlog.SysHost {
		return nil, rpc.Errorf(rpc.InvalidArgument, "history kind %d", req.Kind)
	}
	name := filepath.Join(s.logDir(s.cfg.Current()), eventlog.EventsFile)
	f, err := os.Open(name)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return &api.SysHistoryReply{}, nil
		}
		return nil, rpc.Errorf(rpc.Internal, "reading the event log: %v", err)
	}
	defer f.Close()
	q := &eventlog.SysQuery{Kind: kind, Names: req.Names, From: req.From, To: req.To}
	lines, bad, err := eventlog.ReadSysHistory(ctx, f, name, q)
	if err != nil {
		return nil, rpc.Errorf(rpc.Internal, "reading the event log: %v", err)
	}
	reply := &api.SysHistoryReply{Bad: int32(bad)}
	for _, l := range lines {
		reply.Lines = append(reply.Lines, &api.SysHistoryLine{Time: l.Time, Text: l.Text})
	}
	return reply, nil
}
