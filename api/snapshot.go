package api

// A raft snapshot of mbatchd's state is a sequence of length-delimited
// SnapRecords: one SnapMeta first, then the shared environments and specs,
// then the arrays and jobs that refer to them.
type SnapRecord struct {
	Meta  *SnapMeta  `wire:"1"`
	Env   *SnapEnv   `wire:"2"`
	Spec  *SnapSpec  `wire:"3"`
	Array *SnapArray `wire:"4"`
	Job   *SnapJob   `wire:"5"`
}

// SnapMeta holds the state's scalars and the administrative states of queues
// and hosts.
type SnapMeta struct {
	Version     int32            `wire:"1"`
	NextJobID   int64            `wire:"2"`
	LastOrder   int64            `wire:"3"`
	Queues      []*SnapQueue     `wire:"4"`
	Hosts       []*SnapHost      `wire:"5"`
	Finished    int64            `wire:"6"` // finished jobs since the log switch
	MasterStart int64            `wire:"7"`
	Jobs        int64            `wire:"8"` // records that follow, for progress and checks
	Preempt     []*SnapPreemptCt `wire:"9"`
	// SubmitKeys are the recent submissions' idempotency keys, oldest
	// first.
	SubmitKeys []*SnapSubmitKey `wire:"10"`
	// Applied is the raft index of the last entry the snapshot holds (0
	// in snapshots written before it was recorded).
	Applied uint64 `wire:"11"`
	// JobGroups are the job groups, parents first.
	JobGroups []*SnapJobGroup `wire:"20"`
	// Rsvs are the advance reservations, by ID, each as its last EvRsv.
	Rsvs []*EvRsv `wire:"21"`
}

// SnapSubmitKey is one request's idempotency key and the jobs it created.
type SnapSubmitKey struct {
	User string          `wire:"1"`
	Key  string          `wire:"2"`
	Time int64           `wire:"3"` // Unix nanoseconds of the submission
	Jobs []*SubmitResult `wire:"4"` // per request position; JobID 0 where none was created
}

// SnapPreemptCt is reserved for preemption counters kept outside jobs.
type SnapPreemptCt struct {
	Key   string `wire:"1"`
	Count int32  `wire:"2"`
}

// SnapQueue is a queue's administrative state.
type SnapQueue struct {
	Name     string `wire:"1"`
	Closed   bool   `wire:"2"`
	Inactive bool   `wire:"3"`
}

// SnapHost is a host's administrative state.
type SnapHost struct {
	Name    string `wire:"1"`
	Closed  bool   `wire:"2"`
	Comment string `wire:"3"`
	Time    int64  `wire:"4"`
}

// SnapJobGroup is a job group (see EvJobGroup).
type SnapJobGroup struct {
	Path     string `wire:"1"`
	Owner    string `wire:"2"`
	HasLimit bool   `wire:"3"`
	Limit    int32  `wire:"4"`
	Time     int64  `wire:"5"` // Unix nanoseconds of its creation
}

// SnapEnv is an interned job environment.
type SnapEnv struct {
	Ref int64    `wire:"1"`
	Env []string `wire:"2"`
}

// SnapSpec is a submission spec shared by a job or an array's elements; its
// Env is empty and EnvRef names the interned environment.
type SnapSpec struct {
	Ref    int64    `wire:"1"`
	Spec   *JobSpec `wire:"2"`
	EnvRef int64    `wire:"3"`
}

// SnapArray is a job array's shared data.
type SnapArray struct {
	JobID   int64   `wire:"1"`
	Spec    string  `wire:"2"`
	Limit   int32   `wire:"3"`
	Indices []int32 `wire:"4"`
}

// SnapJob.ResizeFlags bits: the job no longer grows by itself in this
// run; its allocation changed in this run.
const (
	SnapResizeNoAuto  int32 = 1
	SnapResizeResized int32 = 2
)

// SnapJob is one job or array element.
type SnapJob struct {
	JobID           int64       `wire:"1"`
	Index           int32       `wire:"2"`
	SpecRef         int64       `wire:"3"`
	User            string      `wire:"4"`
	UID             int32       `wire:"5"`
	Queue           string      `wire:"6"`
	Name            string      `wire:"7"`
	Project         string      `wire:"8"`
	State           JobState    `wire:"9"`
	PrevState       JobState    `wire:"10"`
	SubmitTime      int64       `wire:"11"`
	StartTime       int64       `wire:"12"`
	EndTime         int64       `wire:"13"`
	Order           int64       `wire:"14"`
	NumProcs        int32       `wire:"15"`
	MaxProcs        int32       `wire:"16"`
	ExecHosts       []*ExecHost `wire:"17"`
	PID             int32       `wire:"18"`
	PGID            int32       `wire:"19"`
	ExecCwd         string      `wire:"20"`
	ExecHome        string      `wire:"21"`
	ExecUser        string      `wire:"22"`
	ExitStatus      int32       `wire:"23"`
	TermReason      string      `wire:"24"`
	SuspReasons     int32       `wire:"25"`
	SuspSubreason   int32       `wire:"26"`
	PendReason      int32       `wire:"27"`
	RunCount        int32       `wire:"28"`
	Usage           *Usage      `wire:"29"`
	Forced          bool        `wire:"30"`
	NoSuspend       bool        `wire:"31"`
	ExcludedHosts   []string    `wire:"32"`
	PreemptCount    int32       `wire:"33"`
	UserPriority    int32       `wire:"34"`
	PostDone        bool        `wire:"35"`
	PostFailed      bool        `wire:"36"`
	ExecRusage      string      `wire:"37"`
	StateTime       int64       `wire:"38"`
	DefaultQueue    bool        `wire:"39"`
	PendSince       int64       `wire:"40"`
	BackfillLimit   int64       `wire:"41"` // interruptible backfill run limit, seconds
	EffectiveResReq string      `wire:"42"`
	// MultiCluster forwarding of the job (state.Forward).
	FwdCluster  string   `wire:"90"`
	FwdQueue    string   `wire:"91"`
	FwdKey      string   `wire:"92"`
	FwdTime     int64    `wire:"93"`
	FwdRemoteID int64    `wire:"94"`
	FwdHosts    []string `wire:"95"`
	FwdCount    int32    `wire:"96"`
	// FwdStale are the remote copies of earlier forwards still to kill
	// (state.StaleForward).
	FwdStale []*SnapStaleForward `wire:"130"`
	// Checkpointing (60-): the period bchkpnt -p set, the successful
	// checkpoints and the last one's time, the hosts bmig -m asked for.
	ChkpntPeriod    int64    `wire:"60"`
	ChkpntPeriodSet bool     `wire:"61"`
	Chkpnts         int32    `wire:"62"`
	ChkpntTime      int64    `wire:"63"`
	MigHosts        []string `wire:"64"`
	// Resizable jobs (65-): the pending allocation request (additional
	// tasks, min and max; 0 none), flags (SnapResize*), and the seconds
	// from the run's start to the last allocation change.
	ResizeMin   int32 `wire:"65"`
	ResizeMax   int32 `wire:"66"`
	ResizeFlags int32 `wire:"67"`
	ResizeAfter int32 `wire:"68"`
	// The checkpoint request in progress (70, 0: none), the number of the
	// job's last request (71), its flags (72: state.ChkpntReq*), the job's
	// state and the user when it was asked for (73, 74).
	ChkpntReq      int64    `wire:"70"`
	ChkpntReqs     int64    `wire:"71"`
	ChkpntReqFlags int32    `wire:"72"`
	ChkpntReqState JobState `wire:"73"`
	ChkpntReqUser  string   `wire:"74"`
}

// SnapStaleForward is a remote copy of a job's earlier forward that its
// master must kill when that cluster answers (state.StaleForward).
type SnapStaleForward struct {
	Cluster  string `wire:"1"`
	Queue    string `wire:"2"`
	Key      string `wire:"3"`
	RemoteID int64  `wire:"4"`
}
