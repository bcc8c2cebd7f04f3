package eventlog

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/job"
)

// maxArrayExpand bounds the elements created from one JOB_NEW's index
// list; larger arrays get element histories only from their own records.
var maxArrayExpand = 1 << 16

// indexListSize sums the sizes of the ranges of an index list ("1-10:2,15")
// without expanding it, saturating above limit; ok is false when the list
// does not read as ranges (job.ParseName then reports it).
func indexListSize(spec string, limit int64) (n int64, ok bool) {
	for item := range strings.SplitSeq(spec, ",") {
		rng, stepStr, hasStep := strings.Cut(item, ":")
		lo, hi, isRange := strings.Cut(rng, "-")
		a, err1 := strconv.ParseInt(strings.TrimSpace(lo), 10, 64)
		b := a
		var err2 error
		if isRange {
			b, err2 = strconv.ParseInt(strings.TrimSpace(hi), 10, 64)
		}
		step := int64(1)
		var err3 error
		if hasStep {
			step, err3 = strconv.ParseInt(strings.TrimSpace(stepStr), 10, 64)
		}
		if err1 != nil || err2 != nil || err3 != nil || step <= 0 || b < a {
			return 0, false
		}
		n += (b-a)/step + 1
		if n > limit || n < 0 {
			return limit + 1, true
		}
	}
	return n, true
}

// HistoryQuery is what ReadHistory reads and keeps (bhist).
type HistoryQuery struct {
	Filter
	// Dir is the log directory holding lsb.events and its archives.
	Dir string
	// NumLogFiles is bhist -n: how many event files to read, from the
	// current lsb.events back through lsb.events.1, .2...; 0 reads all of
	// them (LSF's -n 0). bhist without -n reads 1.
	NumLogFiles int
	// Files, when set, are read instead, in order, oldest first (bhist -f).
	Files []string
}

// HistoryResult is ReadHistory's answer.
type HistoryResult struct {
	// Jobs in job ID and array index order. Each Job summarizes the job as
	// its records leave it; Events are its records, oldest first. Event
	// times are Unix seconds; an event's State is set only where the record
	// changes the job's state.
	Jobs []*api.JobHistory
	// Warnings are records that could not be read (*ParseError), skipped.
	Warnings []error
}

// EventFiles lists the event files of dir that bhist -n n reads, oldest
// first: lsb.events.k ... lsb.events.1, lsb.events; n 0 means all.
func EventFiles(dir string, n int) ([]string, error) {
	archives, err := countArchives(dir)
	if err != nil {
		return nil, err
	}
	k := archives
	if n > 0 && n-1 < k {
		k = n - 1
	}
	var files []string
	for i := int64(k); i >= 1; i-- {
		files = append(files, filepath.Join(dir, archiveName(i)))
	}
	return append(files, filepath.Join(dir, EventsFile)), nil
}

// ReadHistory reads job histories from event files.
func ReadHistory(ctx context.Context, q *HistoryQuery) (*HistoryResult, error) {
	files := q.Files
	if len(files) == 0 {
		var err error
		if files, err = EventFiles(q.Dir, q.NumLogFiles); err != nil {
			return nil, fmt.Errorf("listing event files: %w", err)
		}
	}
	h := NewHistory(q.Filter)
	res := &HistoryResult{}
	for _, name := range files {
		if err := readEventFile(ctx, name, h, res); err != nil {
			return nil, err
		}
	}
	res.Jobs = h.Result()
	return res, nil
}

func readEventFile(ctx context.Context, name string, h *History, res *HistoryResult) error {
	f, err := os.Open(name)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) && filepath.Base(name) == EventsFile {
			return nil // no event yet
		}
		return fmt.Errorf("reading event file: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("reading event file: %w", err)
	}
	r := NewReader(f, name)
	if len(h.f.Jobs) > 0 {
		r.SkipJobs(h.f.wantJobID)
	}
	for n := 0; ; n++ {
		if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		rec, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			var pe *ParseError
			if errors.As(err, &pe) {
				res.Warnings = append(res.Warnings, err)
				continue
			}
			return err
		}
		seek, ok := r.Header()
		// The first line of lsb.events is the history seek position; of an
		// archive, a time. A -f file of another name is judged by its value.
		isSeek := ok && (filepath.Base(name) == EventsFile || seek < 1e9 && seek <= st.Size())
		h.Add(rec, isSeek && r.Offset() < seek)
	}
}

// History folds event records into job histories. Records are added oldest
// first; a job's history starts with its JOB_NEW (records of jobs whose
// JOB_NEW was not read are dropped, as bhist does).
type History struct {
	f      Filter
	jobs   map[jobKey]*hist
	arrays map[int64]*array
	// fromBlock are the jobs introduced by re-logged records.
	fromBlock map[int64]bool
}

type jobKey struct {
	id  int64
	idx int32
}

type array struct {
	newEv *api.HistoryEvent
	base  *api.JobRecord // the array's JOB_NEW as a job record
	name  string         // without the index list
	elems []*hist        // the elements created so far
}

type hist struct {
	h      api.JobHistory
	queues []string
	hosts  []*api.ExecHost // every execution host of every run
	starts []int64         // dispatch times
	// sigUser is who sent the last signal: a status record (which names
	// no one) that suspends or resumes the job is that user's doing.
	sigUser string
}

// NewHistory starts an empty fold; f's explicit jobs, if any, limit what is
// kept (the other filters apply in Result).
func NewHistory(f Filter) *History {
	return &History{f: f, jobs: map[jobKey]*hist{}, arrays: map[int64]*array{}, fromBlock: map[int64]bool{}}
}

// Add folds one record in. relogged marks the records above lsb.events'
// history seek position (the live jobs re-logged at a log switch): they
// only introduce jobs not met in an earlier file.
func (h *History) Add(r *Record, relogged bool) {
	id, idx, ok := r.JobID()
	if !ok || !h.f.wantJobID(id) {
		return
	}
	if relogged && !h.fromBlock[id] {
		_, isArray := h.arrays[id]
		_, isJob := h.jobs[jobKey{id, 0}]
		if _, isNew := r.Log.(*JobNew); !isNew || isArray || isJob {
			return
		}
		h.fromBlock[id] = true
	}
	if n, isNew := r.Log.(*JobNew); isNew {
		h.jobNew(r, n)
		return
	}
	if a := h.arrays[id]; a != nil && idx == 0 {
		// A record about a whole array (bkill, bmod, bswitch of the job):
		// every element gets it.
		for _, j := range a.elems {
			h.apply(j, r)
		}
		return
	}
	j := h.job(id, idx)
	if j == nil {
		return
	}
	h.apply(j, r)
}

// job returns a job's history, creating an array element from its
// array's JOB_NEW.
func (h *History) job(id int64, idx int32) *hist {
	k := jobKey{id, idx}
	if j := h.jobs[k]; j != nil {
		return j
	}
	a := h.arrays[id]
	if a == nil || idx == 0 || !h.f.wantJob(id, idx) {
		return nil
	}
	return h.element(a, id, idx)
}

// element creates the history of an array element from the array's
// JOB_NEW.
func (h *History) element(a *array, id int64, idx int32) *hist {
	rec := *a.base
	spec := *a.base.Spec
	rec.Spec = &spec
	rec.Index = idx
	rec.JobName = a.name + "[" + strconv.Itoa(int(idx)) + "]"
	ev := *a.newEv
	j := &hist{h: api.JobHistory{Job: &rec, Events: []*api.HistoryEvent{&ev}}, queues: []string{rec.Queue}}
	h.jobs[jobKey{id, idx}] = j
	a.elems = append(a.elems, j)
	return j
}

func (h *History) jobNew(r *Record, n *JobNew) {
	id := n.JobID
	if _, dup := h.arrays[id]; dup {
		return
	}
	if _, dup := h.jobs[jobKey{id, 0}]; dup {
		return
	}
	spec := specFromNew(n)
	st := api.StatePend
	if n.Options2&Sub2Hold != 0 {
		st = api.StatePSusp
	}
	name := n.JobName
	if name == "" {
		name = n.Command // LSF shows the command as the name of a job without -J
	}
	rec := &api.JobRecord{
		JobID: id, User: n.UserName, State: st, Queue: n.Queue, FromHost: n.FromHost,
		JobName: name, SubmitTime: r.Time, Spec: spec, UserGroup: n.UserGroup,
		Priority: max(n.UserPriority, 0),
	}
	ev := &api.HistoryEvent{Time: r.Time, Kind: TypeJobNew, State: st, User: n.UserName, Queue: n.Queue}
	var ns *job.NameSpec
	err := errTooLarge
	if !isArrayName(n.JobName) || listFits(n.JobName) {
		ns, err = job.ParseName(n.JobName, maxArrayExpand)
	}
	if err != nil || !ns.Array {
		if isArrayName(n.JobName) {
			// An array too large to expand: elements come from their records.
			name, _, _ := strings.Cut(n.JobName, "[")
			h.arrays[id] = &array{newEv: ev, base: rec, name: name}
			return
		}
		if !h.f.wantJob(id, 0) {
			return
		}
		h.jobs[jobKey{id, 0}] = &hist{h: api.JobHistory{Job: rec, Events: []*api.HistoryEvent{ev}}, queues: []string{n.Queue}}
		return
	}
	rec.ArraySpec = "[" + ns.Spec + "]"
	rec.ArrayLimit = ns.Limit
	a := &array{newEv: ev, base: rec, name: ns.Name}
	h.arrays[id] = a
	indices := ns.Indices
	if v, ok := Lookup(n.Ext, ExtActiveIndices); ok {
		if live, err := job.ParseName("x["+v+"]", maxArrayExpand); err == nil && listFits("x["+v+"]") {
			indices = live.Indices
		}
	}
	for _, i := range indices {
		if h.f.wantJob(id, i) {
			h.element(a, id, i)
		}
	}
}

var errTooLarge = errors.New("index list too large to expand")

func isArrayName(name string) bool {
	return strings.HasSuffix(name, "]") && strings.Contains(name, "[") ||
		strings.Contains(name, "]%")
}

// listFits reports whether a job name's index list expands to at most
// maxArrayExpand indices (counting repeats, which job.ParseName iterates).
func listFits(name string) bool {
	open := strings.IndexByte(name, '[')
	end := strings.LastIndexByte(name, ']')
	if open < 0 || end < open {
		return true
	}
	n, ok := indexListSize(name[open+1:end], int64(maxArrayExpand))
	return !ok || n <= int64(maxArrayExpand)
}

// apply folds a record other than JOB_NEW into a job.
func (h *History) apply(j *hist, r *Record) {
	rec := j.h.Job
	ev := &api.HistoryEvent{Time: r.Time, Kind: r.Type}
	switch l := r.Log.(type) {
	case *JobStart:
		hosts := groupHosts(l.ExecHosts)
		rec.State, rec.ExecHosts = api.StateRun, hosts
		rec.StartTime, rec.DispatchTime, rec.EndTime = r.Time, r.Time, 0
		rec.RunCount++
		rec.NumSlots = int32(len(l.ExecHosts))
		rec.ExitStatus, rec.TermReason, rec.Usage = 0, "", nil
		if v, ok := Lookup(l.Ext, ExtForced); ok && v == yes {
			rec.Forced = true
		}
		rec.EffectiveResReq = l.EffectiveResReq // volclava's field
		if v, ok := Lookup(l.Ext, ExtEffResReq); ok {
			rec.EffectiveResReq = v
		}
		j.hosts = append(j.hosts, hosts...)
		j.starts = append(j.starts, r.Time)
		ev.State, ev.Hosts = api.StateRun, hosts
	case *JobStartAccept:
		rec.JobPID = int32(l.JobPID)
		ev.PID = int32(l.JobPID)
	case *JobExecute:
		rec.JobPID = int32(l.JobPID)
		rec.ExecCwd, rec.ExecHome, rec.ExecUser = l.ExecCwd, l.ExecHome, l.ExecUsername
		ev.PID, ev.User = int32(l.JobPID), l.ExecUsername
		ev.Text = l.ExecCwd
	case *JobStatus:
		main := api.JobState(l.JStatus) &^ (api.StatePDone | api.StatePErr)
		post := api.JobState(l.JStatus)&(api.StatePDone|api.StatePErr) != 0
		if post && (main == api.StateDone || main == api.StateExit) && rec.EndTime != 0 {
			// The post-execution result of the run already seen: no state
			// change ("Post job process done successfully").
			ev.Kind = KindPostDone
			if api.JobState(l.JStatus)&api.StatePErr != 0 {
				ev.Kind = KindPostErr
			}
			break
		}
		prev := rec.State
		rec.State = main
		ev.State, ev.Reason, ev.ExitStatus = main, int32(l.Reason), int32(l.ExitStatus)
		if main == api.StatePSusp || main == api.StateUSusp || main == api.StatePend && prev == api.StatePSusp ||
			main == api.StateRun && prev == api.StateUSusp {
			ev.User = j.sigUser
		}
		j.sigUser = ""
		switch main {
		case api.StatePend:
			if prev != api.StatePend && prev != api.StatePSusp {
				// A run (or a finished job) back to PEND: brequeue,
				// REQUEUE_EXIT_VALUES, a rerun. bhist says requeued,
				// as for JOB_REQUEUE; from PSUSP it is a resumption.
				ev.Kind = TypeJobRequeue
			}
			rec.PendReasons = nil
			if l.Reason != 0 {
				rec.PendReasons = []*api.PendReason{{Code: int32(l.Reason)}}
			}
		case api.StatePSusp, api.StateSSusp, api.StateUSusp:
			rec.SuspReasons, rec.SuspSubreason = int32(l.Reason), int32(l.Subreasons)
			rec.SuspendTime = r.Time
		case api.StateDone, api.StateExit:
			rec.ExitStatus, rec.TermReason = int32(l.ExitStatus), TermName(l.ExitInfo)
			if l.EndTime > 0 {
				rec.EndTime = l.EndTime
			} else {
				rec.EndTime = r.Time
			}
		}
		if l.Rusage != nil {
			u := usageOf(l.Rusage)
			if l.CPUTime > 0 {
				u.CPUTime = l.CPUTime
			}
			u.MaxMem, u.AvgMem = max(u.MaxMem, l.MaxMem), l.AvgMem
			rec.Usage, ev.Usage = u, u
		}
	case *JobSignal:
		ev.Signal, ev.User = l.SignalSymbol, l.UserName
		j.sigUser = l.UserName
	case *JobSwitch:
		rec.Queue = l.Queue
		j.queues = append(j.queues, l.Queue)
		ev.Queue, ev.User = l.Queue, l.UserName
	case *JobMove:
		// OpenLava bhist's wording (cmd.hist.c, catgets 3427).
		base := "top"
		if l.Base == ToBottom {
			base = "bottom"
		}
		ev.User, ev.Reason = l.UserName, int32(l.Position)
		ev.Text = fmt.Sprintf("Job moved to position %d relative to <%s> by user or administrator <%s>;", l.Position, base, l.UserName)
	case *JobModify2:
		ev.User = l.UserName
		ev.Text = modifyText(l)
		modify(rec, l)
		if l.Options&SubQueue != 0 && l.Queue != "" {
			j.queues = append(j.queues, l.Queue)
		}
	case *JobRequeue:
		rec.State = api.StatePend
		rec.PendReasons = []*api.PendReason{{Code: pendJobRequeued}}
		ev.State, ev.Reason = api.StatePend, pendJobRequeued
	case *JobForward:
		// IBM 10.1's wording (bjobs -l, bhist -l of a forwarded job).
		ref := strconv.FormatInt(l.JobID, 10)
		if l.Idx > 0 {
			ref += "[" + strconv.FormatInt(l.Idx, 10) + "]"
		}
		ev.Text = fmt.Sprintf("Job <%s> forwarded to cluster <%s>;", ref, l.Cluster)
	case *JobSigAct:
		if l.SignalSymbol != "CHKPNT" {
			return
		}
		ev.PID, ev.Text = int32(l.PID), sigActText(l)
	case *Mig:
		ev.User, ev.Text = l.UserName, migText(l)
	case *JobResizeNotifyStart, *JobResizeRelease, *JobResizeCancel:
		ev.Text, rec.ExecHosts = resizeText(l, rec.ExecHosts)
		if r, ok := l.(*JobResizeRelease); ok {
			ev.User = r.UserName
		} else if c, ok := l.(*JobResizeCancel); ok {
			ev.User = c.UserName
		}
	case *JobForce:
		rec.Forced = true
		ev.User = l.UserName
		for _, host := range l.ExecHosts {
			ev.Hosts = append(ev.Hosts, &api.ExecHost{Host: host, Slots: 1})
		}
	default:
		// JOB_CLEAN and others: not part of what bhist shows.
		return
	}
	j.h.Events = append(j.h.Events, ev)
}

// Kinds of history events that are not record types: the post-execution
// result of a finished run (a JOB_STATUS with PDONE or PERR).
const (
	KindPostDone = "POST_DONE"
	KindPostErr  = "POST_ERR"
)

// modifyText describes a bmod the way OpenLava's bhist starts it
// ("Parameters of Job are changed:"), with the main changes.
func modifyText(l *JobModify2) string {
	var b strings.Builder
	b.WriteString("Parameters of Job are changed:")
	item := func(cond bool, what, v string) {
		if cond {
			fmt.Fprintf(&b, " %s changes to : %s;", what, v)
		}
	}
	item(l.Options&SubQueue != 0 && l.Queue != "", "Job queue", l.Queue)
	item(l.Options&SubJobName != 0, "Job name", l.JobName)
	item(l.Options&SubResReq != 0, "Resource requirements", l.ResReq)
	item(l.Options&SubOutFile != 0, "Output file", l.OutFile)
	item(l.Options&SubErrFile != 0, "Error file", l.ErrFile)
	item(l.Options&SubProjectName != 0, "Project", l.ProjectName)
	item(l.Options2&Sub2ModifyCmd != 0, "Command", l.Command)
	return strings.TrimSuffix(b.String(), ";") + ";"
}

// modify applies a JOB_MODIFY2 to a job: the fields its option bits name.
func modify(rec *api.JobRecord, l *JobModify2) {
	s := rec.Spec
	if s == nil {
		s = &api.JobSpec{}
		rec.Spec = s
	}
	if l.Options&SubJobName != 0 {
		s.JobName = l.JobName
		if rec.ArraySpec == "" {
			rec.JobName = l.JobName
		}
	}
	if l.Options&SubQueue != 0 && l.Queue != "" {
		rec.Queue = l.Queue
	}
	if l.Options&SubHost != 0 {
		s.AskedHosts = l.AskedHosts
	}
	if l.Options&SubResReq != 0 {
		s.ResReq = []string{l.ResReq}
	}
	if l.Options&SubOutFile != 0 {
		s.OutFile = l.OutFile
	}
	if l.Options&SubErrFile != 0 {
		s.ErrFile = l.ErrFile
	}
	if l.Options&SubInFile != 0 {
		s.InFile = l.InFile
	}
	if l.Options2&Sub2ModifyCmd != 0 {
		s.Command = l.Command
	}
	if l.Options&SubProjectName != 0 {
		s.Project = l.ProjectName
	}
	if l.Options&SubDependCond != 0 {
		s.Dependency = l.DependCond
	}
	if l.Options&SubPreExec != 0 {
		s.PreExec = l.PreExecCmd
	}
	if l.Options&SubPostExec != 0 {
		s.PostExec = l.PostExecCmd
	}
	if l.Options&SubMailUser != 0 {
		s.MailUser = l.MailUser
	}
	if l.Options&SubLoginShell != 0 {
		s.LoginShell = l.LoginShell
	}
	if l.Options2&Sub2JobPriority != 0 {
		s.UserPriority = int32(l.UserPriority)
	}
	if l.NumProcessors > 0 {
		s.MinProcs, s.MaxProcs = int32(l.NumProcessors), int32(l.MaxNumProcessors)
	}
	s.Limits = limitsOf(l.RLimits, l.Options, l.Ext)
	if len(l.Ext) > 0 {
		applyExt(s, l.Cwd, l.Ext)
	}
}

// Result returns the histories the filter keeps, in job ID and index
// order.
func (h *History) Result() []*api.JobHistory {
	f := &h.f
	explicit := len(f.Jobs) > 0
	var out []*api.JobHistory
	for k, j := range h.jobs {
		rec := j.h.Job
		if !f.wantJob(k.id, k.idx) || !f.wantUser(rec.User) || !f.wantName(matchName(rec.Spec.JobName, rec.Spec.Command)) {
			continue
		}
		def := uint32(api.StatePend | api.StatePSusp | api.StateRun | api.StateSSusp | api.StateUSusp | api.StateUnkwn | api.StateWait)
		if explicit {
			def = AllStates
		}
		if !f.wantState(rec.State, def) {
			continue
		}
		if len(f.Queues) > 0 && !slices.ContainsFunc(j.queues, func(q string) bool { return slices.Contains(f.Queues, q) }) {
			continue
		}
		if !anyIn(f.Hosts, j.hosts) {
			continue
		}
		if rec.Spec != nil && !inList(f.Projects, rec.Spec.Project) {
			continue
		}
		if !f.Submitted.IsZero() && !f.Submitted.Contains(rec.SubmitTime) {
			continue
		}
		if !f.Dispatched.IsZero() && !slices.ContainsFunc(j.starts, f.Dispatched.Contains) {
			continue
		}
		if !f.Completed.IsZero() && (rec.EndTime == 0 || !f.Completed.Contains(rec.EndTime)) {
			continue
		}
		out = append(out, &j.h)
	}
	slices.SortFunc(out, func(a, b *api.JobHistory) int {
		if c := cmp.Compare(a.Job.JobID, b.Job.JobID); c != 0 {
			return c
		}
		return cmp.Compare(a.Job.Index, b.Job.Index)
	})
	return out
}

// StateTimes is how long a job spent in each state (bhist's summary
// columns), in seconds.
type StateTimes struct {
	Pend, PSusp, Run, USusp, SSusp, Unkwn, Total int64
}

// TimeInStates sums a history's time per state, up to the job's end or, for
// an unfinished job, now (Unix seconds).
func TimeInStates(h *api.JobHistory, now int64) StateTimes {
	var t StateTimes
	var cur api.JobState
	var since int64
	add := func(st api.JobState, d int64) {
		if d <= 0 {
			return
		}
		switch st {
		case api.StatePend:
			t.Pend += d
		case api.StatePSusp:
			t.PSusp += d
		case api.StateRun:
			t.Run += d
		case api.StateUSusp:
			t.USusp += d
		case api.StateSSusp:
			t.SSusp += d
		case api.StateUnkwn:
			t.Unkwn += d
		default:
			return
		}
		t.Total += d
	}
	for _, ev := range h.Events {
		st := ev.State &^ (api.StatePDone | api.StatePErr)
		if st == api.StateNone {
			continue
		}
		if cur != api.StateNone {
			add(cur, ev.Time-since)
		}
		if st == api.StateDone || st == api.StateExit {
			return t
		}
		cur, since = st, ev.Time
	}
	if cur != api.StateNone {
		add(cur, now-since)
	}
	return t
}
