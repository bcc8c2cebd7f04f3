package mbd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/job"
	"github.com/basalt-lsf/basalt/internal/lsberr"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
	"github.com/basalt-lsf/basalt/internal/rpc"
	"github.com/basalt-lsf/basalt/internal/web"
)

// WebSource is the dashboard's view of s (internal/web): the same query
// and control paths the commands' requests take.
func (s *Server) WebSource() web.Source { return webSource{s} }

type webSource struct{ s *Server }

func (w webSource) Leader() (bool, string) {
	if w.s.leading.Load() {
		return true, w.s.opts.Host
	}
	return false, w.s.leaderHost()
}

func (w webSource) Version() uint64 { return w.s.st.Latest().Applied() }

func (w webSource) Hosts(ctx context.Context, viewer auth.Identity) (*api.HostsReply, error) {
	return w.s.hostsInfo(ctx, viewer, &api.HostsRequest{})
}

func (w webSource) Queues(ctx context.Context, viewer auth.Identity) (*api.QueuesReply, error) {
	return w.s.queues(ctx, viewer, &api.QueuesRequest{})
}

func (w webSource) Counts(context.Context) map[api.JobState]int {
	v := w.s.st.Latest()
	m := map[api.JobState]int{}
	for _, st := range []api.JobState{api.StatePend, api.StatePSusp, api.StateRun, api.StateSSusp, api.StateUSusp, api.StateDone, api.StateExit} {
		m[st] = v.Count(st)
	}
	return m
}

// webStates maps the jobs table's state names to bjobs' state masks.
var webStates = map[string]uint32{
	"PEND": uint32(api.StatePend), "PSUSP": uint32(api.StatePSusp), "RUN": uint32(api.StateRun),
	"SSUSP": uint32(api.StateSSusp), "USUSP": uint32(api.StateUSusp), "DONE": uint32(api.StateDone),
	"EXIT": uint32(api.StateExit), "all": ^uint32(0),
}

// Jobs selects as bjobs does (selectJobs, in its order) and makes records
// of one page only, so that a page costs a walk of the jobs, not a record
// for each.
func (w webSource) Jobs(ctx context.Context, viewer auth.Identity, q web.JobQuery) (web.JobPage, error) {
	s := w.s
	cfg := s.cfg.Current()
	req := &api.JobsRequest{User: q.User, Queue: q.Queue, Host: q.Host, JobName: q.Name}
	if q.State != "" {
		m, ok := webStates[q.State]
		if !ok {
			return web.JobPage{}, &unknownState{q.State}
		}
		req.StateMask = m
	}
	if err := selectorError(cfg, req.Queue, req.Host); err != nil {
		return web.JobPage{}, err
	}
	reasons := s.currentReasons()
	now := s.clock.Now().Unix()
	var page web.JobPage
	s.st.View(func(v *state.View) {
		jobs, _ := s.selectJobs(v, cfg, viewer, req)
		page.Total = len(jobs)
		lo := min(max(q.Offset, 0), len(jobs))
		hi := len(jobs)
		if q.Limit > 0 {
			hi = min(lo+q.Limit, len(jobs))
		}
		for _, j := range jobs[lo:hi] {
			page.Jobs = append(page.Jobs, s.record(j, nil, reasons, now))
		}
	})
	return page, nil
}

type unknownState struct{ name string }

func (e *unknownState) Error() string { return e.name + ": not a job state" }

func (w webSource) Job(ctx context.Context, viewer auth.Identity, ref *api.JobRef) (*api.JobRecord, error) {
	var rec *api.JobRecord
	err := w.s.jobs(ctx, viewer, &api.JobsRequest{Jobs: []*api.JobRef{ref}, Detail: true, Long: true}, func(r *api.JobsReply) error {
		if len(r.Jobs) > 0 && rec == nil {
			rec = r.Jobs[0]
		}
		return nil
	})
	return rec, err
}

func (w webSource) History(ctx context.Context, viewer auth.Identity, ref *api.JobRef) (*api.JobHistory, error) {
	var h *api.JobHistory
	err := w.s.history(ctx, viewer, &api.JobsRequest{Jobs: []*api.JobRef{ref}, User: "all"}, func(r *api.HistoryReply) error {
		if len(r.Jobs) > 0 && h == nil {
			h = r.Jobs[0]
		}
		return nil
	})
	return h, err
}

func (w webSource) Control(ctx context.Context, id auth.Identity, req *api.ControlRequest) (*api.ControlReply, error) {
	return w.s.control(ctx, id, req)
}

func (w webSource) Authenticate(ctx context.Context, conn net.Conn, hello *api.ConnHello) (auth.Identity, error) {
	return w.s.opts.Auth.Authenticate(ctx, conn, hello)
}

// maxWebOutput bounds the output the job page shows: its end.
const maxWebOutput = 64 << 10

// Output is a started job's output as bpeek shows it, for a viewer who may
// control the job (bpeek's rule); mbatchd asks the job's sbatchd for it as
// bpeek does, with its own credentials.
func (w webSource) Output(ctx context.Context, viewer auth.Identity, ref *api.JobRef) (*api.PeekChunk, error) {
	s := w.s
	cfg := s.cfg.Current()
	var host, owner, queue string
	var st api.JobState
	s.st.View(func(v *state.View) {
		if j := v.Job(state.Key{ID: ref.JobID, Index: ref.Index}); j != nil {
			owner, queue, st = j.User, j.Queue, j.State
			if len(j.ExecHosts) > 0 {
				host = j.ExecHosts[0].Host
			}
		}
	})
	if host == "" || !job.Started(st) {
		return nil, nil
	}
	if !s.mayControlJob(viewer, cfg, owner, queue) {
		return nil, lsberr.Errorf(lsberr.Permission, "User permission denied")
	}
	if s.opts.Creds == nil {
		return nil, errors.New("mbatchd has no credentials to reach sbatchd")
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	ip, err := cfg.Resolver().Resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	hello, err := s.opts.Creds.Hello(ctx, auth.KindSbatchd, host)
	if err != nil {
		return nil, err
	}
	c, err := rpc.Dial(ctx, net.JoinHostPort(ip.String(), strconv.Itoa(cfg.Conf.SBDPort())), hello)
	if err != nil {
		return nil, fmt.Errorf("Unable to contact execution host <%s>: %w", host, err)
	}
	defer c.Close()
	ps, err := c.Stream(ctx, api.SBatchdPeek, &api.PeekRequest{JobID: ref.JobID, Index: ref.Index})
	if err != nil {
		return nil, err
	}
	out := &api.PeekChunk{}
	for {
		var chunk api.PeekChunk
		err := ps.Recv(&chunk)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out.Stdout = tail(append(out.Stdout, chunk.Stdout...))
		out.Stderr = tail(append(out.Stderr, chunk.Stderr...))
	}
}

func tail(b []byte) []byte {
	if len(b) > maxWebOutput {
		return b[len(b)-maxWebOutput:]
	}
	return b
}
