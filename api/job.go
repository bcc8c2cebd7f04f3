package api

// JobState uses LSF's JOB_STAT_* bit values (lsbatch.h).
type JobState int32

// Job states.
const (
	StateNone  JobState = 0
	StatePend  JobState = 0x01
	StatePSusp JobState = 0x02
	StateRun   JobState = 0x04
	StateSSusp JobState = 0x08
	StateUSusp JobState = 0x10
	StateExit  JobState = 0x20
	StateDone  JobState = 0x40
	StatePDone JobState = 0x80
	StatePErr  JobState = 0x100
	StateWait  JobState = 0x200
	StateUnkwn JobState = 0x10000
	StateZombi JobState = 0x20000
)

// Limits are a job's resource limits; 0 means unlimited. Sizes in KB, times
// in seconds, as LSF keeps them.
type Limits struct {
	CPU         int64  `wire:"1"`  // -c, normalized CPU seconds
	CPUHost     string `wire:"2"`  // -c .../host_name or /host_model
	Run         int64  `wire:"3"`  // -W, seconds
	RunHost     string `wire:"4"`  // -W .../host_name or /host_model
	RunEstimate int64  `wire:"5"`  // -We
	Mem         int64  `wire:"6"`  // -M, KB
	Swap        int64  `wire:"7"`  // -v, KB
	Core        int64  `wire:"8"`  // -C, KB
	Data        int64  `wire:"9"`  // -D, KB
	File        int64  `wire:"10"` // -F, KB
	Stack       int64  `wire:"11"` // -S, KB
	Process     int64  `wire:"12"` // -p
	Thread      int64  `wire:"13"` // -T
	// CoreZero is a core file limit of zero (bsub -C 0, CORELIMIT = 0):
	// no core files. Core is 0 then too, as when no limit is set.
	CoreZero bool `wire:"14"`
}

// FileTransfer is one bsub -f "local op remote" entry.
type FileTransfer struct {
	Local  string `wire:"1"`
	Remote string `wire:"2"`
	Op     string `wire:"3"` // ">", "<", "<<", "><", "<>"
}

// JobSpec is what the submitter asked for: bsub's options after the client
// has read them (including #BSUB lines) and resolved the environment.
// mbatchd validates it and merges it with queue and cluster policy.
type JobSpec struct {
	Command       string          `wire:"1"`  // command line, or the whole script
	FromScript    bool            `wire:"2"`  // command is a job script (stdin or file)
	JobName       string          `wire:"3"`  // -J as given: may carry [index_list] and %limit
	Queues        []string        `wire:"4"`  // -q candidates, in order
	MinProcs      int32           `wire:"5"`  // -n min (0: not given)
	MaxProcs      int32           `wire:"6"`  // -n max (0: not given)
	ResReq        []string        `wire:"7"`  // every -R, in order
	AskedHosts    []string        `wire:"8"`  // -m entries ("hostA", "groupX+2")
	InFile        string          `wire:"9"`  // -i / -is
	InSpool       bool            `wire:"10"` // -is
	OutFile       string          `wire:"11"` // -o / -oo
	OutOverwrite  bool            `wire:"12"` // -oo
	ErrFile       string          `wire:"13"` // -e / -eo
	ErrOverwrite  bool            `wire:"14"` // -eo
	Cwd           string          `wire:"15"` // -cwd as given (may hold %J %I)
	SubCwd        string          `wire:"16"` // submission working directory
	SubHome       string          `wire:"17"` // submitter's home directory
	Env           []string        `wire:"18"` // NAME=VALUE the job gets
	Limits        *Limits         `wire:"19"`
	Project       string          `wire:"20"` // -P
	UserGroup     string          `wire:"21"` // -G
	Dependency    string          `wire:"22"` // -w
	Exclusive     bool            `wire:"23"` // -x
	Rerunnable    bool            `wire:"24"` // -r
	NotRerunnable bool            `wire:"25"` // -rn
	Hold          bool            `wire:"26"` // -H
	BeginTime     int64           `wire:"27"` // -b, Unix seconds
	TermTime      int64           `wire:"28"` // -t, Unix seconds
	Wait          bool            `wire:"29"` // -K
	PreExec       string          `wire:"30"` // -E
	PostExec      string          `wire:"31"` // -Ep
	LoginShell    string          `wire:"32"` // -L
	MailUser      string          `wire:"33"` // -u
	NotifyBegin   bool            `wire:"34"` // -B
	NotifyEnd     bool            `wire:"35"` // -N
	App           string          `wire:"36"` // -app
	UserPriority  int32           `wire:"37"` // -sp
	Description   string          `wire:"38"` // -Jd
	Files         []*FileTransfer `wire:"39"` // -f
	EsubParams    string          `wire:"40"` // -a
	Umask         uint32          `wire:"41"`
	FromHost      string          `wire:"42"` // submission host
	SLA           string          `wire:"44"` // -sla
	JobGroup      string          `wire:"45"` // -g
	ChkpntDir     string          `wire:"46"` // -k dir
	ChkpntPeriod  int64           `wire:"47"` // -k period, seconds
	WarningAction string          `wire:"48"` // -wa
	WarningTime   int64           `wire:"49"` // -wt, seconds
	Interactive   bool            `wire:"50"` // -I family
	// Pty runs an interactive job on a pseudo-terminal (-Ip, -Is);
	// PtyShell is -Is (shell mode). Without Pty an interactive job's
	// streams are pipes to bsub (-I).
	Pty        bool   `wire:"57"`
	PtyShell   bool   `wire:"58"`
	Shell      string `wire:"51"` // #!shell of a script
	UID        int32  `wire:"52"` // submitter's uid and gid, as seen by the client
	GID        int32  `wire:"53"`
	EsubOutput []byte `wire:"54"` // esubs' standard output, eexec's standard input
	// RequeueExitValues is bsub -Q: the job's own REQUEUE_EXIT_VALUES
	// ("[exit_code ...] [EXCLUDE(exit_code ...)]"), over the application
	// profile's and the queue's.
	RequeueExitValues string `wire:"55"`
	// UserMap is the submitter's account mapping (.lsfhosts send lines)
	// as "host user" pairs: on a host it names, the job runs as that
	// account if the account's own .lsfhosts there accepts the submitter.
	UserMap []string `wire:"56"`
	// InSpoolData is -is's input file as it was at submission: LSF spools
	// it under JOB_SPOOL_DIR (lsf_indir); Basalt's spool is the job's
	// replicated record, so no directory need be shared.
	InSpoolData []byte `wire:"70"`
	// CmdSpool is -Zs: the command file (the command's first word,
	// CmdSpoolName as typed) as it was at submission; the job runs this
	// copy, so editing the file afterwards does not change the job.
	CmdSpool     []byte `wire:"71"`
	CmdSpoolName string `wire:"72"`
	// MultiCluster (api/mc.go). Clusters is bsub -clusters: the clusters
	// the job may run in ("all", cluster names, "local" for this one).
	// SrcCluster and SrcJobID are set by a receiving mbatchd on a job
	// forwarded to it (never taken from a user's submission).
	Clusters   []string `wire:"90"`
	SrcCluster string   `wire:"91"`
	SrcJobID   int64    `wire:"92"`
	// SrcHostType and SrcHostModel are the submission host's type and
	// model as its cluster knows them, sent with a forwarded job: the
	// execution cluster, which does not know that host, resolves
	// type==local and model==local with them (only a cluster sets them).
	SrcHostType  string `wire:"130"`
	SrcHostModel string `wire:"131"`
	// Reservation is bsub -U: the advance reservation the job runs in.
	Reservation string `wire:"93"`
	// ChkpntMethod is bsub -k's method=name (echkpnt.<name>); "" uses
	// LSB_ECHKPNT_METHOD, else the default method.
	ChkpntMethod string `wire:"73"`
	// RestartDir is set on a job brestart submitted: the checkpoint
	// directory (checkpoint_dir/<old job ID>) it restarts from.
	RestartDir string `wire:"74"`
	// RestartForce is brestart -f.
	RestartForce bool `wire:"75"`
	// AutoResizable is bsub -ar: once started with at least -n min
	// slots, the scheduler grows the job toward -n max as slots free.
	AutoResizable bool `wire:"76"`
	// ResizeNotifyCmd is bsub -rnc: the resize notification command
	// run on the first execution host whenever the allocation changes.
	ResizeNotifyCmd string `wire:"77"`
	// RestartSub is the submission the checkpoint saved
	// (chkpnt.SubmissionFile, the caller's: a JobSpec, wire encoded):
	// brestart's submission when mbatchd no longer knows the checkpointed
	// job, brestart's options over it. It grants nothing: it is validated
	// as the caller's own bsub.
	RestartSub []byte `wire:"140"`
	// GPUReq is bsub -gpu as given ("-" for the default; empty: the job
	// asks for no GPUs). The scheduler merges it over LSB_GPU_REQ option
	// by option (internal/resreq/gpureq).
	GPUReq string `wire:"80"`
}

// ExecHost is one execution host and the slots a job holds on it.
type ExecHost struct {
	Host  string `wire:"1"`
	Slots int32  `wire:"2"`
	// GPUs are the indices of the GPUs allocated to the job on this host
	// (bsub -gpu), in CUDA_VISIBLE_DEVICES order.
	GPUs []int32 `wire:"80"`
	// GPUReq is the job's effective GPU requirement as allocated
	// ("num=2:mode=shared:mps=no:j_exclusive=no"), on the first host only.
	GPUReq string `wire:"81"`
}

// Usage is a job's resource usage, as sampled on its execution hosts.
type Usage struct {
	CPUTime   float64 `wire:"1"` // seconds, user+system
	UTime     float64 `wire:"2"`
	STime     float64 `wire:"3"`
	Mem       int64   `wire:"4"` // KB resident now
	Swap      int64   `wire:"5"` // KB virtual now
	MaxMem    int64   `wire:"6"` // KB
	MaxSwap   int64   `wire:"7"` // KB
	AvgMem    int64   `wire:"8"` // KB
	NThreads  int32   `wire:"9"`
	PGID      int32   `wire:"10"`
	PIDs      []int32 `wire:"11"`
	RunTime   int64   `wire:"12"` // seconds of running (not suspended) wall time
	SampledAt int64   `wire:"13"` // Unix seconds
	InBlock   int64   `wire:"14"`
	OuBlock   int64   `wire:"15"`
	MinFlt    int64   `wire:"16"`
	MajFlt    int64   `wire:"17"`
	NVCSW     int64   `wire:"18"`
	NIVCSW    int64   `wire:"19"`
}

// PendReason is one pending reason and the hosts it applies to.
type PendReason struct {
	Code     int32    `wire:"1"` // LSF PEND_* code
	Subcode  int32    `wire:"2"` // load index for load reasons
	NumHosts int32    `wire:"3"` // hosts the reason applies to (0: job-level)
	Hosts    []string `wire:"4"` // host names (bjobs -lp)
	Detail   string   `wire:"5"` // resource or index name, when the text needs one
}

// JobRecord is the read view of one job (bjobs, bhist, bacct, -json).
type JobRecord struct {
	JobID           int64         `wire:"1"`
	Index           int32         `wire:"2"` // array index, 0 for non-array jobs
	User            string        `wire:"3"`
	State           JobState      `wire:"4"`
	Queue           string        `wire:"5"`
	FromHost        string        `wire:"6"`
	ExecHosts       []*ExecHost   `wire:"7"`
	JobName         string        `wire:"8"`
	SubmitTime      int64         `wire:"9"`
	StartTime       int64         `wire:"10"`
	EndTime         int64         `wire:"11"`
	DispatchTime    int64         `wire:"12"`
	Spec            *JobSpec      `wire:"13"` // without Env
	EffectiveResReq string        `wire:"14"`
	PendReasons     []*PendReason `wire:"15"`
	SuspReasons     int32         `wire:"16"` // SUSP_* bits
	SuspSubreason   int32         `wire:"17"`
	ExitStatus      int32         `wire:"18"` // wait(2) status
	TermReason      string        `wire:"19"` // TERM_* keyword
	Usage           *Usage        `wire:"20"`
	ExecHome        string        `wire:"21"`
	ExecCwd         string        `wire:"22"`
	ExecUser        string        `wire:"23"`
	NumSlots        int32         `wire:"24"`
	RunCount        int32         `wire:"25"`
	SuspendTime     int64         `wire:"26"`
	PendTime        int64         `wire:"27"` // seconds pending so far
	JobPID          int32         `wire:"28"`
	ArraySpec       string        `wire:"29"` // "[1-10]" for an array
	ArrayLimit      int32         `wire:"30"`
	UserGroup       string        `wire:"31"`
	PreemptCount    int32         `wire:"32"`
	Forced          bool          `wire:"33"` // brun -f
	ReserveTime     int64         `wire:"34"`
	ExitInfo        string        `wire:"35"`
	Priority        int64         `wire:"36"`
	History         []string      `wire:"37"`
	Project         string        `wire:"38"` // resolved project (DEFAULT_PROJECT when -P was not given)
	Command         string        `wire:"39"` // the job's command (always set; Spec is set only with Detail)
	DefaultQueue    bool          `wire:"40"`
	// CombinedResReq is the job's requirement merged with its application
	// profile's and its queue's as they are now (bjobs -l "Combined"); set
	// only with Detail.
	CombinedResReq string `wire:"41"`
	// Thresholds are the job's loadSched/loadStop (bjobs -l SCHEDULING
	// PARAMETERS): its queue's, and for a started job the stricter of those
	// and its first execution host's; set only with Detail.
	Thresholds []*Threshold `wire:"42"`
	// MultiCluster job forwarding (api/mc.go): the cluster and queue a
	// job was forwarded to, when, and its ID there; a forwarded job's
	// source cluster and its ID there.
	FwdCluster string `wire:"90"`
	FwdQueue   string `wire:"91"`
	FwdTime    int64  `wire:"92"`
	DstJobID   int64  `wire:"93"`
	SrcCluster string `wire:"94"`
	SrcJobID   int64  `wire:"95"`
	// Resizable jobs (bsub -ar, bresize): when the allocation last
	// changed, the active pending allocation request (additional tasks,
	// min and max; 0 none) and the resize notification command in force.
	ResizeTime      int64  `wire:"100"`
	ResizeMin       int32  `wire:"101"`
	ResizeMax       int32  `wire:"102"`
	ResizeNotifyCmd string `wire:"103"`
	// CombinedGPUReq is the job's GPU requirement merged with its
	// application profile's and queue's GPU_REQ and LSB_GPU_REQ as they
	// are now (bjobs -l GPU REQUIREMENT DETAILS "Combined"); set only
	// with Detail, for a job that asks for GPUs.
	CombinedGPUReq string `wire:"120"`
}
