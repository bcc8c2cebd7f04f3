package api

// LogEntry is one entry of mbatchd's replicated log: a batch of events,
// applied atomically and in order. mbatchd's state is the fold of all
// entries; lsb.events and lsb.acct are rendered from them.
type LogEntry struct {
	Events []*Event `wire:"1"`
}

// Event is one mutation of mbatchd's state. Exactly one of the Ev fields is
// set. Time is when the master created the event (Unix nanoseconds); User and
// UID are who asked for it (empty for the system's own decisions).
type Event struct {
	Time int64  `wire:"1"`
	User string `wire:"2"`
	UID  int32  `wire:"3"`

	JobNew     *EvJobNew     `wire:"10"`
	JobStart   *EvJobStart   `wire:"11"`
	JobExecute *EvJobExecute `wire:"12"`
	JobStatus  *EvJobStatus  `wire:"13"`
	JobSignal  *EvJobSignal  `wire:"14"`
	JobSwitch  *EvJobSwitch  `wire:"15"`
	JobMove    *EvJobMove    `wire:"16"`
	JobModify  *EvJobModify  `wire:"17"`
	JobClean   *EvJobClean   `wire:"18"`
	JobRequeue *EvJobRequeue `wire:"19"`
	JobForce   *EvJobForce   `wire:"20"`
	QueueCtrl  *EvQueueCtrl  `wire:"21"`
	HostCtrl   *EvHostCtrl   `wire:"22"`
	MbdStart   *EvMbdStart   `wire:"23"`
	Reconfig   *EvReconfig   `wire:"24"`
	// JobGroup creates, modifies or deletes a job group.
	JobGroup *EvJobGroup `wire:"40"`
	// Rsv creates, modifies or deletes an advance reservation.
	Rsv *EvRsv `wire:"41"`
	// MultiCluster job forwarding (api/mc.go).
	JobForward   *EvJobForward   `wire:"90"`
	JobFwdUpdate *EvJobFwdUpdate `wire:"91"`
	// 25-39 are left to other event kinds; checkpointing begins at 40.
	JobChkpnt *EvJobChkpnt `wire:"42"`
	JobMig    *EvJobMig    `wire:"43"`
	// JobResize changes a running resizable job's allocation or its
	// pending allocation request (api/resize.go).
	JobResize *EvJobResize `wire:"44"`
}

// Checkpoint phases (EvJobChkpnt.Phase), as LSF's JOB_SIGACT actStatus.
const (
	ChkpntInitiated int32 = 1
	ChkpntSucceeded int32 = 3
	ChkpntFailed    int32 = 4
)

// EvJobChkpnt is a step of a job's checkpoint (LSF JOB_SIGACT with the
// CHKPNT action, and CHKPNT once it succeeded): initiated (by bchkpnt,
// bmig or a periodic checkpoint), then succeeded or failed. A bchkpnt -p
// without a checkpoint only changes the period.
type EvJobChkpnt struct {
	JobID     int64  `wire:"1"`
	Index     int32  `wire:"2"`
	Phase     int32  `wire:"3"`
	ActPID    int32  `wire:"4"` // echkpnt's PID
	Kill      bool   `wire:"5"` // -k: the job is killed after it
	Migrate   bool   `wire:"6"` // bmig's checkpoint: the job is requeued after it
	Period    int64  `wire:"7"` // the job's checkpoint period from now on, seconds
	SetPeriod bool   `wire:"8"`
	Message   string `wire:"9"` // why it failed
	RunCount  int32  `wire:"10"`
	// JobState is the job's state when the checkpoint was asked for (LSF's
	// JOB_SIGACT jStatus).
	JobState JobState `wire:"11"`
	// Requested: a checkpoint request accepted (bchkpnt, bmig, a periodic
	// checkpoint), recorded before it is sent so that its outcome reaches
	// whichever mbatchd is master when it comes; no lsb.events record.
	// ReqSeq numbers the job's requests (1, 2, ...): a request's later
	// steps (initiated, succeeded, failed) carry its number and apply only
	// while it is the job's pending one, so each is recorded once. Zero in
	// steps recorded before requests were (older logs).
	Requested bool  `wire:"140"`
	ReqSeq    int64 `wire:"141"`
	Force     bool  `wire:"142"` // echkpnt -f
}

// EvJobMig is a migration request (LSF MIG): bmig, or a MIG threshold.
type EvJobMig struct {
	JobID int64    `wire:"1"`
	Index int32    `wire:"2"`
	Hosts []string `wire:"3"` // bmig -m
}

// EvJobNew is a submission (LSF JOB_NEW).
type EvJobNew struct {
	JobID        int64    `wire:"1"`
	Spec         *JobSpec `wire:"2"`
	Queue        string   `wire:"3"` // the queue it was accepted into
	DefaultQueue bool     `wire:"4"`
	JobName      string   `wire:"5"` // without the array spec
	ArrayIndices []int32  `wire:"6"` // elements of an array job, in order
	ArraySpec    string   `wire:"7"` // "1-1000:2" as given
	ArrayLimit   int32    `wire:"8"` // %limit
	Project      string   `wire:"9"` // resolved (DEFAULT_PROJECT when not given)
	NumProcs     int32    `wire:"10"`
	MaxProcs     int32    `wire:"11"`
	Hold         bool     `wire:"12"` // -H: starts in PSUSP
	UserPriority int32    `wire:"13"`
	Order        int64    `wire:"14"` // position key within the queue (FCFS order)
	// SubmitKey and SubmitPos are the request's idempotency key
	// (SubmitRequest.Key) and the job's position in the request.
	SubmitKey string `wire:"15"`
	SubmitPos int32  `wire:"16"`
}

// EvJobStart is a dispatch decision (LSF JOB_START): the job, or one array
// element, goes to hosts.
type EvJobStart struct {
	JobID      int64       `wire:"1"`
	Index      int32       `wire:"2"`
	ExecHosts  []*ExecHost `wire:"3"`
	Forced     bool        `wire:"4"` // brun
	NoSuspend  bool        `wire:"5"` // brun -f: exempt from load suspension
	ExecRusage string      `wire:"6"` // the rusage alternative reserved
	RunCount   int32       `wire:"7"`
	// BackfillLimit is an interruptible backfill job's run limit (seconds,
	// INTERRUPTIBLE_BACKFILL): it must release the reserved slots it runs
	// in before the reserving job's predicted start. 0: none.
	BackfillLimit int64 `wire:"8"`
	// EffectiveResReq is the requirement the job was scheduled with
	// (resreq's Effective form).
	EffectiveResReq string `wire:"9"`
}

// EvJobExecute records that the job's processes started (LSF JOB_EXECUTE).
type EvJobExecute struct {
	JobID    int64  `wire:"1"`
	Index    int32  `wire:"2"`
	PID      int32  `wire:"3"`
	PGID     int32  `wire:"4"`
	ExecCwd  string `wire:"5"`
	ExecHome string `wire:"6"`
	ExecUser string `wire:"7"`
}

// EvJobStatus is a state change reported by sbatchd or decided by mbatchd
// (LSF JOB_STATUS): suspension, resumption, completion, return to pending.
type EvJobStatus struct {
	JobID         int64    `wire:"1"`
	Index         int32    `wire:"2"`
	State         JobState `wire:"3"`
	PendReason    int32    `wire:"4"` // when back to PEND
	SuspReasons   int32    `wire:"5"`
	SuspSubreason int32    `wire:"6"`
	ExitStatus    int32    `wire:"7"` // wait(2) status
	TermReason    string   `wire:"8"`
	Usage         *Usage   `wire:"9"`  // final usage for DONE/EXIT
	ExcludeHost   string   `wire:"10"` // EXCLUDE(): never redispatch here
	PostDone      bool     `wire:"11"`
	PostFailed    bool     `wire:"12"`
	RunCount      int32    `wire:"13"` // the run this status belongs to
}

// EvJobSignal records a signal request (LSF JOB_SIGNAL): bkill, bstop,
// bresume, preemption.
type EvJobSignal struct {
	JobID      int64  `wire:"1"`
	Index      int32  `wire:"2"`
	Signal     string `wire:"3"` // LSF symbol: KILL, STOP, CONT, or a signal name
	Action     int32  `wire:"4"` // SignalAction
	TermReason string `wire:"5"` // TERM_OWNER, TERM_ADMIN, TERM_PREEMPT...
	Preempt    bool   `wire:"6"` // suspension by preemption
	RunCount   int32  `wire:"7"`
}

// EvJobSwitch moves a job to another queue (bswitch).
type EvJobSwitch struct {
	JobID int64  `wire:"1"`
	Index int32  `wire:"2"`
	Queue string `wire:"3"`
	Order int64  `wire:"4"`
}

// EvJobMove reorders a pending job within its queue (btop, bbot).
type EvJobMove struct {
	JobID    int64 `wire:"1"`
	Index    int32 `wire:"2"`
	Position int32 `wire:"3"`
	Bottom   bool  `wire:"4"`
	Order    int64 `wire:"5"` // resulting position key
}

// EvJobModify replaces a job's submission parameters (bmod).
type EvJobModify struct {
	JobID   int64    `wire:"1"`
	Index   int32    `wire:"2"`
	Spec    *JobSpec `wire:"3"` // the complete new specification
	Queue   string   `wire:"4"`
	JobName string   `wire:"5"`
	Project string   `wire:"6"`
	// SetArrayLimit sets a whole array's running element limit to
	// ArrayLimit (bmod -J "%limit"; 0: none). Spec is nil when that is
	// all the event changes.
	SetArrayLimit bool  `wire:"7"`
	ArrayLimit    int32 `wire:"8"`
	// PendingOnly: the change holds options only a pending job may change
	// (mbatchd checked the job pending). A job started since is refused
	// (state.ErrStartedSince); an array's started elements are left as they
	// are.
	PendingOnly bool `wire:"9"`
}

// EvJobClean removes a finished job from mbatchd's memory (CLEAN_PERIOD).
type EvJobClean struct {
	JobID int64 `wire:"1"`
	Index int32 `wire:"2"`
}

// EvJobRequeue returns a job to pending (brequeue, rerunnable jobs after a
// host failure).
type EvJobRequeue struct {
	JobID int64 `wire:"1"`
	Index int32 `wire:"2"`
	Hold  bool  `wire:"3"` // to PSUSP (brequeue -H)
	Order int64 `wire:"4"`
}

// EvJobForce records brun.
type EvJobForce struct {
	JobID int64    `wire:"1"`
	Index int32    `wire:"2"`
	Hosts []string `wire:"3"`
	Force bool     `wire:"4"` // -f
}

// Queue and host control operations, numbered as LSF's QUEUE_CTRL and
// HOST_CTRL opCodes.
const (
	QueueOpen       = 1
	QueueClose      = 2
	QueueActivate   = 3
	QueueInactivate = 4
	HostOpen        = 1
	HostClose       = 2
)

// EvQueueCtrl is badmin qopen/qclose/qact/qinact.
type EvQueueCtrl struct {
	Queue   string `wire:"1"`
	Op      int32  `wire:"2"`
	Message string `wire:"3"`
}

// EvHostCtrl is badmin hopen/hclose.
type EvHostCtrl struct {
	Host    string `wire:"1"`
	Op      int32  `wire:"2"`
	Message string `wire:"3"`
}

// JobGroupOp is what an EvJobGroup does.
type JobGroupOp int32

const (
	JobGroupAdd    JobGroupOp = 1 // bgadd; ancestors are created as needed
	JobGroupModify JobGroupOp = 2 // bgmod
	JobGroupDelete JobGroupOp = 3 // bgdel: the group and its subgroups
)

// EvJobGroup is bgadd, bgmod or bgdel. A job submitted to a group that does
// not exist creates it (and its ancestors) with its JobNew instead.
type EvJobGroup struct {
	Op   JobGroupOp `wire:"1"`
	Path string     `wire:"2"` // "/a/b", cleaned
	// Owner is the group's owner (its creator; bgmod -u sets another).
	Owner string `wire:"3"`
	// HasLimit and Limit: -L (started jobs under the group, subgroups
	// included); bgmod -Ln clears it.
	HasLimit bool  `wire:"4"`
	Limit    int32 `wire:"5"`
	// SetOwner: bgmod -u.
	SetOwner bool `wire:"6"`
}

// RsvOp is what an EvRsv does.
type RsvOp int32

const (
	RsvAdd    RsvOp = 1 // brsvadd
	RsvModify RsvOp = 2 // brsvmod: the reservation is replaced by the event's
	RsvDelete RsvOp = 3 // brsvdel, or the end of a one-time reservation
)

// RsvType is an advance reservation's kind, as brsvs's TYPE column names it.
type RsvType int32

const (
	RsvUser   RsvType = 1 // -u users
	RsvGroup  RsvType = 2 // -g user group (-u of a group)
	RsvSystem RsvType = 3 // -s: no job may use the hosts
)

// RsvHost is one host of a reservation and the slots held on it.
type RsvHost struct {
	Host  string `wire:"1"`
	Slots int32  `wire:"2"`
}

// EvRsv is brsvadd, brsvmod or brsvdel (LSF's ADVRSV_ADD, ADVRSV_MOD,
// ADVRSV_DEL). A reservation holds slots on hosts during a one-time window
// (Begin-End, Unix seconds) or a recurring one (Window, "[day:]hh:mm-[day:]hh:mm").
type EvRsv struct {
	Op      RsvOp      `wire:"1"`
	ID      string     `wire:"2"` // "user1#0"
	Type    RsvType    `wire:"3"`
	Users   []string   `wire:"4"` // users, or the one user group
	Creator string     `wire:"5"`
	Hosts   []*RsvHost `wire:"6"` // in the order -m gave them
	Begin   int64      `wire:"7"`
	End     int64      `wire:"8"`
	Window  string     `wire:"9"`
	Open    bool       `wire:"10"` // -o: jobs outlive the window
	Desc    string     `wire:"11"` // -d
	// Reason says why a reservation was deleted: "" by brsvdel, "expired"
	// at the end of a one-time window.
	Reason string `wire:"12"`
}

// EvMbdStart records a master start (LSF MBD_START).
type EvMbdStart struct {
	Master    string `wire:"1"`
	Cluster   string `wire:"2"`
	NumHosts  int32  `wire:"3"`
	NumQueues int32  `wire:"4"`
}

// EvReconfig records that a new configuration took effect.
type EvReconfig struct {
	Digest string `wire:"1"` // hash of the configuration files
}
