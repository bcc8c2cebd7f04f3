package eventlog

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	"github.com/basalt-lsf/basalt/api"
)

// Job is what mbatchd knows about one job or array element when a log
// entry has been applied: the parts of LSF's records that events do not
// carry. mbatchd's state fills it (internal/mbd/state.Job has every field).
// Times are Unix seconds.
type Job struct {
	ID    int64
	Index int32 // array index, 0 for a non-array job
	User  string
	UID   int32
	Queue string
	// Name is the job name without array index; Spec.JobName is -J as given.
	Name       string
	Project    string // resolved project
	Spec       *api.JobSpec
	ArraySpec  string // "1-10:2" for an element of an array
	ArrayLimit int32
	State      api.JobState
	SubmitTime int64
	StartTime  int64 // dispatch time of the current run
	// EndTime is when the current run ended, set by the status event that
	// ended it (and not by later reports): Render writes a run's
	// JOB_FINISH for the status whose time equals it.
	EndTime   int64
	NumProcs  int32
	MaxProcs  int32
	ExecHosts []*api.ExecHost
	// HostFactor is the CPU factor of the first execution host.
	HostFactor    float64
	PID, PGID     int32
	ExecCwd       string
	ExecHome      string
	ExecUser      string
	ExitStatus    int32 // wait(2) status
	TermReason    string
	SuspReasons   int32
	SuspSubreason int32
	PendReason    int32
	// StateIndex is the index of the log entry that last changed the
	// job's state; StateChanged, set by the Writer, says whether that is
	// the entry being rendered.
	StateIndex   uint64
	StateChanged bool
	RunCount     int32
	Usage        *api.Usage // final usage of a finished run
	// EffectiveResReq is the requirement the job was dispatched with.
	EffectiveResReq string
}

// SystemUser is the user name of records for decisions mbatchd takes on its
// own (events without a requester): LSF requires a user name there.
const SystemUser = "root"

// Render turns one committed event into LSF records: events for lsb.events
// and acct (a JOB_FINISH when a job run ends) for lsb.acct. job is the job
// the event is about, as mbatchd holds it after the entry was applied; nil
// for events not about a job and where mbatchd no longer has the job (after
// JOB_CLEAN). Events with no LSF record (Reconfig) give nothing.
func Render(ev *api.Event, job *Job) (events, acct []*Record) {
	t := ev.Time / 1e9
	user, uid := ev.User, int64(ev.UID)
	if user == "" {
		user, uid = SystemUser, 0
	}
	rec := func(typ string, l Log) *Record { return &Record{Type: typ, Version: Version, Time: t, Log: l} }
	switch {
	case ev.JobNew != nil:
		return []*Record{rec(TypeJobNew, jobNew(ev, t))}, nil
	case ev.JobStart != nil:
		s := ev.JobStart
		l := &JobStart{
			JobID: s.JobID, JStatus: int64(api.StateRun), HostFactor: 1,
			ExecHosts: expandHosts(s.ExecHosts), Idx: int64(s.Index),
		}
		if job != nil {
			if job.HostFactor > 0 {
				l.HostFactor = job.HostFactor
			}
			if job.Spec != nil {
				l.UserGroup = job.Spec.UserGroup
			}
		}
		if s.ExecRusage != "" {
			l.Ext = append(l.Ext, KV{ExtExecRusage, s.ExecRusage})
		}
		if s.EffectiveResReq != "" {
			l.Ext = append(l.Ext, KV{ExtEffResReq, s.EffectiveResReq})
		}
		if s.Forced {
			l.Ext = append(l.Ext, KV{ExtForced, yes})
		}
		if s.NoSuspend {
			l.Ext = append(l.Ext, KV{ExtNoSuspend, yes})
		}
		return []*Record{rec(TypeJobStart, l)}, nil
	case ev.JobExecute != nil:
		x := ev.JobExecute
		var execUID int64
		if job != nil {
			execUID = int64(job.UID)
		}
		return []*Record{
			rec(TypeJobStartAccept, &JobStartAccept{JobID: x.JobID, JobPID: int64(x.PID), JobPGID: int64(x.PGID), Idx: int64(x.Index)}),
			rec(TypeJobExecute, &JobExecute{
				JobID: x.JobID, ExecUID: execUID, JobPGID: int64(x.PGID), ExecCwd: x.ExecCwd,
				ExecHome: x.ExecHome, ExecUsername: x.ExecUser, JobPID: int64(x.PID), Idx: int64(x.Index),
			}),
		}, nil
	case ev.JobStatus != nil:
		return renderStatus(ev.JobStatus, job, t, rec)
	case ev.JobForward != nil:
		f := ev.JobForward
		return []*Record{rec(TypeJobForward, &JobForward{JobID: f.JobID, Cluster: f.Cluster, Idx: int64(f.Index)})}, nil
	case ev.JobFwdUpdate != nil:
		// A forwarded job's state as its execution cluster reported it:
		// logged as a status change, and its end in lsb.acct, as LSF's
		// submission cluster does.
		u := ev.JobFwdUpdate
		if u.State == 0 || u.Back || job == nil || !job.StateChanged {
			return nil, nil
		}
		return renderStatus(&api.EvJobStatus{JobID: u.JobID, Index: u.Index, State: u.State, ExitStatus: u.ExitStatus,
			TermReason: job.TermReason, Usage: u.Usage, RunCount: job.RunCount}, job, t, rec)
	case ev.JobSignal != nil:
		g := ev.JobSignal
		events = []*Record{rec(TypeJobSignal, &JobSignal{
			JobID: g.JobID, UserID: uid, RunCount: int64(g.RunCount), SignalSymbol: g.Signal,
			Idx: int64(g.Index), UserName: user,
		})}
		if job == nil || len(job.ExecHosts) > 0 || !job.StateChanged {
			return events, nil
		}
		// The signal changed a waiting job's state itself (bkill, bstop,
		// bresume of a PEND or PSUSP job; sbatchd reports a started
		// job's): LSF logs the new status, and a killed job's end.
		st := &api.EvJobStatus{JobID: g.JobID, Index: g.Index, State: job.State, PendReason: job.PendReason,
			SuspReasons: job.SuspReasons, SuspSubreason: job.SuspSubreason, TermReason: job.TermReason,
			ExitStatus: job.ExitStatus, RunCount: job.RunCount}
		switch job.State {
		case api.StateExit:
			more, acct := renderStatus(st, job, t, rec)
			return append(events, more...), acct
		case api.StatePend, api.StatePSusp:
			events = append(events, rec(TypeJobStatus, jobStatus(st, t)))
		}
		return events, nil
	case ev.JobSwitch != nil:
		w := ev.JobSwitch
		return []*Record{rec(TypeJobSwitch, &JobSwitch{UserID: uid, JobID: w.JobID, Queue: w.Queue, Idx: int64(w.Index), UserName: user})}, nil
	case ev.JobMove != nil:
		m := ev.JobMove
		base := int64(ToTop)
		if m.Bottom {
			base = ToBottom
		}
		return []*Record{rec(TypeJobMove, &JobMove{UserID: uid, JobID: m.JobID, Position: int64(m.Position), Base: base, Idx: int64(m.Index), UserName: user})}, nil
	case ev.JobModify != nil:
		return []*Record{rec(TypeJobModify2, jobModify(ev.JobModify, job, uid, user))}, nil
	case ev.JobClean != nil:
		return []*Record{rec(TypeJobClean, &JobClean{JobID: ev.JobClean.JobID, Idx: int64(ev.JobClean.Index)})}, nil
	case ev.JobRequeue != nil:
		q := ev.JobRequeue
		events = []*Record{rec(TypeJobRequeue, &JobRequeue{JobID: q.JobID, Idx: int64(q.Index)})}
		if q.Hold {
			events = append(events, rec(TypeJobStatus, &JobStatus{
				JobID: q.JobID, JStatus: int64(api.StatePSusp), Reason: pendJobRequeued, Idx: int64(q.Index),
			}))
		}
		return events, nil
	case ev.JobForce != nil:
		f := ev.JobForce
		opts := int64(RunJobOptNormal)
		if f.Force {
			opts = RunJobOptNoStop
		}
		return []*Record{rec(TypeJobForce, &JobForce{JobID: f.JobID, UserID: uid, Idx: int64(f.Index), Options: opts, ExecHosts: f.Hosts, UserName: user})}, nil
	case ev.JobChkpnt != nil:
		return renderChkpnt(ev.JobChkpnt, job, rec), nil
	case ev.JobResize != nil:
		return renderResize(ev.JobResize, user, uid, rec), nil
	case ev.JobMig != nil:
		m := ev.JobMig
		return []*Record{rec(TypeMig, &Mig{JobID: m.JobID, AskedHosts: m.Hosts, UserID: uid, Idx: int64(m.Index), UserName: user})}, nil
	case ev.QueueCtrl != nil:
		q := ev.QueueCtrl
		return []*Record{rec(TypeQueueCtrl, &QueueCtrl{OpCode: int64(q.Op), Queue: q.Queue, UserID: uid, UserName: user, Message: q.Message})}, nil
	case ev.HostCtrl != nil:
		h := ev.HostCtrl
		return []*Record{rec(TypeHostCtrl, &HostCtrl{OpCode: int64(h.Op), Host: h.Host, UserID: uid, UserName: user, Message: h.Message})}, nil
	case ev.MbdStart != nil:
		m := ev.MbdStart
		return []*Record{rec(TypeMbdStart, &MbdStart{Master: m.Master, Cluster: m.Cluster, NumHosts: int64(m.NumHosts), NumQueues: int64(m.NumQueues)})}, nil
	}
	return nil, nil
}

// renderStatus renders a status change. A status that ends a run (the job
// context's EndTime is the event's time: the state finished the job with
// this event) gives JOB_STATUS and lsb.acct's JOB_FINISH; its post-execution
// result, in the same event or a later one, a JOB_STATUS with PDONE or PERR
// added (LSF logs 64 then 192); a repeated report of a finished run,
// nothing. Without a job context, a DONE or EXIT status without post flags
// is taken to end the run.
func renderStatus(s *api.EvJobStatus, job *Job, t int64, rec func(string, Log) *Record) (events, acct []*Record) {
	finished := s.State == api.StateDone || s.State == api.StateExit
	post := s.PostDone || s.PostFailed
	if !finished {
		return []*Record{rec(TypeJobStatus, jobStatus(s, t))}, nil
	}
	ends := job == nil && !post || job != nil && job.EndTime == t
	if ends {
		base := *s
		base.PostDone, base.PostFailed = false, false
		events = []*Record{rec(TypeJobStatus, jobStatus(&base, t))}
		acct = []*Record{rec(TypeJobFinish, jobFinish(&base, job, t))}
	}
	if !post {
		return events, acct
	}
	// The post-execution result of the run: LSF logs it with the run's end
	// time, exit status and usage.
	p := *s
	endTime := t
	if job != nil {
		if p.Usage == nil {
			p.Usage = job.Usage
		}
		if p.ExitStatus == 0 {
			p.ExitStatus = job.ExitStatus
		}
		if p.TermReason == "" {
			p.TermReason = job.TermReason
		}
		if job.EndTime > 0 {
			endTime = job.EndTime
		}
	}
	st := jobStatus(&p, t)
	st.EndTime = endTime
	return append(events, rec(TypeJobStatus, st)), acct
}

// Pending reason codes used in records (lsbatch.h PEND_*).
const (
	pendJobNew      = 1
	pendJobRequeued = 23
)

var emptySpec api.JobSpec

func jobNew(ev *api.Event, t int64) *JobNew {
	n := ev.JobNew
	s := n.Spec
	if s == nil {
		s = &emptySpec
	}
	opts, opts2 := specOptions(s, n.Project)
	if n.Hold {
		opts2 |= Sub2Hold
	}
	user, uid := ev.User, int64(ev.UID)
	if user == "" {
		user, uid = SystemUser, 0
	}
	procs, maxProcs := int64(n.NumProcs), int64(n.MaxProcs)
	if procs <= 0 {
		procs = 1
	}
	if maxProcs < procs {
		maxProcs = procs
	}
	prio := int64(n.UserPriority)
	if prio <= 0 {
		prio = -1 // LSF 9.13 logs -1 for no -sp
	}
	l := &JobNew{
		JobID: n.JobID, UserID: uid, Options: opts, NumProcessors: procs,
		SubmitTime: t, BeginTime: s.BeginTime, TermTime: s.TermTime,
		ChkpntPeriod: s.ChkpntPeriod, UserName: user, RLimits: rlimitsOf(s.Limits),
		HostSpec: hostSpec(s.Limits), HostFactor: 1, Umask: int64(s.Umask),
		Queue: n.Queue, ResReq: joinResReq(s.ResReq), FromHost: s.FromHost,
		Cwd: cwdOf(s), ChkpntDir: s.ChkpntDir, InFile: s.InFile, OutFile: s.OutFile,
		ErrFile: s.ErrFile, SubHomeDir: s.SubHome, JobFile: jobFile(t, n.JobID),
		AskedHosts: s.AskedHosts, DependCond: s.Dependency, PreExecCmd: s.PreExec,
		// PostExecCmd is not a JOB_NEW field in the IBM layout: the
		// extension list carries it.
		JobName: jobNameOf(s, n.JobName, n.ArraySpec, n.ArrayLimit),
		Command: commandLine(s), XFiles: xfilesOf(s.Files), MailUser: s.MailUser,
		ProjectName: n.Project, MaxNumProcessors: maxProcs, LoginShell: s.LoginShell,
		UserGroup: s.UserGroup, Options2: opts2, UserPriority: prio,
		Ext: specExt(s, false),
	}
	if s.InSpool {
		l.InFileSpool = s.InFile
	}
	if s.CmdSpoolName != "" {
		l.CommandSpool = s.CmdSpoolName
	}
	return l
}

// jobFile names the job file the way LSF does: submitTime.jobId.
func jobFile(t, id int64) string {
	return strconv.FormatInt(t, 10) + "." + strconv.FormatInt(id, 10)
}

// joinResReq joins several -R strings into one requirement, the sections of
// each following the previous ones ("select[a] span[hosts=1]").
func joinResReq(rs []string) string {
	switch len(rs) {
	case 0:
		return ""
	case 1:
		return rs[0]
	}
	n := 0
	for _, r := range rs {
		n += len(r) + 1
	}
	b := make([]byte, 0, n)
	for i, r := range rs {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, r...)
	}
	return string(b)
}

// statusBits is a job status as LSF logs it: the state, with PDONE or
// PERR added once post-execution processing is over.
func statusBits(st api.JobState, postDone, postFailed bool) int64 {
	v := int64(st)
	if postDone {
		v |= int64(api.StatePDone)
	}
	if postFailed {
		v |= int64(api.StatePErr)
	}
	return v
}

func jobStatus(s *api.EvJobStatus, t int64) *JobStatus {
	l := &JobStatus{
		JobID: s.JobID, JStatus: statusBits(s.State, s.PostDone, s.PostFailed),
		ExitStatus: int64(s.ExitStatus), Idx: int64(s.Index), ExitInfo: TermCode(s.TermReason),
	}
	switch s.State {
	case api.StatePend:
		l.Reason = int64(s.PendReason)
	case api.StatePSusp, api.StateSSusp, api.StateUSusp:
		l.Reason, l.Subreasons = int64(s.SuspReasons), int64(s.SuspSubreason)
	case api.StateDone, api.StateExit:
		l.EndTime = t
		ru := rusageOf(s.Usage)
		l.Rusage = &ru
	}
	if u := s.Usage; u != nil {
		l.CPUTime = u.CPUTime
		l.MaxMem, l.AvgMem = u.MaxMem, u.AvgMem
	}
	return l
}

func jobFinish(s *api.EvJobStatus, job *Job, t int64) *JobFinish {
	l := &JobFinish{
		JobID: s.JobID, JStatus: int64(s.State), HostFactor: 1, ExitStatus: int64(s.ExitStatus),
		Idx: int64(s.Index), ExitInfo: TermCode(s.TermReason), Rusage: rusageOf(s.Usage),
		WarningTime: -1, RuntimeEstimation: -1, SrcJobID: -1, DstJobID: -1,
		IneligiblePendTime: -1, UserName: SystemUser,
	}
	if job != nil {
		fillFinish(l, job)
	}
	if u := s.Usage; u != nil {
		l.MaxRMem, l.MaxRSwap, l.AvgMem, l.RunTime = u.MaxMem, u.MaxSwap, u.AvgMem, u.RunTime
	}
	if l.RunTime == 0 && l.StartTime > 0 && t > l.StartTime {
		l.RunTime = t - l.StartTime
	}
	if s.TermReason != "" && l.ExitInfo == 0 {
		l.Ext = append(l.Ext, KV{ExtTermReason, s.TermReason})
	}
	return l
}

func fillFinish(l *JobFinish, job *Job) {
	s := job.Spec
	if s == nil {
		s = &emptySpec
	}
	opts, opts2 := specOptions(s, job.Project)
	l.UserID, l.UserName = int64(job.UID), job.User
	if l.UserName == "" {
		l.UserName = SystemUser
	}
	l.Options, l.Options2 = opts, opts2
	l.NumProcessors, l.MaxNumProcessors = int64(job.NumProcs), int64(job.MaxProcs)
	if l.NumProcessors <= 0 {
		l.NumProcessors = 1
	}
	if l.MaxNumProcessors < l.NumProcessors {
		l.MaxNumProcessors = l.NumProcessors
	}
	l.SubmitTime, l.BeginTime, l.TermTime, l.StartTime = job.SubmitTime, s.BeginTime, s.TermTime, job.StartTime
	l.Queue, l.ResReq, l.DependCond, l.PreExecCmd = job.Queue, joinResReq(s.ResReq), s.Dependency, s.PreExec
	l.FromHost, l.Cwd, l.InFile, l.OutFile, l.ErrFile = s.FromHost, cwdOf(s), s.InFile, s.OutFile, s.ErrFile
	l.JobFile = jobFile(job.SubmitTime, job.ID)
	l.AskedHosts = s.AskedHosts
	l.ExecHosts = expandHosts(job.ExecHosts)
	l.AllocSlots = l.ExecHosts
	if job.HostFactor > 0 {
		l.HostFactor = job.HostFactor
	}
	l.JobName = jobNameOf(s, job.Name, job.ArraySpec, job.ArrayLimit)
	l.Command = commandLine(s)
	l.MailUser, l.ProjectName, l.LoginShell = s.MailUser, job.Project, s.LoginShell
	if s.InSpool {
		l.InFileSpool = s.InFile
	}
	if s.CmdSpoolName != "" {
		l.CommandSpool = s.CmdSpoolName
	}
	l.SLA, l.WarningAction, l.App, l.PostExecCmd = s.SLA, s.WarningAction, s.App, s.PostExec
	if s.WarningTime > 0 {
		l.WarningTime = s.WarningTime
	}
	if s.Limits != nil {
		l.RunLimit = s.Limits.Run
		if s.Limits.RunEstimate > 0 {
			l.RuntimeEstimation = s.Limits.RunEstimate
		}
	}
	l.JobGroupName, l.JobDescription = s.JobGroup, s.Description
	l.RsvID = s.Reservation // bsub -U
	l.EffectiveResReq, l.SubCwd = job.EffectiveResReq, s.SubCwd
	l.Ext = specExt(s, true)
}

func jobModify(m *api.EvJobModify, job *Job, uid int64, user string) *JobModify2 {
	s := m.Spec
	if s == nil && job != nil {
		s = job.Spec // an array's running limit alone: the record repeats the rest
	}
	if s == nil {
		s = &emptySpec
	}
	opts, opts2 := specOptions(s, m.Project)
	opts |= SubQueue // the queue after bmod is always logged
	opts2 |= Sub2ModifyCmd
	if s.Description != "" {
		opts2 |= Sub2JobDesc
	}
	idStr := strconv.FormatInt(m.JobID, 10)
	if m.Index != 0 {
		idStr = fmt.Sprintf("%d[%d]", m.JobID, m.Index)
	}
	prio := int64(s.UserPriority)
	l := &JobModify2{
		JobIDStr: idStr, Options: opts, Options2: opts2, UserID: uid, UserName: user,
		Umask: int64(s.Umask), BeginTime: s.BeginTime, TermTime: s.TermTime,
		Queue: m.Queue, AskedHosts: s.AskedHosts, ResReq: joinResReq(s.ResReq),
		RLimits: rlimitsOf(s.Limits), HostSpec: hostSpec(s.Limits), DependCond: s.Dependency,
		SubHomeDir: s.SubHome, InFile: s.InFile, OutFile: s.OutFile, ErrFile: s.ErrFile,
		Command: commandLine(s), ChkpntPeriod: s.ChkpntPeriod, ChkpntDir: s.ChkpntDir,
		XFiles: xfilesOf(s.Files), FromHost: s.FromHost, Cwd: cwdOf(s),
		PreExecCmd: s.PreExec, PostExecCmd: s.PostExec, MailUser: s.MailUser,
		ProjectName: m.Project, LoginShell: s.LoginShell, UserPriority: prio,
		JobDesc: s.Description, Ext: specExt(s, false),
	}
	l.NumProcessors, l.MaxNumProcessors = int64(s.MinProcs), int64(s.MaxProcs)
	if job != nil {
		l.SubmitTime = job.SubmitTime
		l.JobFile = jobFile(job.SubmitTime, m.JobID)
	}
	if s.JobName != "" {
		l.JobName = m.JobName
		if l.JobName == "" {
			l.JobName = s.JobName
		}
		if job != nil && job.ArraySpec != "" {
			name := m.JobName
			if name == "" {
				name = job.Name
			}
			l.JobName = jobNameOf(s, name, job.ArraySpec, job.ArrayLimit)
		}
	}
	if s.InSpool {
		l.InFileSpool = s.InFile
	}
	if s.CmdSpoolName != "" {
		l.CommandSpool = s.CmdSpoolName
	}
	if m.Spec == nil && m.SetArrayLimit {
		// Only the array's name with its new limit changed.
		l.Options, l.Options2 = l.Options&SubJobName, 0
	}
	return l
}

// ExtActiveIndices is the JOB_NEW extension key that, in the records
// re-logged at a log switch, lists the elements of an array still in the
// system (an index list such as "1-3,7").
const ExtActiveIndices = "activeIdx"

// relogAll renders the records that describe the jobs still in the system
// at a log switch. LSF re-logs unfinished jobs at the top of a new
// lsb.events, before the history seek position, so that the current file
// alone describes every live job. Per job (in job ID order): its JOB_NEW at
// submission (once for an array, with the live elements in
// ExtActiveIndices), then per element its JOB_START and JOB_EXECUTE once
// dispatched, and its current status when that is not the state those
// imply.
func relogAll(jobs []*Job) []*Record {
	sorted := append([]*Job(nil), jobs...)
	slices.SortFunc(sorted, func(a, b *Job) int {
		if c := cmp.Compare(a.ID, b.ID); c != 0 {
			return c
		}
		return cmp.Compare(a.Index, b.Index)
	})
	var recs []*Record
	for i := 0; i < len(sorted); {
		j := sorted[i]
		n := i + 1
		for n < len(sorted) && sorted[n].ID == j.ID {
			n++
		}
		recs = append(recs, relogNew(j, sorted[i:n]))
		for _, e := range sorted[i:n] {
			recs = append(recs, relogRun(e)...)
		}
		i = n
	}
	return recs
}

func relogNew(j *Job, elems []*Job) *Record {
	s := j.Spec
	if s == nil {
		s = &emptySpec
	}
	recs, _ := Render(&api.Event{
		Time: j.SubmitTime * 1e9, User: j.User, UID: j.UID,
		JobNew: &api.EvJobNew{
			JobID: j.ID, Spec: s, Queue: j.Queue, JobName: j.Name, ArraySpec: j.ArraySpec,
			ArrayLimit: j.ArrayLimit, Project: j.Project, NumProcs: j.NumProcs,
			MaxProcs: j.MaxProcs, UserPriority: s.UserPriority, Hold: s.Hold,
		},
	}, j)
	if j.ArraySpec != "" || j.Index != 0 {
		idx := make([]int32, len(elems))
		for k, e := range elems {
			idx[k] = e.Index
		}
		nw := recs[0].Log.(*JobNew)
		nw.Ext = append(nw.Ext, KV{ExtActiveIndices, FormatIndexList(idx)})
	}
	return recs[0]
}

func relogRun(j *Job) []*Record {
	var recs []*Record
	started := j.StartTime > 0 && j.State != api.StatePend && j.State != api.StatePSusp
	if started {
		sr, _ := Render(&api.Event{Time: j.StartTime * 1e9, JobStart: &api.EvJobStart{
			JobID: j.ID, Index: j.Index, ExecHosts: j.ExecHosts, RunCount: j.RunCount,
			EffectiveResReq: j.EffectiveResReq,
		}}, j)
		recs = append(recs, sr...)
		if j.PID != 0 {
			xr, _ := Render(&api.Event{Time: j.StartTime * 1e9, JobExecute: &api.EvJobExecute{
				JobID: j.ID, Index: j.Index, PID: j.PID, PGID: j.PGID, ExecCwd: j.ExecCwd,
				ExecHome: j.ExecHome, ExecUser: j.ExecUser,
			}}, j)
			recs = append(recs, xr...)
		}
	}
	implied := api.StatePend
	if started {
		implied = api.StateRun
	}
	if j.State != implied && j.State != api.StateNone {
		t := j.EndTime
		if t == 0 {
			t = max(j.StartTime, j.SubmitTime)
		}
		st := jobStatus(&api.EvJobStatus{
			JobID: j.ID, Index: j.Index, State: j.State, PendReason: j.PendReason,
			SuspReasons: j.SuspReasons, SuspSubreason: j.SuspSubreason,
			ExitStatus: j.ExitStatus, TermReason: j.TermReason, Usage: j.Usage,
		}, t)
		recs = append(recs, &Record{Type: TypeJobStatus, Version: Version, Time: t, Log: st})
	}
	return recs
}

// FormatIndexList writes array indices as an LSF index list: ascending
// ranges, "1-3,7,9-10".
func FormatIndexList(idx []int32) string {
	s := append([]int32(nil), idx...)
	slices.Sort(s)
	s = slices.Compact(s)
	var b []byte
	for i := 0; i < len(s); {
		j := i
		for j+1 < len(s) && s[j+1] == s[j]+1 {
			j++
		}
		if len(b) > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(s[i]), 10)
		if j > i {
			b = append(b, '-')
			b = strconv.AppendInt(b, int64(s[j]), 10)
		}
		i = j + 1
	}
	return string(b)
}
