package mbd

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/job"
	"github.com/basalt-lsf/basalt/internal/lsberr"
	"github.com/basalt-lsf/basalt/internal/mbd/sched"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
	"github.com/basalt-lsf/basalt/internal/resreq"
	"github.com/basalt-lsf/basalt/internal/resreq/gpureq"
)

// unfinishedMask is bjobs' default selection.
const unfinishedMask = uint32(api.StatePend | api.StatePSusp | api.StateRun | api.StateSSusp | api.StateUSusp | api.StateUnkwn | api.StateZombi)

// details computes what a detailed record shows beyond the summary, for
// the jobs of one request: the full submission, and with long (bjobs -l)
// the combined requirement and the thresholds. Jobs with the same
// requirement strings, application profile, queue and submission host
// share one merge; jobs of one queue on one first host share thresholds.
type details struct {
	cfg        *config.Config
	long       bool
	memo       map[detailKey]string
	thresholds map[[2]string][]*api.Threshold
}

type detailKey struct{ job, app, queue, from string }

func newDetails(cfg *config.Config, long bool) *details {
	return &details{cfg: cfg, long: long, memo: map[detailKey]string{}, thresholds: map[[2]string][]*api.Threshold{}}
}

// combined is j's requirement merged with its application profile's and its
// queue's under the current configuration, as the scheduler merges it;
// empty when it does not parse (the job pends with a reason that says so).
func (d *details) combined(j *state.Job) string {
	k := detailKey{job: strings.Join(j.Spec.ResReq, "\x00"), app: j.Spec.App, queue: j.Queue, from: j.Spec.FromHost}
	if v, ok := d.memo[k]; ok {
		return v
	}
	var local resreq.Local
	if h := d.cfg.BatchHost(j.Spec.FromHost); h != nil {
		local = resreq.Local{Type: h.Type, Model: h.Model}
	} else if s := j.Spec; s.SrcHostType != "" {
		local = resreq.Local{Type: s.SrcHostType, Model: s.SrcHostModel}
	}
	var app *config.Application
	if j.Spec.App != "" {
		app = d.cfg.Application(j.Spec.App)
	}
	_, v, _ := sched.CompileJobReq(d.cfg.ResourceTable(), d.cfg.Conf.StrictResReq(), resreqUnit(d.cfg), j.Spec.ResReq, app, d.cfg.Queue(j.Queue), local)
	d.memo[k] = v
	return v
}

// combinedGPU is j's GPU requirement merged as the scheduler merges it
// (sched/gpu.go): its -gpu over its profile's and queue's GPU_REQ over
// LSB_GPU_REQ; empty when it asks for no GPUs.
func (d *details) combinedGPU(j *state.Job) string {
	l := gpureq.Levels{Job: j.Spec.GPUReq, Cluster: d.cfg.Conf.Get("LSB_GPU_REQ")}
	if q := d.cfg.Queue(j.Queue); q != nil {
		l.Queue = q.GPUReq
	}
	if a := d.cfg.Application(j.Spec.App); j.Spec.App != "" && a != nil {
		l.App = a.GPUReq
	}
	r, ok, err := l.Resolve()
	if err != nil || !ok {
		return ""
	}
	return r.String()
}

// jobThresholds are j's scheduling thresholds as bjobs -l shows them: its
// queue's loadSched and loadStop, and for a started job the stricter of
// those and its first execution host's lsb.hosts thresholds (OpenLava's
// packJobInfo and assignLoad): the lower value of an index where more means
// busier, the higher of one where less does.
func (d *details) jobThresholds(j *state.Job) []*api.Threshold {
	k := [2]string{j.Queue}
	if len(j.ExecHosts) > 0 {
		k[1] = j.ExecHosts[0].Host
	}
	ts, ok := d.thresholds[k]
	if !ok {
		ts = d.merged(k[0], k[1])
		d.thresholds[k] = ts
	}
	return ts
}

// merged is the thresholds of queue, made stricter by host's ("" for none).
func (d *details) merged(queue, host string) []*api.Threshold {
	var qt, ht []config.LoadThreshold
	if q := d.cfg.Queue(queue); q != nil {
		qt = q.Thresholds
	}
	if host != "" {
		if h := d.cfg.BatchHost(host); h != nil {
			ht = h.Thresholds
		}
	}
	var out []*api.Threshold
	byIndex := map[string]*api.Threshold{}
	for _, t := range qt {
		th := threshold(t)
		byIndex[t.Index] = th
		out = append(out, th)
	}
	tab := d.cfg.ResourceTable()
	for _, t := range ht {
		th := byIndex[t.Index]
		if th == nil {
			out = append(out, threshold(t))
			continue
		}
		stricter := func(a, b float64) float64 { return max(a, b) }
		if i, ok := tab.Index(t.Index); ok && tab.Def(i).Increasing {
			stricter = func(a, b float64) float64 { return min(a, b) }
		}
		switch {
		case t.HasSched && th.HasSched:
			th.Sched = stricter(th.Sched, t.Sched)
		case t.HasSched:
			th.Sched, th.HasSched = t.Sched, true
		}
		switch {
		case t.HasStop && th.HasStop:
			th.Stop = stricter(th.Stop, t.Stop)
		case t.HasStop:
			th.Stop, th.HasStop = t.Stop, true
		}
	}
	return out
}

// record builds the read view of j; detail (nil for the summary) adds the
// job's full submission, and for a long request its combined requirement
// and thresholds.
func (s *Server) record(j *state.Job, detail *details, reasons *sched.Reasons, now int64) *api.JobRecord {
	r := &api.JobRecord{
		JobID: j.ID, Index: j.Index, User: j.User, State: j.State, Queue: j.Queue, FromHost: j.Spec.FromHost,
		JobName: j.DisplayName(), SubmitTime: j.SubmitTime, StartTime: j.StartTime, EndTime: j.EndTime,
		DispatchTime: j.StartTime, SuspReasons: j.SuspReasons, SuspSubreason: j.SuspSubreason,
		ExitStatus: j.ExitStatus, TermReason: j.TermReason, ExecHome: j.ExecHome, ExecCwd: j.ExecCwd,
		ExecUser: j.ExecUser, NumSlots: j.Slots(), RunCount: j.RunCount, JobPID: j.PID, UserGroup: j.Spec.UserGroup,
		PreemptCount: j.PreemptCount, Forced: j.Forced, Priority: int64(j.UserPriority), Project: j.Project,
		Command: j.Spec.Command, DefaultQueue: j.DefaultQueue, EffectiveResReq: j.EffectiveResReq,
	}
	for _, h := range j.ExecHosts {
		r.ExecHosts = append(r.ExecHosts, &api.ExecHost{Host: h.Host, Slots: h.Slots, GPUs: h.GPUs, GPUReq: h.GPUReq})
	}
	mcRecord(j, r)
	if j.Spec.AutoResizable {
		lo, hi := j.PendingResize()
		r.ResizeTime, r.ResizeMin, r.ResizeMax, r.ResizeNotifyCmd = j.ResizeTime(), lo, hi, j.NotifyCmd()
	}
	if j.Array != nil {
		r.ArraySpec = "[" + j.Array.Spec + "]"
		r.ArrayLimit = j.Array.Limit
	}
	if job.Pending(j.State) {
		r.PendTime = now - j.PendSince
		r.PendReasons = reasons.Get(j.Key)
		if len(r.PendReasons) == 0 {
			code := int32(1) // PEND_JOB_NEW
			switch {
			case j.State == api.StatePSusp:
				code = 607
			case j.PendReason != 0:
				code = j.PendReason
			}
			r.PendReasons = []*api.PendReason{{Code: code}}
		}
	}
	switch {
	case job.Finished(j.State):
		r.Usage = j.Usage
	case job.Started(j.State):
		s.usageMu.Lock()
		r.Usage = s.usage[j.Key]
		s.usageMu.Unlock()
		if r.Usage != nil && r.Usage.PGID != 0 {
			r.JobPID = r.Usage.PGID
		}
	}
	if detail != nil {
		r.Spec = j.Spec.Full()
		r.Spec.Env = nil
		// Spooled files (-Zs, -is) travel to the execution host only.
		r.Spec.CmdSpool, r.Spec.InSpoolData = nil, nil
		if detail.long {
			r.CombinedResReq = detail.combined(j)
			r.CombinedGPUReq = detail.combinedGPU(j)
			r.Thresholds = detail.jobThresholds(j)
		}
	}
	return r
}

// matches applies a JobsRequest's selectors to j.
type jobFilter struct {
	users   map[string]bool // nil: any
	queue   string
	hosts   map[string]bool // nil: any
	name    string
	project string
	app     string
	mask    uint32
	// userGroup (-G), jobGroup (-g, without a trailing "/"), sla and
	// description (-Jd): "" selects any.
	userGroup, jobGroup, sla, description string
}

// filter builds the selection of req; its queue and host names were checked
// (selectorError).
func (s *Server) filter(cfg *config.Config, id auth.Identity, req *api.JobsRequest) *jobFilter {
	f := &jobFilter{queue: req.Queue, name: req.JobName, project: req.Project, app: req.App, mask: req.StateMask,
		userGroup: req.UserGroup, jobGroup: strings.TrimSuffix(req.JobGroup, "/"), sla: req.SLA, description: req.Description}
	if f.mask == 0 {
		f.mask = unfinishedMask
		if req.IncludeFinished {
			f.mask |= uint32(api.StateDone | api.StateExit)
		}
	} else if req.IncludeFinished {
		f.mask |= uint32(api.StateDone | api.StateExit)
	}
	switch u := req.User; {
	case u == "all":
	case u == "":
		f.users = map[string]bool{id.User: true}
	default:
		f.users = map[string]bool{}
		for _, name := range strings.Fields(u) {
			if g := cfg.UserGroup(name); g != nil {
				for _, m := range g.Members {
					f.users[m] = true
				}
				if g.All {
					f.users = nil
					break
				}
			} else {
				f.users[name] = true
			}
		}
	}
	if req.Host != "" {
		f.hosts = map[string]bool{}
		hosts := expandHostName(cfg, req.Host)
		if len(hosts) == 0 && req.Host == cfg.ClusterName() {
			hosts = expandHostName(cfg, "all") // -m cluster_name: its hosts
		}
		for _, h := range hosts {
			f.hosts[h] = true
		}
	}
	return f
}

func (f *jobFilter) match(j *state.Job) bool {
	if uint32(j.State)&f.mask == 0 {
		return false
	}
	if f.users != nil && !f.users[j.User] {
		return false
	}
	if f.queue != "" && j.Queue != f.queue {
		return false
	}
	if f.app != "" && j.Spec.App != f.app {
		return false
	}
	if f.project != "" && j.Project != f.project {
		return false
	}
	if f.userGroup != "" && j.Spec.UserGroup != f.userGroup {
		return false
	}
	if f.jobGroup != "" && j.Spec.JobGroup != f.jobGroup && !strings.HasPrefix(j.Spec.JobGroup, f.jobGroup+"/") {
		return false
	}
	if f.sla != "" && j.Spec.SLA != f.sla {
		return false
	}
	if f.description != "" && !job.NameMatch(f.description, j.Spec.Description) {
		return false
	}
	if f.name != "" && !nameMatch(f.name, j.Name, j.DisplayName()) {
		return false
	}
	if f.hosts != nil {
		ok := false
		for _, h := range j.ExecHosts {
			if f.hosts[h.Host] {
				ok = true
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// nameMatch matches a -J pattern against a job's name or its element name
// (name[index]): '*' is a wildcard anywhere (Snakemake polls with
// -J '*<uuid>*'), except in an array index, where LSF matches nothing
// (job1[*] names no job).
func nameMatch(pattern, name, display string) bool {
	if i := strings.LastIndexByte(pattern, '['); i >= 0 && strings.HasSuffix(pattern, "]") &&
		strings.Contains(pattern[i:], "*") {
		return false
	}
	return job.NameMatch(pattern, name) || job.NameMatch(pattern, display)
}

// selectJobs returns the jobs a request names, in bjobs order: started jobs
// by ID, then pending jobs in dispatch order, then finished jobs by ID.
func (s *Server) selectJobs(v *state.View, cfg *config.Config, id auth.Identity, req *api.JobsRequest) ([]*state.Job, []*api.JobRef) {
	var notFound []*api.JobRef
	var picked []*state.Job
	if len(req.Jobs) > 0 {
		f := s.filter(cfg, id, req)
		f.users = nil // explicit IDs: any owner
		if req.StateMask == 0 {
			f.mask = ^uint32(0) // explicit IDs show finished jobs without -a
		}
		seen := map[state.Key]bool{}
		for _, ref := range req.Jobs {
			found := false
			add := func(j *state.Job) bool {
				found = true
				if !seen[j.Key] && f.match(j) {
					seen[j.Key] = true
					picked = append(picked, j)
				}
				return true
			}
			if ref.Index != 0 {
				if j := v.Job(state.Key{ID: ref.JobID, Index: ref.Index}); j != nil {
					add(j)
				}
			} else if j := v.Job(state.Key{ID: ref.JobID}); j != nil {
				add(j)
			} else {
				v.Elements(ref.JobID, add)
			}
			if !found {
				notFound = append(notFound, ref)
			}
		}
		return orderJobs(v, cfg, picked), notFound
	}
	f := s.filter(cfg, id, req)
	v.Jobs(func(j *state.Job) bool {
		if f.match(j) {
			picked = append(picked, j)
		}
		return true
	})
	return orderJobs(v, cfg, picked), nil
}

func orderJobs(v *state.View, cfg *config.Config, jobs []*state.Job) []*state.Job {
	if len(jobs) < 2 {
		return jobs // bjobs <id>: no dispatch list to walk
	}
	byID := func(a, b *state.Job) int {
		if a.ID != b.ID {
			return cmp.Compare(a.ID, b.ID)
		}
		return cmp.Compare(a.Index, b.Index)
	}
	var started, finished []*state.Job
	pend := map[*state.Job]bool{}
	listed := map[string]int{}
	pendQueues := map[string][]*state.Job{} // pending jobs outside the dispatch list (position 0)
	for _, j := range jobs {
		switch {
		case job.Started(j.State):
			started = append(started, j)
		case job.Pending(j.State):
			if v.Listed(j) {
				pend[j] = true
				listed[j.Queue]++
			} else {
				pendQueues[j.Queue] = append(pendQueues[j.Queue], j)
			}
			if _, ok := pendQueues[j.Queue]; !ok {
				pendQueues[j.Queue] = nil
			}
		default:
			finished = append(finished, j)
		}
	}
	slices.SortFunc(started, byID)
	slices.SortFunc(finished, byID)
	out := started
	// Pending jobs: queues by priority (configuration order among equals),
	// then each queue's dispatch order, walked once.
	queues := make([]string, 0, len(pendQueues))
	for q := range pendQueues {
		queues = append(queues, q)
	}
	rank := map[string]int{}
	prio := map[string]int{}
	for i, q := range cfg.Queues {
		rank[q.Name], prio[q.Name] = i, q.Priority
	}
	slices.SortFunc(queues, func(a, b string) int {
		if c := cmp.Compare(prio[b], prio[a]); c != 0 {
			return c
		}
		return cmp.Compare(rank[a], rank[b])
	})
	for _, q := range queues {
		unlisted := pendQueues[q]
		slices.SortFunc(unlisted, byID)
		out = append(out, unlisted...)
		want := listed[q]
		if want == 0 {
			continue
		}
		v.Pending(q, func(j *state.Job) bool {
			if pend[j] {
				out = append(out, j)
				want--
			}
			return want > 0
		})
	}
	return append(out, finished...)
}

// jobs streams bjobs results in chunks.
func (s *Server) jobs(ctx context.Context, id auth.Identity, req *api.JobsRequest, send func(*api.JobsReply) error) error {
	cfg := s.cfg.Current()
	if err := selectorError(cfg, req.Queue, req.Host); err != nil {
		return err
	}
	var recs []*api.JobRecord
	var notFound []*api.JobRef
	reasons := s.currentReasons()
	now := s.clock.Now().Unix()
	var detail *details
	if req.Detail {
		detail = newDetails(cfg, req.Long)
	}
	s.st.View(func(v *state.View) {
		var jobs []*state.Job
		jobs, notFound = s.selectJobs(v, cfg, id, req)
		recs = make([]*api.JobRecord, len(jobs))
		for i, j := range jobs {
			recs[i] = s.record(j, detail, reasons, now)
			if detail != nil && !s.mayControlJob(id, cfg, j.User, j.Queue) {
				hideDetails(recs[i])
			}
		}
	})
	return sendJobs(recs, notFound, send)
}

// hidden stands for a detail of another user's job the caller may not see.
const hidden = "(hidden)"

// hideDetails keeps only the basic facts of a job in r: anyone sees any
// job's summary (bjobs), only those who may control it its details (bjobs
// -l, -o with details): the command, working directory, files,
// environment, pre- and post-execution commands, esub output and job
// description, as LSF's SECURE_JOB_INFO_LEVEL hides them.
func hideDetails(r *api.JobRecord) {
	r.Command = hidden
	r.ExecCwd, r.ExecHome = hidden, ""
	if sp := r.Spec; sp != nil {
		c := *sp
		if c.JobName == "" {
			// The name bjobs -l shows is the command's.
			r.JobName = hidden
		}
		c.Command, c.Cwd, c.SubCwd, c.SubHome = hidden, "", hidden, ""
		if c.InFile != "" {
			c.InFile = hidden
		}
		if c.OutFile != "" {
			c.OutFile = hidden
		}
		if c.ErrFile != "" {
			c.ErrFile = hidden
		}
		if c.PreExec != "" {
			c.PreExec = hidden
		}
		if c.PostExec != "" {
			c.PostExec = hidden
		}
		c.Env, c.EsubOutput, c.Description, c.Files, c.UserMap = nil, nil, "", nil, nil
		r.Spec = &c
	}
}

// Listings go in messages of at most listChunk records and about
// listBytes bytes; a record larger than maxRecordBytes (a job submitted
// before submissions were bounded) goes with its command cut, so that no
// record can make a message too large and fail the whole listing.
const (
	listChunk      = 1000
	listBytes      = 1 << 20
	maxRecordBytes = 8 << 20
)

func sendJobs(recs []*api.JobRecord, notFound []*api.JobRef, send func(*api.JobsReply) error) error {
	var batch []*api.JobRecord
	size := 0
	for _, r := range recs {
		n := r.SizeWire()
		if n > maxRecordBytes {
			c := *r
			c.Command = fmt.Sprintf("<command of %d bytes not shown>", len(r.Command))
			r, n = &c, c.SizeWire()
		}
		if len(batch) > 0 && (len(batch) >= listChunk || size+n > listBytes) {
			if err := send(&api.JobsReply{Jobs: batch}); err != nil {
				return err
			}
			batch, size = nil, 0
		}
		batch = append(batch, r)
		size += n
	}
	return send(&api.JobsReply{Jobs: batch, NotFound: notFound})
}

func (s *Server) currentReasons() *sched.Reasons { return s.reasons.Load() }

// waitJob streams a job's record whenever it changes, until it finishes.
func (s *Server) waitJob(ctx context.Context, id auth.Identity, ref *api.JobRef, send func(*api.JobRecord) error) error {
	k := state.Key{ID: ref.JobID, Index: ref.Index}
	ch := make(chan struct{}, 1)
	s.waitersM.Lock()
	s.waiters[k] = append(s.waiters[k], ch)
	s.waitersM.Unlock()
	defer func() {
		s.waitersM.Lock()
		list := s.waiters[k]
		for i, c := range list {
			if c == ch {
				list = append(list[:i], list[i+1:]...)
				break
			}
		}
		if len(list) == 0 {
			delete(s.waiters, k)
		} else {
			s.waiters[k] = list
		}
		s.waitersM.Unlock()
	}()
	var last *api.JobRecord
	for {
		var rec *api.JobRecord
		s.st.View(func(v *state.View) {
			if j := v.Job(k); j != nil {
				rec = s.record(j, nil, s.currentReasons(), s.clock.Now().Unix())
			}
		})
		if rec == nil {
			return errNoJob(k)
		}
		if last == nil || rec.State != last.State || rec.JobPID != last.JobPID {
			if err := send(rec); err != nil {
				return err
			}
			last = rec
		}
		if job.Finished(rec.State) {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// selectorError is LSF's error for a -q naming no queue, or a -m naming no
// host, host group or cluster ("name: No such queue"); nil when both name
// something.
func selectorError(cfg *config.Config, queue, host string) error {
	if queue != "" && cfg.Queue(queue) == nil {
		return lsberr.Errorf(lsberr.BadQueue, "%s: %s", queue, lsberr.BadQueue.Text())
	}
	if host != "" && len(expandHostName(cfg, host)) == 0 && host != cfg.ClusterName() {
		return lsberr.Errorf(lsberr.BadHost, "%s: %s", host, lsberr.BadHost.Text())
	}
	return nil
}
