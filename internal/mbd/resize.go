package mbd

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/job"
	"github.com/basalt-lsf/basalt/internal/lsberr"
	"github.com/basalt-lsf/basalt/internal/mbd/sched"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
	"github.com/basalt-lsf/basalt/internal/resreq"
)

// checkResizable refuses a submission that cannot be resizable (bsub -ar,
// -rnc). LSF refuses compound and alternative requirements; exclusive and
// GPU jobs are Basalt's own limits (their added slots would need the
// whole host or GPUs allocated).
func checkResizable(spec *api.JobSpec, req *resreq.ResReq) error {
	if !spec.AutoResizable {
		if spec.ResizeNotifyCmd != "" {
			return lsberr.Errorf(lsberr.BadArg, "-rnc: the job is not resizable (bsub -ar)")
		}
		return nil
	}
	switch {
	case req != nil && req.Kind != resreq.KindSimple:
		return lsberr.Errorf(lsberr.BadResReq, "Resizable jobs cannot have compound or alternative resource requirements")
	case spec.GPUReq != "":
		return lsberr.Errorf(lsberr.BadArg, "-ar: a GPU job (-gpu) cannot be resizable")
	case spec.Exclusive:
		return lsberr.Errorf(lsberr.BadArg, "-ar: an exclusive job (-x) cannot be resizable")
	}
	return nil
}

// parsedReq parses a job's -R strings as bsub's are checked (nil when
// there are none or they do not parse: a running job's were accepted).
func parsedReq(cfg *config.Config, reqs []string) *resreq.ResReq {
	if len(reqs) == 0 {
		return nil
	}
	opts := resreq.Options{Strict: cfg.Conf.StrictResReq(), Context: resreq.CtxBsub, Table: cfg.ResourceTable(), Unit: resreqUnit(cfg)}
	r, err := resreq.ParseMulti(reqs, opts)
	if err != nil {
		return nil
	}
	return r
}

// Refusals of bresize (Basalt's texts: LSF's are not documented).
var (
	errNotResizable   = lsberr.Errorf(lsberr.BadArg, "Job is not resizable")
	errHasPending     = lsberr.Errorf(lsberr.BadArg, "The job has an active pending resize request: cancel it first (-c or bresize cancel)")
	errNoPending      = lsberr.Errorf(lsberr.BadArg, "The job has no active pending resize request")
	errKeepFirst      = lsberr.Errorf(lsberr.BadArg, "A task on the first execution host must be kept")
	errNothingRelease = lsberr.Errorf(lsberr.BadArg, "Nothing to release: the job holds one task")
)

// resize handles bresize: only the job's owner, its queue's administrators,
// its owner's group administrators, cluster administrators and root may
// resize a job (LSF's bresize; config.MayControl). A release is sent to
// the job's first execution host with its new allocation (and the
// notification command) once recorded.
func (s *Server) resize(ctx context.Context, id auth.Identity, req *api.ResizeRequest) (*api.ControlReply, error) {
	cfg := s.cfg.Current()
	reply := &api.ControlReply{}
	if req.Job == nil || req.Job.JobID <= 0 {
		reply.Status = &api.Status{Code: int32(lsberr.BadJobID), Message: lsberr.BadJobID.Text()}
		return reply, nil
	}
	k := state.Key{ID: req.Job.JobID, Index: req.Job.Index}
	res := &api.ControlResult{Job: req.Job}
	reply.Results = []*api.ControlResult{res}
	var ev *api.EvJobResize
	var refused error
	s.st.View(func(v *state.View) {
		j := v.Job(k)
		switch {
		case j == nil:
			refused = lsberr.New(lsberr.NoJob)
		case !s.mayControlJob(id, cfg, j.User, j.Queue):
			refused = lsberr.New(lsberr.Permission)
		default:
			ev, refused = resizeEvent(j, req)
		}
	})
	if refused != nil {
		res.Status = lsbStatus(refused)
		return reply, nil
	}
	if err := s.propose(ctx, &api.Event{User: id.User, UID: int32(id.UID), JobResize: ev}); err != nil {
		if le := (*lsberr.Error)(nil); !errors.As(err, &le) {
			return nil, err
		}
		res.Status = lsbStatus(err)
		return reply, nil
	}
	res.Status = &api.Status{}
	switch req.Op {
	case api.ResizeOpRelease:
		res.Detail = "Tasks released"
		go s.notifyResize(context.WithoutCancel(ctx), k, ev.RunCount, "shrink", ev.Hosts)
	case api.ResizeOpRequest:
		res.Detail = "Resize request submitted"
	case api.ResizeOpCancel:
		res.Detail = "Pending resize request cancelled"
	}
	return reply, nil
}

// resizeEvent checks a bresize request against the job and builds its
// event.
func resizeEvent(j *state.Job, req *api.ResizeRequest) (*api.EvJobResize, error) {
	switch {
	case job.Finished(j.State):
		return nil, lsberr.New(lsberr.JobFinished)
	case !job.Started(j.State) || len(j.ExecHosts) == 0:
		return nil, lsberr.New(lsberr.NotStarted)
	case !j.Spec.AutoResizable:
		return nil, errNotResizable
	}
	ev := &api.EvJobResize{JobID: j.ID, Index: j.Index, Action: req.Op, RunCount: j.RunCount,
		CancelPending: req.CancelPending, NotifyCmd: req.NotifyCmd, SetNotify: req.SetNotify}
	_, pending := j.PendingResize()
	switch req.Op {
	case api.ResizeOpRelease:
		if pending > 0 && !req.CancelPending {
			return nil, errHasPending
		}
		hosts, err := releaseSpec(j, req)
		if err != nil {
			return nil, err
		}
		ev.Hosts = hosts
	case api.ResizeOpRequest:
		if pending > 0 && !req.CancelPending {
			return nil, errHasPending
		}
		if req.Max <= 0 || req.Min < 0 || req.Min > req.Max {
			return nil, lsberr.Errorf(lsberr.BadArg, "Bad task specification: %d,%d", req.Min, req.Max)
		}
		ev.Min, ev.Max = max(req.Min, 1), req.Max
	case api.ResizeOpCancel:
		if pending <= 0 {
			return nil, errNoPending
		}
		ev.CancelPending, ev.SetNotify = false, false
	default:
		return nil, lsberr.Errorf(lsberr.BadArg, "bresize: unknown operation %d", req.Op)
	}
	return ev, nil
}

// releaseSpec resolves bresize release's host specification: "all" (every
// task but one on the first execution host), "host" (every task there) or
// "n*host".
func releaseSpec(j *state.Job, req *api.ResizeRequest) ([]*api.ExecHost, error) {
	var out []*api.ExecHost
	if req.All {
		for i, h := range j.ExecHosts {
			n := h.Slots
			if i == 0 {
				n--
			}
			if n > 0 {
				out = append(out, &api.ExecHost{Host: h.Host, Slots: n})
			}
		}
		if len(out) == 0 {
			return nil, errNothingRelease
		}
		return out, nil
	}
	left := map[string]int32{}
	for _, h := range j.ExecHosts {
		left[h.Host] = h.Slots
	}
	for _, spec := range req.Hosts {
		n, name := int32(-1), spec
		if c, h, ok := strings.Cut(spec, "*"); ok {
			v, err := strconv.Atoi(c)
			if err != nil || v <= 0 {
				return nil, lsberr.Errorf(lsberr.BadHostSpec, "%s: %s", spec, lsberr.BadHostSpec.Text())
			}
			n, name = int32(v), h
		}
		host := ""
		for _, h := range j.ExecHosts {
			if strings.EqualFold(h.Host, name) {
				host = h.Host
			}
		}
		if host == "" {
			return nil, lsberr.Errorf(lsberr.BadHost, "Host <%s> is not in the job's allocation", name)
		}
		if n < 0 {
			n = left[host]
		}
		if n > left[host] {
			return nil, lsberr.Errorf(lsberr.BadArg, "Host <%s> holds %d of the job's tasks, not %d", host, left[host], n)
		}
		left[host] -= n
		out = append(out, &api.ExecHost{Host: host, Slots: n})
	}
	if len(out) == 0 {
		return nil, lsberr.Errorf(lsberr.BadHostSpec, "%s", lsberr.BadHostSpec.Text())
	}
	if left[j.ExecHosts[0].Host] <= 0 {
		return nil, errKeepFirst
	}
	return out, nil
}

// carryResizes records the scheduler's grow decisions (one JOB_RESIZE
// each) and tells each job's first execution host its new allocation. A
// decision that cannot be recorded is decided again by a later pass.
func (s *Server) carryResizes(ctx context.Context, plan *sched.Plan, now time.Time) {
	if len(plan.Resizes) == 0 {
		return
	}
	evs := make([]*api.Event, len(plan.Resizes))
	for i, r := range plan.Resizes {
		evs[i] = &api.Event{JobResize: &api.EvJobResize{JobID: r.Key.ID, Index: r.Key.Index, Action: api.ResizeOpGrow,
			Hosts: r.Hosts, RunCount: r.RunCount}}
	}
	errs, err := s.prop.Propose(ctx, evs...)
	if err != nil {
		s.log.Warn("resize not recorded", "err", err)
		return
	}
	for i, r := range plan.Resizes {
		if errs[i] != nil {
			s.log.Warn("resize rejected", "job", r.Key, "err", errs[i])
			continue
		}
		for _, h := range r.Hosts {
			s.hosts.dispatched(h.Host, now)
		}
		go s.notifyResize(ctx, r.Key, r.RunCount, "grow", r.Hosts)
	}
}

// notifyResize sends a job's new allocation to its first execution host's
// sbatchd, which runs the job's resize notification command there (as the
// job's user, with LSB_RESIZE_EVENT, LSB_RESIZE_HOSTS and the new
// LSB_HOSTS and LSB_MCPU_HOSTS). An unreachable host is logged: the
// allocation is the replicated state's whatever the command does.
func (s *Server) notifyResize(ctx context.Context, k state.Key, run int32, event string, changed []*api.ExecHost) {
	var sig *api.JobSignal
	var host string
	s.st.View(func(v *state.View) {
		j := v.Job(k)
		if j == nil || !job.Started(j.State) || j.RunCount != run || len(j.ExecHosts) == 0 {
			return
		}
		host = j.ExecHosts[0].Host
		sig = &api.JobSignal{JobID: k.ID, Index: k.Index, Action: api.ActResize,
			Resize: &api.ResizeNotice{Event: event, Changed: changed, Alloc: j.ExecHosts, Cmd: j.NotifyCmd()}}
	})
	if sig == nil {
		return
	}
	if s.sess.get(host) == nil {
		// Sent when the host's sbatchd is welcomed again.
		s.unsent.addIfNone(host, sig)
		return
	}
	if err := s.signalSbd(ctx, host, sig); err != nil {
		s.log.Warn("resize notification", "job", k, "host", host, "err", err)
	}
}
