package state

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/job"
)

// Errors Apply reports for events that no longer fit the state (a race
// between the leader's validation and the log order). They change nothing.
var (
	ErrNoSuchJob = errors.New("no such job")
	ErrJobExists = errors.New("job ID already in use")
	ErrStale     = errors.New("report for an earlier run of the job")
	ErrNoEvent   = errors.New("event has no payload")
	// ErrStartedSince refuses a pending job's change (EvJobModify
	// PendingOnly) to a job dispatched since it was checked.
	ErrStartedSince = errors.New("the job has started since the change was checked")
)

// Apply applies a log entry at log index idx. It returns one error per event
// (nil where the event applied); an event that does not fit the state is
// skipped and the rest still apply, identically on every replica.
func (s *State) Apply(idx uint64, e *api.LogEntry) []error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dirty.Store(true)
	errs := make([]error, len(e.Events))
	s.applying = idx
	for i, ev := range e.Events {
		errs[i] = s.apply(ev)
	}
	if idx > s.applied {
		s.applied = idx
	}
	return errs
}

func (s *State) apply(ev *api.Event) error {
	t := ev.Time / 1e9
	switch {
	case ev.JobNew != nil:
		return s.jobNew(t, ev, ev.JobNew)
	case ev.JobStart != nil:
		return s.jobStart(t, ev.JobStart)
	case ev.JobExecute != nil:
		return s.jobExecute(ev.JobExecute)
	case ev.JobStatus != nil:
		return s.jobStatus(t, ev.JobStatus)
	case ev.JobSignal != nil:
		return s.jobSignal(t, ev.JobSignal)
	case ev.JobSwitch != nil:
		return s.jobSwitch(ev.JobSwitch)
	case ev.JobMove != nil:
		return s.jobMove(ev.JobMove)
	case ev.JobModify != nil:
		return s.jobModify(ev.JobModify)
	case ev.JobClean != nil:
		return s.jobClean(ev.JobClean)
	case ev.JobRequeue != nil:
		return s.jobRequeue(t, ev.JobRequeue)
	case ev.JobForce != nil:
		_, err := s.get(ev.JobForce.JobID, ev.JobForce.Index)
		return err
	case ev.JobChkpnt != nil:
		return s.jobChkpnt(t, ev, ev.JobChkpnt)
	case ev.JobMig != nil:
		return s.jobMig(ev.JobMig)
	case ev.JobResize != nil:
		return s.jobResize(t, ev.JobResize)
	case ev.QueueCtrl != nil:
		q := s.queues.m[ev.QueueCtrl.Queue]
		switch ev.QueueCtrl.Op {
		case api.QueueOpen:
			q.Closed = false
		case api.QueueClose:
			q.Closed = true
		case api.QueueActivate:
			q.Inactive = false
		case api.QueueInactivate:
			q.Inactive = true
		default:
			return fmt.Errorf("queue control: unknown operation %d", ev.QueueCtrl.Op)
		}
		s.queues.w(s.gen)[s.strs.get(ev.QueueCtrl.Queue)] = q
		return nil
	case ev.HostCtrl != nil:
		h := s.hosts.m[ev.HostCtrl.Host]
		switch ev.HostCtrl.Op {
		case api.HostOpen:
			h.Closed, h.Comment = false, ""
		case api.HostClose:
			h.Closed, h.Comment = true, ev.HostCtrl.Message
		default:
			return fmt.Errorf("host control: unknown operation %d", ev.HostCtrl.Op)
		}
		h.Time = t
		s.hosts.w(s.gen)[s.strs.get(ev.HostCtrl.Host)] = h
		return nil
	case ev.MbdStart != nil:
		s.masterStart = t
		return nil
	case ev.Reconfig != nil:
		return nil
	case ev.JobGroup != nil:
		return s.jobGroup(t, ev, ev.JobGroup)
	case ev.JobForward != nil:
		return s.jobForward(t, ev.JobForward)
	case ev.JobFwdUpdate != nil:
		return s.jobFwdUpdate(t, ev.JobFwdUpdate)
	case ev.Rsv != nil:
		return s.rsv(ev.Rsv)
	}
	return ErrNoEvent
}

func (s *State) get(id int64, idx int32) (*Job, error) {
	j, _ := s.jobs.get(Key{id, idx})
	if j == nil {
		return nil, fmt.Errorf("job %s: %w", Key{id, idx}, ErrNoSuchJob)
	}
	return j, nil
}

// getW is get for a change: the job's record is the applier's own.
func (s *State) getW(id int64, idx int32) (*Job, error) {
	j, err := s.get(id, idx)
	if err != nil {
		return nil, err
	}
	return s.own(j), nil
}

// own returns the applier's writable record of j: j itself if it is of
// the current generation, else a copy put in j's place (the jobs map, its
// pending list's entry).
func (s *State) own(j *Job) *Job { return s.ownJob(j, true) }

// ownJob is own; with fix false it leaves the pending list's entry to the
// caller (who rebuilds the list).
func (s *State) ownJob(j *Job, fix bool) *Job {
	if j.gen == s.gen {
		return j
	}
	c := new(Job)
	*c = *j
	c.gen = s.gen
	s.jobs.set(s.gen, c.Key, c)
	if fix && c.listed {
		s.pendingList(c.Queue).replace(s.gen, c)
	}
	if started(c.State) {
		if _, ok := s.started.get(c.Key); ok {
			s.started.set(s.gen, c.Key, c)
		}
		for _, h := range c.ExecHosts {
			if ks, _ := s.onHost.get(h.Host); ks != nil && ks.jobs[c.Key] != nil {
				s.hostSet(h.Host).jobs[c.Key] = c
			}
		}
	}
	return c
}

// count adds d to the number of jobs in state st.
func (s *State) count(st api.JobState, d int) {
	c := s.counts.w(s.gen)
	c[st] += d
	if c[st] <= 0 {
		delete(c, st)
	}
}

func (s *State) setState(j *Job, st api.JobState, t int64) {
	if j.State == st {
		return
	}
	s.count(j.State, -1)
	s.count(st, 1)
	j.State = st
	j.StateTime = t
	j.StateIndex = s.applying
}

// transition moves j by input, keeping the pending lists, host index and
// counters consistent.
func (s *State) transition(j *Job, in job.Input, t int64) error {
	next, err := job.Next(j.State, in, j.PrevState)
	if err != nil {
		return fmt.Errorf("job %s: %w", j.Key, err)
	}
	wasPending, wasStarted := job.Pending(j.State), job.Started(j.State)
	if next == api.StateUnkwn {
		j.PrevState = j.State
	}
	s.setState(j, next, t)
	nowPending, nowStarted := job.Pending(next), job.Started(next)
	if wasPending && !nowPending {
		s.unlist(j)
	}
	if !wasPending && nowPending {
		j.PendSince = t
		s.list(j)
	}
	if wasStarted && !nowStarted {
		s.leaveHosts(j)
	}
	if job.Finished(next) {
		j.EndTime = t
		s.finished++
	}
	return nil
}

// pendingList returns queue's pending list, writable.
func (s *State) pendingList(queue string) *pendingList {
	p := s.pending.m[queue]
	switch {
	case p == nil:
		p = newPendingList(queue, s.gen)
	case p.gen != s.gen:
		p = p.own(s.gen)
	default:
		return p
	}
	s.pending.w(s.gen)[s.strs.get(queue)] = p
	return p
}

// list inserts j (the applier's record) in its queue's pending list; a
// job forwarded to another cluster stays out of it.
func (s *State) list(j *Job) {
	if j.Fwd != nil && j.Fwd.Active {
		return
	}
	s.pendingList(j.Queue).insert(s.gen, j)
}

// unlist takes j (the applier's record) out of its queue's pending list.
func (s *State) unlist(j *Job) {
	if j.listed {
		s.pendingList(j.Queue).remove(s.gen, j)
		j.listed = false
	}
}

// hostSet returns host's set of started jobs, writable.
func (s *State) hostSet(host string) *hostJobs {
	ks, _ := s.onHost.get(host)
	switch {
	case ks == nil:
		ks = &hostJobs{gen: s.gen, jobs: map[Key]*Job{}}
	case ks.gen != s.gen:
		ks = &hostJobs{gen: s.gen, jobs: maps.Clone(ks.jobs)}
	default:
		return ks
	}
	s.onHost.set(s.gen, s.strs.get(host), ks)
	return ks
}

func (s *State) enterHosts(j *Job) {
	if len(j.ExecHosts) > 0 {
		s.started.set(s.gen, j.Key, j)
	}
	for _, h := range j.ExecHosts {
		s.hostSet(h.Host).jobs[j.Key] = j
	}
}

func (s *State) leaveHosts(j *Job) {
	s.started.del(s.gen, j.Key)
	for _, h := range j.ExecHosts {
		ks, _ := s.onHost.get(h.Host)
		if ks == nil {
			continue
		}
		if _, ok := ks.jobs[j.Key]; !ok {
			continue
		}
		ks = s.hostSet(h.Host)
		delete(ks.jobs, j.Key)
		if len(ks.jobs) == 0 {
			s.onHost.del(s.gen, h.Host)
		}
	}
}

// appendName adds job k to the jobs of nk.
func (s *State) appendName(nk nameKey, k Key) {
	l, _ := s.byName.get(nk)
	switch {
	case l == nil:
		l = &nameList{gen: s.gen}
	case l.gen != s.gen:
		// Append past the snapshot's entries, in the same array.
		l = &nameList{gen: s.gen, frozen: len(l.keys), keys: l.keys}
	default:
		if len(l.keys) == cap(l.keys) {
			l.frozen = 0 // append copies
		}
		l.keys = append(l.keys, k)
		return
	}
	if len(l.keys) == cap(l.keys) {
		l.frozen = 0
	}
	l.keys = append(l.keys, k)
	s.byName.set(s.gen, nk, l)
}

func (s *State) jobNew(t int64, ev *api.Event, n *api.EvJobNew) error {
	if n.JobID <= 0 || n.Spec == nil {
		return fmt.Errorf("job new: bad job ID %d or missing spec", n.JobID)
	}
	if _, ok := s.jobs.get(Key{n.JobID, 0}); ok {
		return fmt.Errorf("job %d: %w", n.JobID, ErrJobExists)
	}
	if _, ok := s.arrays.get(n.JobID); ok {
		return fmt.Errorf("job %d: %w", n.JobID, ErrJobExists)
	}
	if g, ok := CleanGroupPath(n.Spec.JobGroup); ok && g != "/" {
		// bsub -g of a group that does not exist creates it.
		s.ensureGroup(g, ev.User, t)
	}
	spec := s.internSpec(n.Spec)
	base := Job{
		Spec: spec, User: s.strs.get(ev.User), UID: ev.UID, Queue: s.strs.get(n.Queue), DefaultQueue: n.DefaultQueue,
		Name: n.JobName, Project: s.strs.get(n.Project), SubmitTime: t, PendSince: t, StateTime: t, StateIndex: s.applying,
		Order: n.Order, NumProcs: n.NumProcs, MaxProcs: n.MaxProcs, UserPriority: n.UserPriority,
	}
	if n.Order > s.lastOrder {
		s.lastOrder = n.Order
	}
	st := api.StatePend
	if n.Hold {
		st = api.StatePSusp
	}
	var arr *Array
	keys := []Key{{n.JobID, 0}}
	if len(n.ArrayIndices) > 0 {
		arr = &Array{ID: n.JobID, Spec: n.ArraySpec, Limit: n.ArrayLimit, Indices: n.ArrayIndices}
		s.arrays.set(s.gen, n.JobID, arr)
		keys = keys[:0]
		for _, i := range n.ArrayIndices {
			keys = append(keys, Key{n.JobID, i})
		}
	}
	p := s.pendingList(base.Queue)
	nk := nameKey{base.User, base.Name}
	for _, k := range keys {
		j := new(Job)
		*j = base
		j.Key = k
		j.Array = arr
		j.State = st
		j.gen = s.gen
		s.count(st, 1)
		s.jobs.set(s.gen, k, j)
		s.specs[spec]++
		p.insert(s.gen, j)
		if base.Name != "" {
			s.appendName(nk, k)
		}
	}
	s.specs[spec]-- // internSpec counted the first use
	s.lastJobID = n.JobID
	if n.SubmitKey != "" {
		s.recordKey(base.User, ev.Time, n)
	}
	return nil
}

// internSpec makes the Spec for a submission: its own fields, and its
// base interned (see Spec).
func (s *State) internSpec(in *api.JobSpec) *Spec {
	spec := &Spec{specBase: s.bases.intern(in, s.envs), Command: in.Command, JobName: in.JobName, OutFile: in.OutFile,
		ErrFile: in.ErrFile, Cwd: in.Cwd}
	s.specs[spec] = 1
	return spec
}

func (s *State) releaseSpec(sp *Spec) {
	s.specs[sp]--
	if s.specs[sp] <= 0 {
		delete(s.specs, sp)
		s.bases.release(sp.specBase, s.envs)
	}
}

func (s *State) jobStart(t int64, e *api.EvJobStart) error {
	j, err := s.getW(e.JobID, e.Index)
	if err != nil {
		return err
	}
	if j.State != api.StatePend && !(e.Forced && j.State == api.StatePSusp) {
		return fmt.Errorf("job %s: dispatch of a %s job: %w", j.Key, job.Name(j.State), job.ErrIllegalTransition)
	}
	if j.Fwd != nil && j.Fwd.Active {
		// A pass that saw the job before its forward applied: it runs there.
		return fmt.Errorf("job %s: dispatch of a job forwarded to cluster %s: %w", j.Key, j.Fwd.Cluster, job.ErrIllegalTransition)
	}
	if j.State == api.StatePSusp {
		s.setState(j, api.StatePend, t)
	}
	if len(e.ExecHosts) == 0 {
		return fmt.Errorf("job %s: dispatch without hosts", j.Key)
	}
	if err := s.transition(j, job.Dispatch, t); err != nil {
		return err
	}
	j.ExecHosts = make([]*api.ExecHost, len(e.ExecHosts))
	for i, h := range e.ExecHosts {
		j.ExecHosts[i] = &api.ExecHost{Host: s.strs.get(h.Host), Slots: h.Slots, GPUs: h.GPUs, GPUReq: h.GPUReq}
	}
	j.StartTime = t
	j.EndTime = 0
	j.RunCount++
	j.ChkpntReq = 0 // a new run has no checkpoint in progress (chkpnt.go)
	j.Forced = e.Forced
	j.NoSuspend = e.NoSuspend
	j.ExecRusage = e.ExecRusage
	j.EffectiveResReq = s.strs.get(e.EffectiveResReq) // shared by the jobs of a class
	j.BackfillLimit = e.BackfillLimit
	j.resetResize()
	j.PID, j.PGID = 0, 0
	j.ExitStatus, j.TermReason = 0, ""
	j.SuspReasons, j.SuspSubreason, j.PendReason = 0, 0, 0
	j.Usage = nil
	s.enterHosts(j)
	return nil
}

func (s *State) jobExecute(e *api.EvJobExecute) error {
	j, err := s.getW(e.JobID, e.Index)
	if err != nil {
		return err
	}
	if !job.Started(j.State) {
		return fmt.Errorf("job %s: execute report for a %s job: %w", j.Key, job.Name(j.State), ErrStale)
	}
	j.PID, j.PGID = e.PID, e.PGID
	j.ExecCwd, j.ExecHome, j.ExecUser = e.ExecCwd, e.ExecHome, s.strs.get(e.ExecUser)
	return nil
}

func (s *State) jobStatus(t int64, e *api.EvJobStatus) error {
	j, err := s.getW(e.JobID, e.Index)
	if err != nil {
		return err
	}
	if e.RunCount != 0 && e.RunCount != j.RunCount {
		return fmt.Errorf("job %s: run %d, now %d: %w", j.Key, e.RunCount, j.RunCount, ErrStale)
	}
	if job.Finished(j.State) && j.State == e.State {
		// Post-execution results arrive after the job finished.
		j.PostDone = j.PostDone || e.PostDone
		j.PostFailed = j.PostFailed || e.PostFailed
		return nil
	}
	if j.State == api.StateUnkwn && (e.State == api.StateRun || e.State == api.StateSSusp || e.State == api.StateUSusp) {
		// The host is back: the job returns to the state it had, then takes
		// the reported one if that differs.
		if err := s.transition(j, job.HostBack, t); err != nil {
			return err
		}
	}
	var in job.Input
	switch e.State {
	case api.StateDone:
		in = job.Finish
	case api.StateExit:
		in = job.Fail
		if job.Pending(j.State) {
			in = job.KillPending
		}
	case api.StateSSusp:
		in = job.SystemSuspend
		if j.State == api.StateUSusp {
			in = job.UserResume // bresume: USUSP -> SSUSP
		}
	case api.StateUSusp:
		in = job.UserStop
	case api.StateRun:
		in = job.SystemResume
		if j.State == api.StateUnkwn {
			in = job.HostBack
		}
	case api.StatePend:
		in = job.Requeue
	case api.StatePSusp:
		in = job.RequeueHold
	case api.StateUnkwn:
		in = job.HostLost
	case api.StateZombi:
		in = job.Zombie
	default:
		return fmt.Errorf("job %s: status %s not understood", j.Key, job.Name(e.State))
	}
	if in == job.UserStop && job.Pending(j.State) {
		// bstop of a pending job reported back: PSUSP.
		in = job.UserStop
	}
	if in == job.SystemResume && j.State == api.StatePSusp {
		in = job.UserResume
	}
	if j.State == e.State && !job.Pending(e.State) {
		// A repeated report (e.g. after an sbatchd reconnect): keep reasons fresh.
		j.SuspReasons, j.SuspSubreason = e.SuspReasons, e.SuspSubreason
		return nil
	}
	if err := s.transition(j, in, t); err != nil {
		return err
	}
	j.SuspReasons, j.SuspSubreason = e.SuspReasons, e.SuspSubreason
	switch {
	case job.Finished(e.State):
		j.ExitStatus, j.TermReason = e.ExitStatus, e.TermReason
		j.Usage = e.Usage
		j.PostDone, j.PostFailed = e.PostDone, e.PostFailed
	case e.State == api.StateZombi:
		j.TermReason = e.TermReason // how it was killed, until its host confirms
	case job.Pending(e.State):
		j.PendReason = e.PendReason
		if e.ExcludeHost != "" {
			j.ExcludedHosts = append(j.ExcludedHosts, s.strs.get(e.ExcludeHost))
		}
		j.ExecHosts = nil
		j.PID, j.PGID = 0, 0
	}
	return nil
}

func (s *State) jobSignal(t int64, e *api.EvJobSignal) error {
	j, err := s.getW(e.JobID, e.Index)
	if err != nil {
		return err
	}
	if e.Preempt && job.Started(j.State) {
		j.PreemptCount++
	}
	if !job.Pending(j.State) {
		return nil // sbatchd acts and reports the resulting state
	}
	switch api.SignalAction(e.Action) {
	case api.ActSuspend:
		return s.transition(j, job.UserStop, t)
	case api.ActResume:
		if j.State == api.StatePSusp {
			return s.transition(j, job.UserResume, t)
		}
	case api.ActTerminate, api.ActSignal:
		if e.Signal == "KILL" || api.SignalAction(e.Action) == api.ActTerminate {
			if err := s.transition(j, job.KillPending, t); err != nil {
				return err
			}
			j.TermReason = e.TermReason
			j.ExitStatus = 0
			return nil
		}
	}
	return nil
}

func (s *State) jobSwitch(e *api.EvJobSwitch) error {
	j, err := s.getW(e.JobID, e.Index)
	if err != nil {
		return err
	}
	if job.Finished(j.State) {
		return fmt.Errorf("job %s: switch of a finished job: %w", j.Key, job.ErrIllegalTransition)
	}
	pending := job.Pending(j.State)
	if pending {
		s.unlist(j)
	}
	j.Queue = s.strs.get(e.Queue)
	if e.Order != 0 {
		j.Order = e.Order
		if e.Order > s.lastOrder {
			s.lastOrder = e.Order
		}
	}
	if pending {
		s.list(j)
	}
	return nil
}

func (s *State) jobMove(e *api.EvJobMove) error {
	j, err := s.getW(e.JobID, e.Index)
	if err != nil {
		return err
	}
	if !job.Pending(j.State) {
		return fmt.Errorf("job %s: only pending jobs can be moved: %w", j.Key, job.ErrIllegalTransition)
	}
	s.moveJob(j, int(e.Position), e.Bottom)
	return nil
}

func (s *State) jobModify(e *api.EvJobModify) error {
	var targets []Key
	if a, _ := s.arrays.get(e.JobID); a != nil && e.Index == 0 {
		// The whole array: its unfinished elements (pending ones for a
		// change only they may have).
		started := 0
		for _, i := range a.Indices {
			x, _ := s.jobs.get(Key{e.JobID, i})
			switch {
			case x == nil || job.Finished(x.State):
			case e.PendingOnly && job.Started(x.State):
				started++
			default:
				targets = append(targets, x.Key)
			}
		}
		if len(targets) == 0 && started > 0 {
			return fmt.Errorf("job %d: %w", e.JobID, ErrStartedSince)
		}
		if len(targets) == 0 {
			return fmt.Errorf("job %d: modify of a finished array: %w", e.JobID, job.ErrIllegalTransition)
		}
		if e.SetArrayLimit {
			// A new record of the array, and of each of its jobs.
			na := *a
			na.Limit = e.ArrayLimit
			s.arrays.set(s.gen, a.ID, &na)
			for _, i := range a.Indices {
				if x, _ := s.jobs.get(Key{a.ID, i}); x != nil {
					s.own(x).Array = &na
				}
			}
		}
	} else {
		j, err := s.get(e.JobID, e.Index)
		if err != nil {
			return err
		}
		if job.Finished(j.State) {
			return fmt.Errorf("job %s: modify of a finished job: %w", j.Key, job.ErrIllegalTransition)
		}
		if e.PendingOnly && job.Started(j.State) {
			return fmt.Errorf("job %s: %w", j.Key, ErrStartedSince)
		}
		targets = []Key{j.Key}
	}
	if e.Spec == nil {
		return nil // the array's running limit alone (bmod -J %limit)
	}
	spec := s.internSpec(e.Spec)
	s.specs[spec]--
	for _, k := range targets {
		x, _ := s.jobs.get(k)
		x = s.own(x)
		s.releaseSpec(x.Spec)
		x.Spec = spec
		s.specs[spec]++
		if e.JobName != "" && e.JobName != x.Name {
			s.unindexName(x)
			x.Name = e.JobName
			s.appendName(nameKey{x.User, x.Name}, x.Key)
		}
		if e.Project != "" {
			x.Project = s.strs.get(e.Project)
		}
		if e.Queue != "" && e.Queue != x.Queue {
			pending := job.Pending(x.State)
			if pending {
				s.unlist(x)
			}
			x.Queue = s.strs.get(e.Queue)
			if pending {
				s.list(x)
			}
		}
		if job.Pending(x.State) {
			if e.Spec.MinProcs > 0 {
				x.NumProcs, x.MaxProcs = e.Spec.MinProcs, e.Spec.MaxProcs
			}
			if e.Spec.UserPriority != x.UserPriority {
				listed := x.listed
				s.unlist(x)
				x.UserPriority = e.Spec.UserPriority
				if listed {
					s.list(x)
				}
			}
		}
		if x.listed {
			s.pendingList(x.Queue).version++ // a new submission, perhaps other slots
		}
	}
	if s.specs[spec] <= 0 {
		s.releaseSpec(spec)
	}
	return nil
}

func (s *State) unindexName(j *Job) {
	nk := nameKey{j.User, j.Name}
	l, _ := s.byName.get(nk)
	if l == nil {
		return
	}
	i := slices.Index(l.keys, j.Key)
	switch {
	case i < 0:
	case len(l.keys) == 1:
		s.byName.del(s.gen, nk)
	case l.gen != s.gen || i < l.frozen:
		// The entries may be in a snapshot: a new array.
		keys := make([]Key, 0, len(l.keys)-1)
		keys = append(append(keys, l.keys[:i]...), l.keys[i+1:]...)
		s.byName.set(s.gen, nk, &nameList{gen: s.gen, keys: keys})
	default:
		l.keys = append(l.keys[:i], l.keys[i+1:]...)
	}
}

func (s *State) jobClean(e *api.EvJobClean) error {
	j, err := s.get(e.JobID, e.Index)
	if err != nil {
		return err
	}
	if !job.Finished(j.State) {
		return fmt.Errorf("job %s: clean of an unfinished job: %w", j.Key, job.ErrIllegalTransition)
	}
	s.remove(j)
	if j.Array != nil {
		left := false
		for _, i := range j.Array.Indices {
			if _, ok := s.jobs.get(Key{j.ID, i}); ok {
				left = true
				break
			}
		}
		if !left {
			s.arrays.del(s.gen, j.ID)
		}
	}
	return nil
}

// remove takes j out of the state; its record (perhaps in a snapshot) is
// left as it is.
func (s *State) remove(j *Job) {
	s.setForwarded(j, false)
	if s.stale.m[j.Key] {
		delete(s.stale.w(s.gen), j.Key)
	}
	if j.listed {
		s.pendingList(j.Queue).remove(s.gen, j)
	}
	s.leaveHosts(j)
	s.unindexName(j)
	s.count(j.State, -1)
	s.jobs.del(s.gen, j.Key)
	s.releaseSpec(j.Spec)
}

func (s *State) jobRequeue(t int64, e *api.EvJobRequeue) error {
	j, err := s.getW(e.JobID, e.Index)
	if err != nil {
		return err
	}
	in := job.Requeue
	if e.Hold {
		in = job.RequeueHold
	}
	if job.Finished(j.State) {
		// brequeue of a DONE/EXIT job: back to the queue as a new run.
		s.count(j.State, -1)
		j.State = api.StateRun // a finished job behaves as if it just stopped running
		s.count(j.State, 1)
	}
	if e.Order != 0 {
		j.Order = e.Order
	}
	if err := s.transition(j, in, t); err != nil {
		return err
	}
	j.ExecHosts = nil
	j.PID, j.PGID = 0, 0
	j.PendReason = 23 // PEND_JOB_REQUEUED
	return nil
}

// QueueOf is the queue of job k as of the last applied entry, "" when
// there is no such job. Only the applier's goroutine may call it (mbatchd's
// applied hook counts events by queue with it): it reads the unpublished
// state without publishing a snapshot.
func (s *State) QueueOf(k Key) string {
	if j, _ := s.jobs.get(k); j != nil {
		return j.Queue
	}
	return ""
}
