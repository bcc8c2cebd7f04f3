package api

// SbdMessage is what sbatchd sends mbatchd on its session; exactly one
// field is set.
type SbdMessage struct {
	Hello  *SbdHello        `wire:"1"`
	Status *JobStatusReport `wire:"2"`
	Ack    *Ack             `wire:"3"`
	// Health: sbatchd's ability to serve changed (see SbdHealth).
	Health *SbdHealth `wire:"4"`
}

// SbdHealth says whether sbatchd can take connections (bpeek, interactive
// jobs' terminals): one that cannot shows unreach in bhosts, and takes no
// new jobs, until it says it can again.
type SbdHealth struct {
	NotServing bool `wire:"1"`
}

// MbdMessage is what mbatchd sends sbatchd; exactly one of the payload
// fields is set. Launch, Signal and Control are acknowledged by an Ack
// carrying the same Seq.
type MbdMessage struct {
	Seq     uint64      `wire:"1"`
	Launch  *JobLaunch  `wire:"2"`
	Signal  *JobSignal  `wire:"3"`
	Ack     *Ack        `wire:"4"`
	Control *SbdControl `wire:"5"`
	Welcome *SbdWelcome `wire:"6"`
}

// SbdWelcome answers an SbdHello: the jobs mbatchd believes run on the host
// that the hello did not report. sbatchd re-adopts each one it finds alive
// (its cgroup or processes still exist) and reports the others as lost; it
// never starts them again.
type SbdWelcome struct {
	Jobs []*JobLaunch `wire:"1"`
}

// SbdHello opens a session and lists every job the host holds.
type SbdHello struct {
	Host     string             `wire:"1"`
	BootTime int64              `wire:"2"`
	Jobs     []*JobStatusReport `wire:"3"`
	Version  string             `wire:"4"`
	// NotServing: as SbdHealth's, at the session's start.
	NotServing bool `wire:"5"`
}

// JobStatusReport is a job's state on its execution host.
type JobStatusReport struct {
	JobID         int64    `wire:"1"`
	Index         int32    `wire:"2"`
	State         JobState `wire:"3"`
	PID           int32    `wire:"4"`
	PGID          int32    `wire:"5"`
	ExitStatus    int32    `wire:"6"` // wait(2) status once finished
	TermReason    string   `wire:"7"`
	Usage         *Usage   `wire:"8"`
	SuspReasons   int32    `wire:"9"`
	SuspSubreason int32    `wire:"10"`
	Time          int64    `wire:"11"`
	ExecCwd       string   `wire:"12"`
	ExecHome      string   `wire:"13"`
	ExecUser      string   `wire:"14"`
	PendReason    int32    `wire:"15"` // back to pending: pre-exec failed, requeue
	Requeue       bool     `wire:"16"` // exit value in REQUEUE_EXIT_VALUES
	ExcludeHost   bool     `wire:"17"` // EXCLUDE(): never redispatch here
	RunCount      int32    `wire:"18"`
	PostDone      bool     `wire:"19"`
	PostFailed    bool     `wire:"20"`
	Abort         bool     `wire:"21"` // pre-exec exited LSB_EXIT_PRE_ABORT
	Final         bool     `wire:"22"` // no further reports for this run
	Seq           uint64   `wire:"23"` // per-job report sequence, for idempotence
	// OutStart is where this run's output begins in its output file (an -o
	// file is appended to): bpeek shows it from there to the run's report.
	OutStart int64 `wire:"24"`
	// The run's last checkpoint request (JobSignal.ChkpntReq) and where it
	// stands: ChkpntInitiated while echkpnt runs, then ChkpntSucceeded or
	// ChkpntFailed (ChkpntErr says why), with echkpnt's PID. Every later
	// report of the run carries it, so the outcome reaches mbatchd even
	// when the report that first carried it was lost.
	ChkpntReq   int64  `wire:"140"`
	ChkpntPhase int32  `wire:"141"`
	ChkpntPID   int32  `wire:"142"`
	ChkpntErr   string `wire:"143"`
}

// Ack acknowledges a message by sequence number.
type Ack struct {
	Seq    uint64  `wire:"1"`
	Status *Status `wire:"2"`
	PID    int32   `wire:"3"`
}

// QueueExec is the queue-level execution policy sbatchd applies to a job.
type QueueExec struct {
	Name              string       `wire:"1"`
	Priority          int32        `wire:"2"`
	Nice              int32        `wire:"3"`
	PreExec           string       `wire:"4"`
	PostExec          string       `wire:"5"`
	PrePostExecUser   string       `wire:"6"`
	JobStarter        string       `wire:"7"`
	SuspendAction     string       `wire:"8"` // JOB_CONTROLS SUSPEND[...]: signal name or command
	ResumeAction      string       `wire:"9"`
	TerminateAction   string       `wire:"10"`
	RequeueExitValues []int32      `wire:"11"`
	ExcludeExitValues []int32      `wire:"12"` // EXCLUDE(...)
	Thresholds        []*Threshold `wire:"13"`
	StopCond          string       `wire:"14"`
	ResumeCond        string       `wire:"15"`
	RunWindow         string       `wire:"16"`
	TerminateWhen     []string     `wire:"17"` // WINDOW LOAD PREEMPT
	Rerunnable        bool         `wire:"18"`
}

// JobLaunch tells sbatchd to start a job.
type JobLaunch struct {
	JobID           int64       `wire:"1"`
	Index           int32       `wire:"2"`
	User            string      `wire:"3"`
	Spec            *JobSpec    `wire:"4"` // with Env
	ExecHosts       []*ExecHost `wire:"5"`
	Queue           *QueueExec  `wire:"6"`
	SubmitTime      int64       `wire:"7"`
	RunCount        int32       `wire:"8"`
	EffectiveResReq string      `wire:"9"`
	Forced          bool        `wire:"10"` // brun -f: exempt from load suspension
	DispatchTime    int64       `wire:"11"`
	JobName         string      `wire:"12"` // resolved (arrays: name[index])
	ArrayEnd        int32       `wire:"13"` // LSB_JOBINDEX_END
	ArrayStep       int32       `wire:"14"`
	ExecRusage      string      `wire:"15"` // LSB_EXEC_RUSAGE
	Cluster         string      `wire:"16"`
	Limits          *Limits     `wire:"17"` // effective limits (job merged with queue)
}

// SignalAction is how sbatchd acts on a job.
type SignalAction int32

// Signal actions.
const (
	ActSuspend   SignalAction = 1 // JOB_CONTROLS SUSPEND (default SIGSTOP)
	ActResume    SignalAction = 2 // JOB_CONTROLS RESUME (default SIGCONT)
	ActTerminate SignalAction = 3 // JOB_CONTROLS TERMINATE (default SIGINT, SIGTERM, SIGKILL)
	ActSignal    SignalAction = 4 // bkill -s
	ActRequeue   SignalAction = 5 // kill, and report the run as requeued
	ActChkpnt    SignalAction = 6 // run echkpnt; acknowledged when it ends, or starts with ChkpntReq (Ack.PID: its PID)
	ActResize    SignalAction = 7 // the allocation changed (Resize): run the notification command
)

// JobSignal asks sbatchd to act on a running job.
type JobSignal struct {
	JobID         int64        `wire:"1"`
	Index         int32        `wire:"2"`
	Action        SignalAction `wire:"3"`
	Signal        int32        `wire:"4"`
	SuspReasons   int32        `wire:"5"`
	SuspSubreason int32        `wire:"6"`
	TermReason    string       `wire:"7"` // TERM_* recorded if the job dies of this
	// ActChkpnt: kill the job after a successful checkpoint (TERM_CHKPNT),
	// and then report the run requeued (bmig); force the checkpoint.
	ChkpntKill    bool `wire:"30"`
	ChkpntRequeue bool `wire:"31"`
	ChkpntForce   bool `wire:"32"`
	// ActResize: the job's new allocation (api/resize.go).
	Resize *ResizeNotice `wire:"100"`
	// ChkpntReq numbers the request (EvJobChkpnt.ReqSeq): the shepherd
	// acknowledges it once echkpnt has started, reports the outcome in its
	// status reports, and ignores a request it already had (mbatchd sends
	// pending ones again to a host's new session).
	ChkpntReq int64 `wire:"140"`
}

// SbdControl asks sbatchd to reconfigure or shut down.
type SbdControl struct {
	Reconfig bool `wire:"1"`
	Shutdown bool `wire:"2"`
	// Restart: sbatchd stops as for Shutdown and executes itself again
	// (badmin hrestart); its jobs run on under their shepherds.
	Restart bool `wire:"3"`
}

// PeekRequest asks an sbatchd for a job's output (bpeek).
type PeekRequest struct {
	JobID  int64 `wire:"1"`
	Index  int32 `wire:"2"`
	Follow bool  `wire:"3"`
}

// PeekChunk is a piece of a job's output.
type PeekChunk struct {
	Stdout []byte `wire:"1"`
	Stderr []byte `wire:"2"`
}
