package state

import (
	"fmt"

	"github.com/basalt-lsf/basalt/api"
)

// Key identifies a job or an array element (Index 0: a non-array job).
type Key struct {
	ID    int64
	Index int32
}

func (k Key) String() string {
	if k.Index == 0 {
		return fmt.Sprint(k.ID)
	}
	return fmt.Sprintf("%d[%d]", k.ID, k.Index)
}

// Spec is a submission shared by a job or all elements of an array.
//
// The fields that usually differ between the jobs of one workflow (the
// command or script, -J, -o, -e, -cwd) are the Spec's own; everything else
// lives in a base, an interned api.JobSpec shared by every Spec submitted
// alike (its Env interned too). A Spec's own fields shadow the base's by
// Go's embedding rules, so j.Spec.Command is the job's command and
// j.Spec.Queues the base's; the base is unexported so nothing outside the
// package can take it for the whole submission: Full rebuilds that. A
// pending job costs an 88-byte Spec instead of a whole api.JobSpec.
type Spec struct {
	*specBase
	Command string
	JobName string
	OutFile string
	ErrFile string
	Cwd     string
}

// sharedSpec names the base's embedded api.JobSpec: an alias, so the field
// is unexported while its fields are promoted (through specBase) to Spec.
type sharedSpec = api.JobSpec

// Full returns the submission as an api.JobSpec of its own; its slices are
// shared with the state and must not be modified in place.
func (sp *Spec) Full() *api.JobSpec {
	c := *sp.sharedSpec
	c.Command, c.JobName, c.OutFile, c.ErrFile, c.Cwd = sp.Command, sp.JobName, sp.OutFile, sp.ErrFile, sp.Cwd
	return &c
}

// Array is the shared part of a job array.
type Array struct {
	ID      int64
	Spec    string // "1-1000:2" as given
	Limit   int32  // %limit, 0 = none
	Indices []int32
}

// Job is one job or array element.
type Job struct {
	Key
	Spec  *Spec
	Array *Array // nil for non-array jobs
	User  string
	UID   int32
	// ResizeMin and ResizeMax are a resizable job's pending allocation
	// request in this run (bresize request: additional tasks; 0 none);
	// ResizeNoAuto: it no longer grows by itself in this run; Resized:
	// its allocation changed in this run, ResizeAfter seconds after it
	// started (resize.go). They sit in the struct's alignment holes: a
	// Job stays in its 480-byte size class.
	ResizeMin    int32
	Queue        string
	DefaultQueue bool
	ResizeNoAuto bool
	Resized      bool
	Name         string // job name (without [index])
	Project      string
	State        api.JobState
	PrevState    api.JobState // state before UNKWN
	StateTime    int64        // Unix seconds of the last state change
	// StateIndex is the index of the log entry that last changed State
	// (not in snapshots: what the event log renders is applied anew).
	StateIndex   uint64
	SubmitTime   int64
	StartTime    int64 // dispatch time of the current run
	EndTime      int64
	PendSince    int64 // when the job last became pending
	Order        int64 // FCFS key within the queue
	NumProcs     int32
	MaxProcs     int32
	UserPriority int32
	ResizeMax    int32

	ExecHosts  []*api.ExecHost
	PID, PGID  int32
	ExecCwd    string
	ExecHome   string
	ExecUser   string
	ExecRusage string
	// EffectiveResReq is the requirement of the current run as it was
	// scheduled (bjobs -l, LSB_EFFECTIVE_RSRCREQ).
	EffectiveResReq string
	// BackfillLimit is the run limit (seconds) of a job started by
	// interruptible backfill in its current run; 0 otherwise.
	BackfillLimit int64

	ExitStatus    int32
	ResizeAfter   int32 // see ResizeMin
	TermReason    string
	SuspReasons   int32
	SuspSubreason int32
	PendReason    int32 // explicit reason set by an event (requeued, pre-exec failed)
	RunCount      int32
	Usage         *api.Usage // final usage of a finished job
	Forced        bool
	NoSuspend     bool
	ExcludedHosts []string
	PreemptCount  int32
	PostDone      bool
	PostFailed    bool
	// Fwd is the job's MultiCluster forward (forward.go); FwdCount counts
	// its forwards (each forward's key is new).
	Fwd      *Forward
	FwdCount int32
	// FwdStale are remote copies of earlier forwards that the master
	// must kill when their cluster answers (forward.go).
	FwdStale []StaleForward
	// Checkpointing: the period bchkpnt -p set (ChkpntPeriodSet; seconds,
	// 0 none), the successful checkpoints and the last one's time, the
	// hosts a bmig -m asked for.
	ChkpntPeriod    int64
	ChkpntPeriodSet bool
	Chkpnts         int32
	ChkpntTime      int64
	MigHosts        []string
	// The checkpoint request in progress in the job's current run
	// (ChkpntReq, 0 none: a new run clears it), the number of its last
	// request, and that request's flags (ChkpntReq*), the job's state and
	// the user when it was asked for; they stay after its outcome.
	ChkpntReq      int64
	ChkpntReqs     int64
	ChkpntReqFlags int32
	ChkpntReqState api.JobState
	ChkpntReqUser  string

	gen    uint64 // generation of this record (see generations)
	listed bool   // in its queue's pending list
}

// Slots is the number of slots the job holds (or will hold).
func (j *Job) Slots() int32 {
	if len(j.ExecHosts) > 0 {
		var n int32
		for _, h := range j.ExecHosts {
			n += h.Slots
		}
		return n
	}
	if j.NumProcs > 0 {
		return j.NumProcs
	}
	return 1
}

// DisplayName is the job name as LSF shows it: name[index] for elements.
func (j *Job) DisplayName() string {
	if j.Array != nil {
		return fmt.Sprintf("%s[%d]", j.Name, j.Index)
	}
	return j.Name
}
