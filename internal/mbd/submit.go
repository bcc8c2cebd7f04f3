package mbd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/job"
	"github.com/basalt-lsf/basalt/internal/lsberr"
	"github.com/basalt-lsf/basalt/internal/mbd/depend"
	"github.com/basalt-lsf/basalt/internal/mbd/sched"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
	"github.com/basalt-lsf/basalt/internal/mc"
	"github.com/basalt-lsf/basalt/internal/resreq"
	"github.com/basalt-lsf/basalt/internal/resreq/gpureq"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

// submit handles MBatchd.Submit: every job is validated, given an ID and
// proposed; the reply comes once the submissions are durable.
func (s *Server) submit(ctx context.Context, id auth.Identity, req *api.SubmitRequest) (*api.SubmitReply, error) {
	if req.Key != "" {
		if len(req.Key) > maxSubmitKey {
			return nil, rpc.Errorf(rpc.InvalidArgument, "submission key of %d bytes: at most %d", len(req.Key), maxSubmitKey)
		}
		// One request of a key at a time: a retry sent while the first is
		// still being committed waits for it, then finds its jobs.
		release, err := s.subKeys.lock(ctx, id.User, req.Key)
		if err != nil {
			return nil, err
		}
		defer release()
	}
	cfg := s.cfg.Current()
	reply := &api.SubmitReply{Results: make([]*api.SubmitResult, len(req.Jobs))}
	var events []*api.Event
	var slot []int // reply index of each event
	s.st.View(func(v *state.View) {
		var prev *state.SubmitKey
		if req.Key != "" {
			prev = v.SubmitKey(id.User, req.Key)
		}
		for i, spec := range req.Jobs {
			if n := spec.SizeWire(); n > MaxJobSpecBytes {
				// A 60 MB job script was taken, and then every listing
				// that held its record failed, for every user.
				reply.Results[i] = &api.SubmitResult{Status: &api.Status{Code: int32(lsberr.BadArg),
					Message: fmt.Sprintf("The job's command, script and environment take %d bytes, more than the %d bytes a job may carry", n, MaxJobSpecBytes)}}
				continue
			}
			if prev != nil && i < len(prev.Jobs) && prev.Jobs[i].JobID != 0 {
				// Created by this request's first sending.
				p := prev.Jobs[i]
				reply.Results[i] = &api.SubmitResult{JobID: p.JobID, Queue: p.Queue, DefaultQueue: p.DefaultQueue}
				continue
			}
			res := &api.SubmitResult{}
			reply.Results[i] = res
			if spec.RestartDir != "" { // brestart (restart.go)
				var err error
				if spec, err = s.restartSpec(v, cfg, id, spec); err != nil {
					res.Status = lsbStatus(err)
					continue
				}
			}
			ev, err := s.validate(v, cfg, id, spec, res)
			if err != nil {
				res.Status = lsbStatus(err)
				continue
			}
			if req.Key != "" {
				ev.JobNew.SubmitKey, ev.JobNew.SubmitPos = req.Key, int32(i)
			}
			events = append(events, ev)
			slot = append(slot, i)
		}
	})
	if len(events) == 0 {
		return reply, nil
	}
	// IDs are handed out by the proposer as the entry is built, so that
	// they reach the log in the order they were allocated: the state's last
	// job ID, from which a restarted master resumes, is then the highest
	// one handed out, and an ID is never given twice.
	maxID := int64(cfg.Params.MaxJobID)
	errs, err := s.prop.ProposePrepared(ctx, func() []error { return s.assignJobIDs(maxID, events) }, events...)
	if err != nil {
		return nil, s.unavailable(err)
	}
	for k, e := range errs {
		r := reply.Results[slot[k]]
		if e != nil {
			r.JobID = 0
			r.Status = lsbStatus(fmt.Errorf("%w", e))
			continue
		}
		r.JobID = events[k].JobNew.JobID
	}
	return reply, nil
}

// MaxJobSpecBytes bounds what one job may carry (command, job script,
// environment and the rest of its submission, encoded).
const MaxJobSpecBytes = 4 << 20

// rootRex reports whether lsf.conf's LSF_ROOT_REX lets root's jobs run
// (any value but n/no).
func rootRex(cfg *config.Config) bool {
	v, ok := cfg.Conf.Lookup("LSF_ROOT_REX")
	if !ok {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "n", "no", "":
		return false
	}
	return true
}

// maxSubmitKey bounds a submission key (bsub sends 32 hex digits).
const maxSubmitKey = 128

// keyLocks serialises the requests of one (user, submission key).
type keyLocks struct {
	mu   sync.Mutex
	busy map[[2]string]chan struct{}
}

// lock waits until no other request of user's key is in flight and takes
// the key; release gives it back.
func (kl *keyLocks) lock(ctx context.Context, user, key string) (release func(), err error) {
	k := [2]string{user, key}
	for {
		kl.mu.Lock()
		if kl.busy == nil {
			kl.busy = map[[2]string]chan struct{}{}
		}
		ch, held := kl.busy[k]
		if !held {
			ch = make(chan struct{})
			kl.busy[k] = ch
			kl.mu.Unlock()
			return func() {
				kl.mu.Lock()
				delete(kl.busy, k)
				kl.mu.Unlock()
				close(ch)
			}, nil
		}
		kl.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// assignJobIDs gives each JOB_NEW event its job ID and queue order key. It
// runs on the proposer's goroutine (see proposal.prepare); an event that
// gets no ID (every ID is in use) is left out with LSF's error.
func (s *Server) assignJobIDs(maxID int64, events []*api.Event) []error {
	var errs []error
	s.st.View(func(v *state.View) {
		for k, ev := range events {
			jid, order, err := s.ids.next(maxID, v.HasJobID)
			if err != nil {
				if errs == nil {
					errs = make([]error, len(events))
				}
				errs[k] = lsberr.New(lsberr.NoJobID)
				continue
			}
			ev.JobNew.JobID, ev.JobNew.Order = jid, order
		}
	})
	return errs
}

// unavailable maps a proposal failure to the error clients see.
func (s *Server) unavailable(err error) error {
	if errors.Is(err, errNotRecorded) {
		return rpc.Errorf(rpc.FailedPrecondition, "mbatchd on %s is not the master; the master is moving", s.opts.Host)
	}
	if errors.Is(err, ErrNotLeader) {
		return fmtRPCUnavailable("mbatchd is not the master: %v", err)
	}
	if errors.Is(err, ErrNoSpace) {
		return fmtRPCUnavailable("mbatchd cannot record requests: %v; queries are still answered", err)
	}
	return fmtRPCUnavailable("mbatchd could not record the request: %v", err)
}

func lsbStatus(err error) *api.Status {
	var le *lsberr.Error
	if errors.As(err, &le) {
		return &api.Status{Code: int32(le.Code), Message: le.Error()}
	}
	return &api.Status{Code: int32(lsberr.MbdInternal), Message: err.Error()}
}

// validate checks one submission and builds its JOB_NEW event (without ID).
func (s *Server) validate(v *state.View, cfg *config.Config, id auth.Identity, spec *api.JobSpec, res *api.SubmitResult) (*api.Event, error) {
	if spec == nil || strings.TrimSpace(spec.Command) == "" {
		return nil, lsberr.New(lsberr.BadCmd)
	}
	// Only a peer cluster's forward says where a job comes from.
	if (spec.SrcCluster != "" || spec.SrcJobID != 0 || spec.SrcHostType != "" || spec.SrcHostModel != "") && id.Daemon != mc.KindCluster {
		return nil, lsberr.New(lsberr.Permission)
	}
	// Root's jobs run as root only where lsf.conf's LSF_ROOT_REX allows
	// it (LSF's "Root job submission is disabled" otherwise).
	if id.IsRoot() && !rootRex(cfg) {
		return nil, lsberr.New(lsberr.RootDenied)
	}
	// A job runs as who submitted it: a submission that claims another
	// account (its uid) is not taken.
	if !id.IsRoot() && spec.UID != 0 && int(spec.UID) != id.UID {
		return nil, lsberr.New(lsberr.Permission)
	}
	n := &api.EvJobNew{Spec: spec, Hold: spec.Hold, UserPriority: spec.UserPriority}
	// Slots.
	n.NumProcs, n.MaxProcs = spec.MinProcs, spec.MaxProcs
	if n.NumProcs <= 0 {
		n.NumProcs = 1
	}
	if n.MaxProcs < n.NumProcs {
		n.MaxProcs = n.NumProcs
	}
	// Job name and array.
	name := spec.JobName
	if name == "" {
		name = defaultJobName(spec)
	} else {
		ns, err := job.ParseName(name, cfg.Params.MaxJobArraySize)
		if err != nil {
			var ne *job.NameError
			if errors.As(err, &ne) && ne.TooLarge {
				return nil, lsberr.New(lsberr.ArrayTooLarge)
			}
			return nil, lsberr.New(lsberr.BadJob)
		}
		name = ns.Name
		if ns.Array {
			n.ArrayIndices, n.ArraySpec, n.ArrayLimit = ns.Indices, ns.Spec, ns.Limit
		}
	}
	n.JobName = name
	// Times.
	if spec.BeginTime > 0 && spec.TermTime > 0 && spec.TermTime < spec.BeginTime {
		return nil, lsberr.New(lsberr.StartTime)
	}
	// User priority.
	if spec.UserPriority != 0 {
		max := cfg.Params.MaxUserPriority
		if max <= 0 {
			return nil, lsberr.New(lsberr.NoPriority)
		}
		if spec.UserPriority < 1 || int(spec.UserPriority) > max {
			return nil, lsberr.New(lsberr.BadPriority)
		}
	}
	// User group (-G).
	if spec.UserGroup != "" {
		g := cfg.UserGroup(spec.UserGroup)
		if g == nil {
			return nil, lsberr.New(lsberr.BadUGroup)
		}
		if !g.All && !contains(g.Members, id.User) {
			return nil, lsberr.New(lsberr.NotInGroup)
		}
	}
	// Resource requirements.
	opts := resreq.Options{Strict: cfg.Conf.StrictResReq(), Context: resreq.CtxBsub, Table: cfg.ResourceTable(), Unit: resreqUnit(cfg)}
	var jobReq *resreq.ResReq
	if len(spec.ResReq) > 0 {
		r, err := resreq.ParseMulti(spec.ResReq, opts)
		if err != nil {
			return nil, lsberr.New(lsberr.BadResReq)
		}
		jobReq = r
	}
	if _, err := gpureq.Parse(spec.GPUReq); err != nil {
		return nil, lsberr.Errorf(lsberr.BadResReq, "%s: %v", lsberr.BadResReq.Text(), err)
	}
	if err := checkResizable(spec, jobReq); err != nil {
		return nil, err
	}
	// Hosts (-m).
	for _, h := range spec.AskedHosts {
		name, _ := splitPref(h)
		if name != "others" && name != "all" && cfg.BatchHost(name) == nil && cfg.HostGroup(name) == nil {
			return nil, lsberr.Errorf(lsberr.BadHost, "%s: %s", name, lsberr.BadHost.Text())
		}
	}
	// Dependencies.
	if spec.Dependency != "" {
		e, err := depend.Parse(spec.Dependency)
		if err != nil {
			return nil, lsberr.New(lsberr.DependSyntax)
		}
		for _, ref := range e.Refs() {
			if ref.Each && len(n.ArrayIndices) == 0 {
				// [*] pairs the elements of two arrays.
				return nil, lsberr.New(lsberr.DependSyntax)
			}
			if !refExists(v, id.User, ref) {
				return nil, lsberr.Errorf(lsberr.NoJob, "%s: %s", ref, lsberr.NoJob.Text())
			}
		}
	}
	// Project.
	n.Project = spec.Project
	if n.Project == "" {
		n.Project = envOf(spec.Env, "LSB_DEFAULTPROJECT")
	}
	if n.Project == "" {
		n.Project = cfg.Params.DefaultProject
	}
	if n.Project == "" {
		n.Project = "default"
	}
	// Application profile: -app, else DEFAULT_APPLICATION.
	if spec.App == "" {
		spec.App = cfg.Params.DefaultApplication
	}
	if spec.App != "" && cfg.Application(spec.App) == nil {
		return nil, lsberr.Errorf(lsberr.BadApp, "%s: %s", spec.App, lsberr.BadApp.Text())
	}
	// Job group: -g, else DEFAULT_JOBGROUP (with %u, %p, %a and %g
	// replaced by the user, project, application profile and user group).
	if spec.JobGroup == "" && cfg.Params.DefaultJobGroup != "" {
		spec.JobGroup = defaultJobGroup(cfg.Params.DefaultJobGroup, id.User, n.Project, spec.App, spec.UserGroup)
	}
	if spec.JobGroup != "" {
		g, ok := state.CleanGroupPath(spec.JobGroup)
		if !ok {
			return nil, lsberr.Errorf(lsberr.BadArg, "%s: Bad job group name", spec.JobGroup)
		}
		spec.JobGroup = g
	}
	if err := checkRsv(v, cfg, id.User, spec.Reservation); err != nil {
		return nil, err
	}
	// Queue: the first candidate that accepts the job.
	queues := spec.Queues
	if len(queues) == 0 {
		if q := envOf(spec.Env, "LSB_DEFAULTQUEUE"); q != "" {
			queues = strings.Fields(q)
		} else {
			queues = cfg.DefaultQueues()
		}
		n.DefaultQueue = true
	}
	if len(queues) == 0 {
		return nil, lsberr.New(lsberr.QueueName)
	}
	var firstErr error
	for _, qname := range queues {
		err := s.queueAccepts(v, cfg, id, qname, spec, n, jobReq)
		if err == nil {
			n.Queue = qname
			res.Queue, res.DefaultQueue = qname, n.DefaultQueue
			return &api.Event{User: id.User, UID: int32(id.UID), JobNew: n}, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return nil, firstErr
}

// queueAccepts checks a submission against one queue.
func (s *Server) queueAccepts(v *state.View, cfg *config.Config, id auth.Identity, qname string, spec *api.JobSpec, n *api.EvJobNew, jobReq *resreq.ResReq) error {
	q := cfg.Queue(qname)
	if q == nil {
		return lsberr.Errorf(lsberr.BadQueue, "%s: %s", qname, lsberr.BadQueue.Text())
	}
	if v.QueueState(qname).Closed {
		return lsberr.Errorf(lsberr.QueueClosed, "%s: %s", qname, lsberr.QueueClosed.Text())
	}
	if !s.isAdmin(id, cfg) && !queueUser(cfg, q, id.User) {
		return lsberr.Errorf(lsberr.QueueUse, "%s: %s", qname, lsberr.QueueUse.Text())
	}
	if spec.Exclusive && !q.Exclusive {
		return lsberr.New(lsberr.Exclusive)
	}
	if q.Interactive == config.InteractiveOnly && !spec.Interactive {
		return lsberr.New(lsberr.OnlyInteract)
	}
	if q.Interactive == config.InteractiveNo && spec.Interactive {
		return lsberr.New(lsberr.NoInteractive)
	}
	if pl := q.Limits.Proc; pl.Max > 0 {
		if int(n.NumProcs) > pl.Max {
			return lsberr.New(lsberr.ProcNum)
		}
		if pl.Min > 0 && int(n.MaxProcs) < pl.Min {
			return lsberr.New(lsberr.TooFewProcs)
		}
	}
	if spec.Limits != nil {
		if max := q.Limits.Run.Max; max > 0 && spec.Limits.Run > int64(max.Seconds()) {
			return lsberr.New(lsberr.OverLimit)
		}
		if max := q.Limits.CPU.Max; max > 0 && spec.Limits.CPU > int64(max.Seconds()) {
			return lsberr.New(lsberr.OverLimit)
		}
		if m := q.Limits.Mem; m.Set && m.Max > 0 && spec.Limits.Mem > m.Max {
			return lsberr.New(lsberr.OverLimit)
		}
	}
	if len(spec.AskedHosts) > 0 && q.Hosts != nil {
		usable := false
		for _, h := range spec.AskedHosts {
			name, _ := splitPref(h)
			for _, m := range expandHostName(cfg, name) {
				for _, qh := range q.Hosts {
					if qh.Host == m {
						usable = true
					}
				}
			}
		}
		if !usable {
			return lsberr.New(lsberr.QueueHost)
		}
	}
	if jobReq != nil && q.ResReq.Parsed != nil {
		if _, err := resreq.Merge(jobReq, q.ResReq.Parsed); err != nil {
			return lsberr.New(lsberr.OverRusage)
		}
	}
	return nil
}

// queueUser reports whether user may submit to q (USERS).
func queueUser(cfg *config.Config, q *config.Queue, user string) bool {
	u := q.Users
	allowed := u.All || len(u.Names) == 0
	for _, name := range u.Names {
		if name == user || name == "all" {
			allowed = true
		} else if g := cfg.UserGroup(name); g != nil && (g.All || contains(g.Members, user)) {
			allowed = true
		}
	}
	for _, name := range u.Except {
		if name == user {
			return false
		}
		if g := cfg.UserGroup(name); g != nil && contains(g.Members, user) {
			return false
		}
	}
	return allowed
}

func expandHostName(cfg *config.Config, name string) []string {
	if g := cfg.HostGroup(name); g != nil {
		return g.Members
	}
	if name == "all" || name == "others" {
		var out []string
		for _, h := range cfg.BatchHosts {
			out = append(out, h.Name)
		}
		return out
	}
	if h := cfg.BatchHost(name); h != nil {
		return []string{h.Name}
	}
	return nil
}

func splitPref(s string) (string, int) {
	i := strings.LastIndexByte(s, '+')
	if i <= 0 {
		return s, 0
	}
	n := 0
	for _, c := range s[i+1:] {
		if c < '0' || c > '9' {
			return s, 0
		}
		n = n*10 + int(c-'0')
	}
	if i == len(s)-1 {
		n = 1
	}
	return s[:i], n
}

// refExists reports whether a dependency reference names a job in the
// system; [*] needs an array element.
func refExists(v *state.View, user string, ref depend.Ref) bool {
	each := ref.Each
	ref.Each = false
	found := false
	sched.RefJobs(v, user, ref, func(j *state.Job) { found = found || !each || j.Index != 0 })
	return found
}

// defaultJobName is LSF's job name when -J is not given: the command line,
// and for a script its lines joined with ';'.
func defaultJobName(spec *api.JobSpec) string {
	c := strings.TrimRight(spec.Command, "\n")
	if spec.FromScript {
		return strings.ReplaceAll(c, "\n", ";")
	}
	return c
}

func envOf(env []string, name string) string {
	prefix := name + "="
	for i := len(env) - 1; i >= 0; i-- {
		if strings.HasPrefix(env[i], prefix) {
			return env[i][len(prefix):]
		}
	}
	return ""
}
