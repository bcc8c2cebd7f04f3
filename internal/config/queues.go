package config

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/basalt-lsf/basalt/internal/config/lex"
	"github.com/basalt-lsf/basalt/internal/config/timewin"
	"github.com/basalt-lsf/basalt/internal/resreq"
)

// Queue is one Queue section of lsb.queues, with LSF's defaults for what the
// section leaves out. Fields that refer to other queues, hosts or groups are
// resolved by the loader (Hosts, Preempts, Pool).
type Queue struct {
	Name        string
	Pos         Pos
	Priority    int // 1
	Nice        int
	Description string
	Admins      []string
	// Users may submit to the queue (cluster administrators always may).
	Users UserSpec
	// HostSpec is HOSTS as written; Hosts is its resolution against the
	// cluster (nil: every batch host).
	HostSpec []HostSpecItem
	Hosts    []HostPref
	// Job slot limits; 0 is unlimited.
	QJobLimit int     // QJOB_LIMIT: slots of the queue
	UJobLimit int     // UJOB_LIMIT: slots per user
	PJobLimit float64 // PJOB_LIMIT: slots per processor
	HJobLimit int     // HJOB_LIMIT: slots per host

	RunWindow      timewin.Window
	DispatchWindow timewin.Window
	// Thresholds are the load_index = loadSched/loadStop lines, sorted by
	// index name.
	Thresholds []LoadThreshold
	ResReq     ResReqText
	// GPUReq is GPU_REQ (LSF 10.1): the queue's GPU requirement, merged
	// option by option under the job's -gpu and its application
	// profile's; "" when unset or invalid (warned and ignored).
	GPUReq     string
	StopCond   ResReqText
	ResumeCond ResReqText

	Exclusive   bool
	Interactive Interactive
	// Fairshare is the queue's USER_SHARES (nil: first come, first served).
	Fairshare       []ShareAssignment
	FairshareQueues []string
	DispatchOrder   string // "QUEUE" or ""
	// Fairshare factors overriding lsb.params (nil: lsb.params' value).
	CPUTimeFactor *float64
	RunTimeFactor *float64
	RunJobFactor  *float64
	HistHours     *float64

	// Queue-based fairshare (slot pools).
	SlotPool          string
	SlotShare         int // percent; 0 = not in a pool
	MaxSlotsInPool    int
	UsePriorityInPool bool

	Preemption Preemption
	// Preempts is the resolved list of queues this queue can preempt, in
	// the order LSF prefers them.
	Preempts      []QueuePref
	MaxJobPreempt int // 0: lsb.params' value

	SlotReserve     int // MAX_RESERVE_TIME of SLOT_RESERVE, 0 = none
	ResourceReserve int // MAX_RESERVE_TIME of RESOURCE_RESERVE, 0 = none
	Backfill        bool
	// InterruptibleBackfill is INTERRUPTIBLE_BACKFILL: the minimal time
	// slice (seconds) a reserved-slot gap must offer for the queue's jobs
	// to backfill it, killed at the reservation's predicted start; 0 =
	// none. Disabled (with a warning) unless BACKFILL and RUNLIMIT are set.
	InterruptibleBackfill time.Duration

	PreExec           string
	PostExec          string
	PrePostExecUser   string
	RequeueExitValues RequeueExitValues
	JobStarter        string
	JobControls       JobControls
	TerminateWhen     []string // WINDOW, LOAD, PREEMPT
	Rerunnable        bool
	Chkpnt            *Chkpnt
	Mig               int           // minutes; -1 = no migration
	NewJobSchedDelay  time.Duration // 10s
	JobAcceptInterval *int          // nil: lsb.params' value
	IgnoreDeadline    bool
	DefaultHostSpec   string

	Limits ResourceLimits

	// MC is the queue's MultiCluster job forwarding (mc.go).
	MC MCQueue

	// Raw holds the section's lines as written.
	Raw []KV
}

// ResReqText is a resource requirement string with its position. Parsed is
// set when the string was validated with the cluster's resource table.
type ResReqText struct {
	Text   string
	Pos    Pos
	Parsed *resreq.ResReq
}

// Interactive is INTERACTIVE.
type Interactive int

const (
	// InteractiveBoth accepts batch and interactive jobs (the default).
	InteractiveBoth Interactive = iota
	// InteractiveNo accepts batch jobs only (INTERACTIVE = NO).
	InteractiveNo
	// InteractiveOnly accepts interactive jobs only (INTERACTIVE = ONLY).
	InteractiveOnly
)

func (i Interactive) String() string { return [...]string{"YES", "NO", "ONLY"}[i] }

// UserSpec is a USERS list.
type UserSpec struct {
	All    bool
	Names  []string // users and user groups
	Except []string // ~name
}

// HostSpecItem is one entry of HOSTS: [~]name[+pref], all, others[+pref]
// or none.
type HostSpecItem struct {
	Name    string
	Exclude bool
	Pref    int
}

// HostPref is a host a queue may use and its preference (higher first).
type HostPref struct {
	Host string
	Pref int
}

// QueuePref is a queue and a preference level.
type QueuePref struct {
	Queue string
	Pref  int
}

// Preemption is PREEMPTION as written.
type Preemption struct {
	Preemptive bool
	// PreemptiveQueues lists the lower-priority queues this one may
	// preempt (empty: all of them).
	PreemptiveQueues []QueuePref
	Preemptable      bool
	// PreemptableBy lists the higher-priority queues that may preempt this
	// one (empty: all of them).
	PreemptableBy []string
}

// RequeueExitValues is REQUEUE_EXIT_VALUES: exit codes that requeue the job;
// Exclude codes also keep it off the host it exited on.
type RequeueExitValues struct {
	Codes   []int
	Exclude []int
}

// Requeue reports whether exit code c requeues the job, and whether the
// host is to be excluded.
func (r RequeueExitValues) Requeue(c int) (requeue, exclude bool) {
	for _, x := range r.Exclude {
		if x == c {
			return true, true
		}
	}
	for _, x := range r.Codes {
		if x == c {
			return true, false
		}
	}
	return false, false
}

// ActionKind is how a job control action is carried out.
type ActionKind int

const (
	// ActionDefault is LSF's default action.
	ActionDefault ActionKind = iota
	// ActionSignal sends Signal.
	ActionSignal
	// ActionCommand runs Command with /bin/sh -c.
	ActionCommand
	// ActionChkpnt checkpoints the job (then stops or kills it).
	ActionChkpnt
)

// JobAction is one JOB_CONTROLS action.
type JobAction struct {
	Kind    ActionKind
	Signal  string // e.g. SIGTSTP
	Command string
}

func (a JobAction) String() string {
	switch a.Kind {
	case ActionSignal:
		return a.Signal
	case ActionCommand:
		return a.Command
	case ActionChkpnt:
		return "CHKPNT"
	}
	return "default"
}

// JobControls is JOB_CONTROLS.
type JobControls struct {
	Suspend, Resume, Terminate JobAction
}

// Chkpnt is CHKPNT = dir [period].
type Chkpnt struct {
	Dir    string
	Period time.Duration // 0: no periodic checkpoint
}

// ResourceLimits are a queue's per-job limits.
type ResourceLimits struct {
	CPU     TimeLimit // CPULIMIT (normalised CPU time)
	Run     TimeLimit // RUNLIMIT
	Mem     SizeLimit // MEMLIMIT, KB
	Data    SizeLimit // DATALIMIT, KB
	Process SizeLimit // PROCESSLIMIT, processes
	Thread  SizeLimit // THREADLIMIT, threads
	File    SizeLimit // FILELIMIT, KB
	Stack   SizeLimit // STACKLIMIT, KB
	Core    SizeLimit // CORELIMIT, KB
	Swap    SizeLimit // SWAPLIMIT, KB
	// Proc is PROCLIMIT (TASKLIMIT in LSF 10): the job's slot range.
	Proc ProcLimit
}

// TimeLimit is [default] maximum, each [hours:]minutes[/host_spec]. A zero
// Max is unlimited; a zero Default is "no default" (the maximum applies).
type TimeLimit struct {
	Default     time.Duration
	DefaultSpec string
	Max         time.Duration
	MaxSpec     string
}

// SizeLimit is [default] maximum in KB (or a count). Without Set the
// resource is unlimited; a zero Default means no default (the maximum
// applies).
type SizeLimit struct {
	Set     bool
	Default int64
	Max     int64
}

// Zero tells whether the limit is set to 0 (CORELIMIT = 0: no core files),
// which is a limit, not the absence of one.
func (l SizeLimit) Zero() bool { return l.Set && l.Default <= 0 && l.Max <= 0 }

// ProcLimit is [minimum [default]] maximum; zero Max is unlimited.
type ProcLimit struct {
	Min, Default, Max int
}

// queueNameOK: letters, digits, '_', '-' and '.', at most 59 characters.
func queueNameOK(s string) bool {
	if s == "" || len(s) > 59 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

func newQueue(pos Pos) *Queue {
	return &Queue{Pos: pos, Priority: 1, Users: UserSpec{All: true}, Mig: -1, NewJobSchedDelay: 10 * time.Second,
		MC: MCQueue{MaxRschedTime: DefaultMaxRschedTime, ImptJobBklg: DefaultImptJobBklg}}
}

// DefaultQueue is the queue LSF creates when lsb.queues defines none.
func DefaultQueue() *Queue {
	q := newQueue(Pos{})
	q.Name = "default"
	q.Description = "The default queue, created because lsb.queues defines no queue."
	return q
}

// parseQueues reads lsb.queues. Unit is LSF_UNIT_FOR_LIMITS (for MEMLIMIT,
// STACKLIMIT, CORELIMIT and SWAPLIMIT). Cross references are resolved later.
func parseQueues(f *lex.File, unit string, d *Diagnostics) []*Queue {
	return parseNamed(f, "Queue", "lsb.queues", d, func(sec *lex.Section) *Queue { return parseQueue(sec, unit, d) },
		func(q *Queue) string { return q.Name })
}

func parseQueue(sec *lex.Section, unit string, d *Diagnostics) *Queue {
	kvs := sec.KeyValues(d)
	q := newQueue(sec.Pos)
	if q.Name = sectionName(sec, kvs, "Queue", "QUEUE_NAME", "queue", d); q.Name == "" {
		return nil
	}
	where := "Queue <" + q.Name + ">"
	q.Raw = setValues(kvs, where, d, func(v val) { q.set(v, unit) })
	sort.Slice(q.Thresholds, func(i, j int) bool { return q.Thresholds[i].Index < q.Thresholds[j].Index })
	q.checkInterruptible(where, d)
	return q
}

// checkInterruptible disables INTERRUPTIBLE_BACKFILL in a queue without
// BACKFILL = Y or without RUNLIMIT, as LSF does (the run limit is the
// slice's maximum for jobs started regularly).
func (q *Queue) checkInterruptible(where string, d *Diagnostics) {
	if q.InterruptibleBackfill <= 0 {
		return
	}
	var missing []string
	if !q.Backfill {
		missing = append(missing, "BACKFILL = Y")
	}
	if q.Limits.Run.Max <= 0 && q.Limits.Run.Default <= 0 {
		missing = append(missing, "RUNLIMIT")
	}
	if len(missing) > 0 {
		d.Warnf(q.KeyPos("INTERRUPTIBLE_BACKFILL"), "%s: INTERRUPTIBLE_BACKFILL requires %s; interruptible backfill disabled", where, strings.Join(missing, " and "))
		q.InterruptibleBackfill = 0
	}
}

func (q *Queue) set(v val, unit string) {
	setInt := func(dst *int, min, max int) {
		if n, ok := v.int(min, max); ok {
			*dst = n
		}
	}
	setBool := func(dst *bool) {
		if b, ok := v.yesNo(); ok {
			*dst = b
		}
	}
	setFloatPtr := func(dst **float64) {
		if f, ok := v.float(0, math.MaxFloat64); ok {
			*dst = &f
		}
	}
	switch v.key {
	case "QUEUE_NAME":
	case "PRIORITY":
		setInt(&q.Priority, 0, math.MaxInt32)
	case "NICE":
		setInt(&q.Nice, -20, 20)
	case "DESCRIPTION":
		q.Description = v.text
		if len(q.Description) > 512 {
			v.warnf("DESCRIPTION is longer than 512 characters; truncated")
			q.Description = q.Description[:512]
		}
	case "ADMINISTRATORS":
		q.Admins = v.names()
	case "USERS":
		q.Users = v.userSpec()
	case "HOSTS":
		q.HostSpec = v.hostSpec()
	case "QJOB_LIMIT":
		setInt(&q.QJobLimit, 1, math.MaxInt32)
	case "UJOB_LIMIT":
		setInt(&q.UJobLimit, 1, math.MaxInt32)
	case "HJOB_LIMIT":
		setInt(&q.HJobLimit, 1, math.MaxInt32)
	case "PJOB_LIMIT":
		if f, ok := v.float(0, math.MaxInt32); ok {
			if f <= 0 {
				v.bad("must be positive")
			} else {
				q.PJobLimit = f
			}
		}
	case "RUN_WINDOW":
		if w, ok := v.window(); ok {
			q.RunWindow = w
		}
	case "DISPATCH_WINDOW":
		if w, ok := v.window(); ok {
			q.DispatchWindow = w
		}
	case "RES_REQ":
		q.ResReq = ResReqText{Text: v.text, Pos: v.pos}
	case "GPU_REQ":
		q.GPUReq = v.gpuReq()
	case "STOP_COND":
		q.StopCond = ResReqText{Text: v.text, Pos: v.pos}
	case "RESUME_COND":
		q.ResumeCond = ResReqText{Text: v.text, Pos: v.pos}
	case "EXCLUSIVE":
		setBool(&q.Exclusive)
	case "INTERACTIVE":
		switch strings.ToUpper(strings.TrimSpace(v.text)) {
		case "NO", "N":
			q.Interactive = InteractiveNo
		case "ONLY":
			q.Interactive = InteractiveOnly
		case "YES", "Y":
			q.Interactive = InteractiveBoth
		default:
			v.bad("must be NO or ONLY")
		}
	case "FAIRSHARE":
		inner, ok := bracketArg(v.text, "USER_SHARES")
		if !ok {
			v.bad("is not USER_SHARES[[user, number_shares] ...]")
			return
		}
		off := strings.Index(v.text, "[") + 1
		sv := val{key: "FAIRSHARE", text: inner, pos: v.pos.Add(off), where: v.where, d: v.d}
		q.Fairshare, _ = sv.shares(nil)
		if len(q.Fairshare) == 0 {
			v.warnf("FAIRSHARE assigns no shares; fairshare is not enabled")
		}
	case "FAIRSHARE_QUEUES":
		q.FairshareQueues = v.names()
	case "DISPATCH_ORDER":
		if strings.EqualFold(strings.TrimSpace(v.text), "QUEUE") {
			q.DispatchOrder = "QUEUE"
		} else {
			v.bad("must be QUEUE")
		}
	case "CPU_TIME_FACTOR":
		setFloatPtr(&q.CPUTimeFactor)
	case "RUN_TIME_FACTOR":
		setFloatPtr(&q.RunTimeFactor)
	case "RUN_JOB_FACTOR":
		setFloatPtr(&q.RunJobFactor)
	case "HIST_HOURS":
		setFloatPtr(&q.HistHours)
	case "SLOT_POOL":
		name := strings.TrimSpace(v.text)
		if len(name) > 60 || !queueNameOK(strings.ReplaceAll(name, ".", "_")) || strings.Contains(name, ".") {
			v.bad("is not a pool name (letters, digits, '_', '-', at most 60 characters)")
			return
		}
		q.SlotPool = name
	case "SLOT_SHARE":
		setInt(&q.SlotShare, 1, 100)
	case "MAX_SLOTS_IN_POOL":
		setInt(&q.MaxSlotsInPool, 1, math.MaxInt32)
	case "USE_PRIORITY_IN_POOL":
		setBool(&q.UsePriorityInPool)
	case "PREEMPTION":
		q.Preemption = v.preemption()
	case "MAX_JOB_PREEMPT":
		setInt(&q.MaxJobPreempt, 1, math.MaxInt32-1)
	case "SLOT_RESERVE", "RESOURCE_RESERVE":
		arg, ok := bracketArg(v.text, "MAX_RESERVE_TIME")
		n, err := strconv.Atoi(strings.TrimSpace(arg))
		if !ok || err != nil || n <= 0 {
			v.bad("is not MAX_RESERVE_TIME[positive integer]")
			return
		}
		if v.key == "SLOT_RESERVE" {
			q.SlotReserve = n
		} else {
			q.ResourceReserve = n
		}
	case "BACKFILL":
		setBool(&q.Backfill)
	case "INTERRUPTIBLE_BACKFILL":
		if d, ok := v.seconds(1); ok {
			q.InterruptibleBackfill = d
		}
	case "PRE_EXEC":
		q.PreExec = v.text
	case "POST_EXEC":
		q.PostExec = v.text
	case "PRE_POST_EXEC_USER":
		q.PrePostExecUser = strings.TrimSpace(v.text)
	case "REQUEUE_EXIT_VALUES":
		q.RequeueExitValues = v.requeueExitValues()
	case "JOB_STARTER":
		q.JobStarter = v.text
	case "JOB_CONTROLS":
		q.JobControls = v.jobControls()
	case "TERMINATE_WHEN":
		q.TerminateWhen = v.keywordList([]string{"WINDOW", "LOAD", "PREEMPT"})
	case "RERUNNABLE":
		setBool(&q.Rerunnable)
	case "CHKPNT":
		w := v.names()
		if len(w) == 0 || len(w) > 2 {
			v.bad("is not chkpnt_dir [chkpnt_period]")
			return
		}
		c := &Chkpnt{Dir: w[0]}
		if len(w) == 2 {
			n, err := strconv.Atoi(w[1])
			if err != nil || n <= 0 {
				v.bad("has a bad checkpoint period (positive minutes)")
				return
			}
			c.Period = time.Duration(n) * time.Minute
		}
		q.Chkpnt = c
	case "MIG":
		setInt(&q.Mig, 0, math.MaxInt32)
	case "NEW_JOB_SCHED_DELAY":
		if s, ok := v.seconds(0); ok {
			q.NewJobSchedDelay = s
		}
	case "JOB_ACCEPT_INTERVAL":
		if n, ok := v.int(0, math.MaxInt32); ok {
			q.JobAcceptInterval = &n
		}
	case "IGNORE_DEADLINE":
		setBool(&q.IgnoreDeadline)
	case "DEFAULT_HOST_SPEC":
		q.DefaultHostSpec = strings.TrimSpace(v.text)
	default:
		if q.setMC(v) || q.Limits.set(v, unit) {
			return
		}
		if idx, ok := canonicalIndex(v.key); ok {
			q.addThreshold(v, idx)
			return
		}
		// Maybe an external load index: checked against lsf.shared later.
		if nameOK(v.orig) && strings.ToLower(v.orig) == v.orig {
			q.addThreshold(v, v.orig)
			return
		}
		v.d.Warnf(v.keyPos, "%s: parameter %s is not supported by Basalt; ignored", v.where, v.key)
	}
}

func (q *Queue) addThreshold(v val, index string) {
	v.key = v.orig
	t, ok := v.threshold(index)
	if !ok {
		return
	}
	for i := range q.Thresholds {
		if q.Thresholds[i].Index == index {
			q.Thresholds[i] = t
			return
		}
	}
	q.Thresholds = append(q.Thresholds, t)
}

// KeyPos returns where parameter key (upper case) is defined in the queue's
// section, or the section's position.
func (q *Queue) KeyPos(key string) Pos {
	for i := len(q.Raw) - 1; i >= 0; i-- {
		if q.Raw[i].Key == key {
			return q.Raw[i].Pos
		}
	}
	return q.Pos
}

// Threshold returns the queue's threshold for a load index.
func (q *Queue) Threshold(index string) (LoadThreshold, bool) {
	for _, t := range q.Thresholds {
		if t.Index == index {
			return t, true
		}
	}
	return LoadThreshold{}, false
}

func (v val) userSpec() UserSpec {
	var u UserSpec
	for _, w := range v.words() {
		switch {
		case w.Text == "all":
			u.All = true
		case strings.HasPrefix(w.Text, "~") && nameOK(w.Text[1:]):
			u.Except = append(u.Except, w.Text[1:])
		case nameOK(w.Text):
			u.Names = append(u.Names, w.Text)
		default:
			v.d.Warnf(w.Pos, "%sUSERS: bad user or group name <%s>; ignored", v.prefix(), w.Text)
		}
	}
	if !u.All && len(u.Names) == 0 {
		if len(u.Except) > 0 {
			u.All = true
		} else {
			v.warnf("USERS lists no user; all users are allowed")
			u.All = true
		}
	}
	return u
}

func (v val) hostSpec() []HostSpecItem {
	var out []HostSpecItem
	for _, w := range v.words() {
		it := HostSpecItem{Name: w.Text}
		if strings.HasPrefix(it.Name, "~") {
			it.Exclude, it.Name = true, it.Name[1:]
		}
		if i := strings.LastIndexByte(it.Name, '+'); i > 0 && !it.Exclude {
			pref := it.Name[i+1:]
			it.Name = it.Name[:i]
			if pref == "" {
				it.Pref = 1
			} else if n, err := strconv.Atoi(pref); err == nil && n >= 0 {
				it.Pref = n
			} else {
				v.d.Warnf(w.Pos, "%sHOSTS: bad preference level in <%s>; ignored", v.prefix(), w.Text)
				continue
			}
		}
		if !nameOK(strings.NewReplacer("[", "", "]", "").Replace(it.Name)) || strings.Contains(it.Name, "+") {
			v.d.Warnf(w.Pos, "%sHOSTS: bad host specification <%s>; ignored", v.prefix(), w.Text)
			continue
		}
		if (it.Name == "all" || it.Name == "none") && (it.Pref != 0 || it.Exclude) {
			v.d.Warnf(w.Pos, "%sHOSTS: %s takes no preference or '~'; <%s> ignored", v.prefix(), it.Name, w.Text)
			continue
		}
		out = append(out, it)
	}
	return out
}

// preemption parses PREEMPTIVE[[q[+pref] ...]] and PREEMPTABLE[[q ...]].
func (v val) preemption() Preemption {
	var p Preemption
	for _, w := range v.words() {
		kw, list := w.Text, ""
		if i := strings.IndexByte(w.Text, '['); i >= 0 {
			if !strings.HasSuffix(w.Text, "]") {
				continue // reported by words
			}
			kw, list = w.Text[:i], w.Text[i+1:len(w.Text)-1]
		}
		names := strings.Fields(list)
		switch strings.ToUpper(kw) {
		case "PREEMPTIVE":
			p.Preemptive = true
			for _, n := range names {
				qp := QueuePref{Queue: n}
				if i := strings.LastIndexByte(n, '+'); i > 0 {
					pref, err := strconv.Atoi(n[i+1:])
					if err != nil || pref <= 0 {
						v.d.Warnf(w.Pos, "%sPREEMPTION: bad preference level in <%s>; ignored", v.prefix(), n)
						continue
					}
					qp = QueuePref{Queue: n[:i], Pref: pref}
				}
				p.PreemptiveQueues = append(p.PreemptiveQueues, qp)
			}
		case "PREEMPTABLE":
			p.Preemptable = true
			p.PreemptableBy = append(p.PreemptableBy, names...)
		default:
			v.d.Warnf(w.Pos, "%sPREEMPTION: <%s> is not PREEMPTIVE[...] or PREEMPTABLE[...]; ignored", v.prefix(), w.Text)
		}
	}
	return p
}

// ParseRequeueExitValues parses "[exit_code ...] [EXCLUDE(exit_code ...)]"
// (bsub -Q), refusing what REQUEUE_EXIT_VALUES in lsb.queues would ignore
// with a warning.
func ParseRequeueExitValues(s string) (RequeueExitValues, error) {
	var r RequeueExitValues
	code := func(w string) (int, error) {
		n, err := strconv.Atoi(w)
		if err != nil || n < 0 || n > 255 {
			return 0, fmt.Errorf("bad exit value <%s> (0-255)", w)
		}
		return n, nil
	}
	rest := s
	for {
		rest = strings.TrimLeft(rest, " \t")
		if rest == "" {
			return r, nil
		}
		if len(rest) >= 8 && strings.EqualFold(rest[:8], "EXCLUDE(") {
			inner, after, ok := strings.Cut(rest[8:], ")")
			if !ok {
				return r, fmt.Errorf("EXCLUDE( without )")
			}
			for _, w := range strings.Fields(inner) {
				n, err := code(w)
				if err != nil {
					return r, err
				}
				r.Exclude = append(r.Exclude, n)
			}
			rest = after
			continue
		}
		w, after, _ := strings.Cut(rest, " ")
		n, err := code(w)
		if err != nil {
			return r, err
		}
		r.Codes = append(r.Codes, n)
		rest = after
	}
}

func (v val) requeueExitValues() RequeueExitValues {
	var r RequeueExitValues
	code := func(t lex.Token, s string) (int, bool) {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || n > 255 {
			v.d.Warnf(t.Pos, "%sREQUEUE_EXIT_VALUES: bad exit value <%s> (0-255); ignored", v.prefix(), s)
			return 0, false
		}
		return n, true
	}
	for _, w := range v.words() {
		if len(w.Text) > 8 && strings.EqualFold(w.Text[:8], "EXCLUDE(") && strings.HasSuffix(w.Text, ")") {
			for _, s := range strings.Fields(w.Text[8 : len(w.Text)-1]) {
				if n, ok := code(w, s); ok {
					r.Exclude = append(r.Exclude, n)
				}
			}
			continue
		}
		if n, ok := code(w, w.Text); ok {
			r.Codes = append(r.Codes, n)
		}
	}
	return r
}

// signalNames are the signal names JOB_CONTROLS accepts (with or without
// the SIG prefix).
var signalNames = map[string]bool{
	"HUP": true, "INT": true, "QUIT": true, "ILL": true, "TRAP": true, "ABRT": true, "BUS": true,
	"FPE": true, "KILL": true, "USR1": true, "SEGV": true, "USR2": true, "PIPE": true, "ALRM": true,
	"TERM": true, "STKFLT": true, "CHLD": true, "CONT": true, "STOP": true, "TSTP": true, "TTIN": true,
	"TTOU": true, "URG": true, "XCPU": true, "XFSZ": true, "VTALRM": true, "PROF": true, "WINCH": true,
	"IO": true, "PWR": true, "SYS": true,
}

func parseAction(arg string) JobAction {
	a := strings.TrimSpace(arg)
	up := strings.ToUpper(a)
	switch {
	case up == "CHKPNT":
		return JobAction{Kind: ActionChkpnt}
	case signalNames[strings.TrimPrefix(up, "SIG")] && !strings.ContainsAny(a, " \t"):
		return JobAction{Kind: ActionSignal, Signal: "SIG" + strings.TrimPrefix(up, "SIG")}
	}
	return JobAction{Kind: ActionCommand, Command: a}
}

func (v val) jobControls() JobControls {
	var jc JobControls
	for _, w := range v.words() {
		i := strings.IndexByte(w.Text, '[')
		if i < 0 || !strings.HasSuffix(w.Text, "]") {
			v.d.Warnf(w.Pos, "%sJOB_CONTROLS: <%s> is not ACTION[signal | command]; ignored", v.prefix(), w.Text)
			continue
		}
		arg := w.Text[i+1 : len(w.Text)-1]
		if strings.TrimSpace(arg) == "" {
			v.d.Warnf(w.Pos, "%sJOB_CONTROLS: empty action <%s>; ignored", v.prefix(), w.Text)
			continue
		}
		a := parseAction(arg)
		switch strings.ToUpper(w.Text[:i]) {
		case "SUSPEND":
			jc.Suspend = a
		case "RESUME":
			if a.Kind == ActionChkpnt {
				v.d.Warnf(w.Pos, "%sJOB_CONTROLS: CHKPNT is not a RESUME action; ignored", v.prefix())
				continue
			}
			jc.Resume = a
		case "TERMINATE":
			jc.Terminate = a
		default:
			v.d.Warnf(w.Pos, "%sJOB_CONTROLS: unknown action <%s> (SUSPEND, RESUME or TERMINATE); ignored", v.prefix(), w.Text[:i])
		}
	}
	return jc
}

// timeLimit parses [default] maximum, each [hours:]minutes[/host_spec].
func (v val) timeLimit() TimeLimit {
	var tl TimeLimit
	words := v.names()
	if len(words) == 0 || len(words) > 2 {
		v.bad("is not [default_limit] maximum_limit")
		return tl
	}
	var ds []time.Duration
	var specs []string
	for _, w := range words {
		t, spec, _ := strings.Cut(w, "/")
		hm := strings.Split(t, ":")
		var minutes float64
		ok := len(hm) <= 2
		for _, p := range hm {
			f, err := strconv.ParseFloat(p, 64)
			if err != nil || f < 0 || math.IsInf(f, 0) || f > 1e9 {
				ok = false
				break
			}
			minutes = minutes*60 + f
		}
		if !ok || minutes <= 0 || (strings.Contains(w, "/") && !nameOK(spec)) {
			v.bad("is not [hours:]minutes[/host_spec]")
			return TimeLimit{}
		}
		ds = append(ds, time.Duration(minutes*float64(time.Minute)))
		specs = append(specs, spec)
	}
	tl.Max, tl.MaxSpec = ds[len(ds)-1], specs[len(specs)-1]
	if len(ds) == 2 {
		tl.Default, tl.DefaultSpec = ds[0], specs[0]
		if tl.Default > tl.Max {
			v.bad("has a default greater than the maximum")
			return TimeLimit{}
		}
	}
	return tl
}

var unitKB = map[string]int64{"KB": 1, "MB": 1 << 10, "GB": 1 << 20, "TB": 1 << 30, "PB": 1 << 40, "EB": 1 << 50}

// size parses an integer with an optional unit suffix (K/KB ... E/EB);
// without a suffix the value is in unit ("" for plain counts). The result is
// in KB (or the count).
func parseSize(s, unit string) (int64, bool) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	if err != nil {
		return 0, false
	}
	suffix := strings.ToUpper(s[i:])
	if suffix != "" {
		if unit == "" {
			return 0, false
		}
		if len(suffix) == 1 {
			suffix += "B"
		}
		unit = suffix
	}
	if unit == "" {
		return n, true
	}
	m, ok := unitKB[unit]
	if !ok || n > math.MaxInt64/m {
		return 0, false
	}
	return n * m, true
}

func (v val) sizeLimit(withDefault bool, unit string) SizeLimit {
	words := v.names()
	max := 1
	if withDefault {
		max = 2
	}
	if len(words) == 0 || len(words) > max {
		if withDefault {
			v.bad("is not [default_limit] maximum_limit")
		} else {
			v.bad("is not a single limit")
		}
		return SizeLimit{}
	}
	var vals []int64
	for _, w := range words {
		n, ok := parseSize(w, unit)
		if !ok {
			v.bad("is not a non-negative integer limit")
			return SizeLimit{}
		}
		vals = append(vals, n)
	}
	sl := SizeLimit{Set: true, Max: vals[len(vals)-1]}
	if len(vals) == 2 {
		sl.Default = vals[0]
		if sl.Default > sl.Max {
			v.bad("has a default greater than the maximum")
			return SizeLimit{}
		}
	}
	return sl
}

func (v val) procLimit() ProcLimit {
	words := v.names()
	if len(words) == 0 || len(words) > 3 {
		v.bad("is not [minimum [default]] maximum")
		return ProcLimit{}
	}
	var ns []int
	for _, w := range words {
		n, err := strconv.Atoi(w)
		if err != nil || n <= 0 {
			v.bad("is not [minimum [default]] maximum (positive integers)")
			return ProcLimit{}
		}
		ns = append(ns, n)
	}
	pl := ProcLimit{Max: ns[len(ns)-1]}
	switch len(ns) {
	case 2:
		pl.Min = ns[0]
	case 3:
		pl.Min, pl.Default = ns[0], ns[1]
	}
	if pl.Min > pl.Max || (pl.Default != 0 && (pl.Default < pl.Min || pl.Default > pl.Max)) {
		v.bad("must satisfy 1 <= minimum <= default <= maximum")
		return ProcLimit{}
	}
	return pl
}
