package api

// Status is LSF's error number (LSBE_*) and message; Code 0 is success.
type Status struct {
	Code    int32  `wire:"1"`
	Message string `wire:"2"`
}

// JobRef names a job or one element of a job array (Index 0: the whole job).
type JobRef struct {
	JobID int64 `wire:"1"`
	Index int32 `wire:"2"`
}

// SubmitRequest submits one job, or several (bsub -pack).
type SubmitRequest struct {
	Jobs []*JobSpec `wire:"1"`
	// Key makes the request idempotent: bsub sends a random key and sends
	// the request again with it when the answer was lost (the connection
	// broke, the master moved); mbatchd answers a repeated key of the same
	// user with the jobs the first request created instead of creating
	// them again.
	Key string `wire:"2"`
}

// SubmitResult is the outcome of one submission.
type SubmitResult struct {
	JobID        int64    `wire:"1"`
	Queue        string   `wire:"2"`
	DefaultQueue bool     `wire:"3"` // "submitted to default queue <q>"
	Status       *Status  `wire:"4"`
	Warnings     []string `wire:"5"`
}

// SubmitReply answers a SubmitRequest, one result per job, in order.
type SubmitReply struct {
	Results []*SubmitResult `wire:"1"`
}

// JobsRequest selects jobs for bjobs, bhist and bacct.
type JobsRequest struct {
	Jobs            []*JobRef `wire:"1"` // explicit IDs: finished jobs included without -a
	User            string    `wire:"2"` // "": the requester; "all"; a user or user group
	Queue           string    `wire:"3"`
	Host            string    `wire:"4"` // host or host group
	JobName         string    `wire:"5"` // may end in *
	Project         string    `wire:"6"`
	StateMask       uint32    `wire:"7"` // JobState bits wanted; 0: unfinished jobs
	IncludeFinished bool      `wire:"8"` // -a
	Detail          bool      `wire:"9"` // -l
	ArraySummary    bool      `wire:"10"`
	Since           int64     `wire:"11"` // bhist/bacct -S: submitted from (Unix seconds; 0: open)
	Until           int64     `wire:"12"` // -S: submitted until
	PendHosts       bool      `wire:"13"` // -lp: host names per pending reason
	App             string    `wire:"14"` // -app: jobs of this application profile
	DispatchedFrom  int64     `wire:"15"` // bhist/bacct -D
	DispatchedTo    int64     `wire:"16"`
	CompletedFrom   int64     `wire:"17"` // bhist/bacct -C
	CompletedTo     int64     `wire:"18"`
	// Long (bjobs -l, or -o with combined_resreq) adds to each detailed
	// record its combined requirement and its thresholds, which cost a
	// requirement merge mbatchd does not make for -o alone.
	Long bool `wire:"19"`
	// UserGroup (-G), JobGroup (-g: the group and its subgroups), SLA
	// (-sla) and Description (-Jd, '*' matching any run of characters)
	// select jobs by what they were submitted with.
	UserGroup   string `wire:"20"`
	JobGroup    string `wire:"21"`
	SLA         string `wire:"22"`
	Description string `wire:"23"`
}

// JobsReply is one chunk of a job listing.
type JobsReply struct {
	Jobs     []*JobRecord `wire:"1"`
	NotFound []*JobRef    `wire:"2"`
}

// ControlOp is what a ControlRequest does.
type ControlOp int32

// Control operations.
const (
	OpKill       ControlOp = 1  // bkill
	OpStop       ControlOp = 2  // bstop
	OpResume     ControlOp = 3  // bresume
	OpRequeue    ControlOp = 4  // brequeue
	OpForceRun   ControlOp = 5  // brun
	OpSwitch     ControlOp = 6  // bswitch
	OpMoveTop    ControlOp = 7  // btop
	OpMoveBottom ControlOp = 8  // bbot
	OpMigrate    ControlOp = 9  // bmig
	OpChkpnt     ControlOp = 10 // bchkpnt
)

// ControlRequest acts on jobs.
type ControlRequest struct {
	Op              ControlOp `wire:"1"`
	Jobs            []*JobRef `wire:"2"`
	AllJobs         bool      `wire:"3"` // job ID 0
	User            string    `wire:"4"`
	Queue           string    `wire:"5"`
	Host            string    `wire:"6"`
	JobName         string    `wire:"7"`
	Signal          int32     `wire:"8"`  // bkill -s; 0: the TERMINATE action
	Remove          bool      `wire:"9"`  // bkill -r
	IncludeFinished bool      `wire:"10"` // bkill -d
	DestQueue       string    `wire:"11"` // bswitch
	Position        int32     `wire:"12"` // btop/bbot
	Hosts           []string  `wire:"13"` // brun -m
	Force           bool      `wire:"14"` // brun -f
	RequeueStates   uint32    `wire:"15"` // brequeue -d -e -r -a
	RequeueHold     bool      `wire:"16"` // brequeue -H
	Message         string    `wire:"17"`
	// App (-app), JobGroup (-g), SLA (-sla) and StateMask (bkill -stat:
	// JobState bits, 0 for any) narrow the jobs acted on, named or
	// selected.
	App       string `wire:"18"`
	JobGroup  string `wire:"19"`
	SLA       string `wire:"20"`
	StateMask uint32 `wire:"21"`
	// bchkpnt: -p (a new checkpoint period in seconds, 0 disables
	// periodic checkpoints; SetChkpntPeriod says -p was given), -k (kill
	// the job after a successful checkpoint), -f (force).
	ChkpntPeriod    int64 `wire:"30"`
	SetChkpntPeriod bool  `wire:"31"`
	ChkpntKill      bool  `wire:"32"`
	ChkpntForce     bool  `wire:"33"`
}

// ControlResult is the outcome for one job.
type ControlResult struct {
	Job    *JobRef `wire:"1"`
	Status *Status `wire:"2"`
	Detail string  `wire:"3"`
}

// ControlReply answers a ControlRequest.
type ControlReply struct {
	Results []*ControlResult `wire:"1"`
	Status  *Status          `wire:"2"`
}

// ModifyRequest changes a submitted job (bmod).
type ModifyRequest struct {
	Job   *JobRef  `wire:"1"`
	Spec  *JobSpec `wire:"2"` // new values for the options in Set
	Set   []string `wire:"3"` // bsub option names given ("q", "R", "W")
	Reset []string `wire:"4"` // options reset with -Xn ("Rn", "Wn")
}

// Threshold is one load index's loadSched/loadStop pair.
type Threshold struct {
	Index    string  `wire:"1"`
	Sched    float64 `wire:"2"`
	Stop     float64 `wire:"3"`
	HasSched bool    `wire:"4"`
	HasStop  bool    `wire:"5"`
}

// ShareAccount is one node of a fairshare tree as bqueues -l shows it.
type ShareAccount struct {
	Name     string  `wire:"1"` // user, or group name ending in "/"
	Shares   int32   `wire:"2"`
	Priority float64 `wire:"3"`
	Started  int32   `wire:"4"`
	Reserved int32   `wire:"5"`
	CPUTime  float64 `wire:"6"`
	RunTime  int64   `wire:"7"`
	Adjust   float64 `wire:"8"`
}

// KeyValue is one parameter.
type KeyValue struct {
	Key   string `wire:"1"`
	Value string `wire:"2"`
}

// QueueInfo is bqueues' view of a queue.
type QueueInfo struct {
	Name               string          `wire:"1"`
	Priority           int32           `wire:"2"`
	Nice               int32           `wire:"3"`
	Open               bool            `wire:"4"`
	Active             bool            `wire:"5"`
	InactiveByWindow   bool            `wire:"6"`
	InactiveByAdmin    bool            `wire:"7"`
	Max                int32           `wire:"8"` // QJOB_LIMIT, -1 unlimited
	JLU                int32           `wire:"9"`
	JLP                float64         `wire:"10"`
	JLH                int32           `wire:"11"`
	NJobs              int32           `wire:"12"`
	Pend               int32           `wire:"13"`
	Run                int32           `wire:"14"`
	SSusp              int32           `wire:"15"`
	USusp              int32           `wire:"16"`
	Rsv                int32           `wire:"17"`
	Description        string          `wire:"18"`
	Users              []string        `wire:"19"`
	Hosts              []string        `wire:"20"`
	Admins             []string        `wire:"21"`
	ResReq             string          `wire:"22"`
	Thresholds         []*Threshold    `wire:"23"`
	RunWindow          string          `wire:"24"`
	DispatchWindow     string          `wire:"25"`
	StopCond           string          `wire:"26"`
	ResumeCond         string          `wire:"27"`
	Shares             []*ShareAccount `wire:"28"`
	Preemption         string          `wire:"29"`
	SlotPool           string          `wire:"30"`
	SlotShare          int32           `wire:"31"`
	Params             []*KeyValue     `wire:"32"`
	SchedulingPolicies string          `wire:"33"`
	DefaultLimits      *Limits         `wire:"34"`
	MaxLimits          *Limits         `wire:"35"`
	ProcLimitMin       int32           `wire:"36"`
	ProcLimitDefault   int32           `wire:"37"`
	ProcLimitMax       int32           `wire:"38"`
	Mig                int32           `wire:"39"`
	JobStarter         string          `wire:"40"`
	PreExec            string          `wire:"41"`
	PostExec           string          `wire:"42"`
	RequeueExitValues  string          `wire:"43"`
	JobControls        string          `wire:"44"`
	// UserShares is the configured FAIRSHARE = USER_SHARES[...] list,
	// "[user, shares] ...", as bqueues -l shows it.
	UserShares string `wire:"45"`
	// GPUReq is GPU_REQ (bqueues -l).
	GPUReq string `wire:"120"`
}

// QueuesRequest selects queues (bqueues).
type QueuesRequest struct {
	Queues []string `wire:"1"`
	User   string   `wire:"2"`
	Host   string   `wire:"3"`
}

// QueuesReply answers a QueuesRequest.
type QueuesReply struct {
	Queues   []*QueueInfo `wire:"1"`
	NotFound []string     `wire:"2"`
}

// LoadValue is one index of bhosts -l's load tables.
type LoadValue struct {
	Index    string  `wire:"1"`
	Total    float64 `wire:"2"`
	Reserved float64 `wire:"3"`
	HasValue bool    `wire:"4"`
}

// HostInfo is bhosts' view of a batch host.
type HostInfo struct {
	Name           string       `wire:"1"`
	Status         string       `wire:"2"` // ok, closed_Adm, closed_Full, ..., unavail, unreach
	JLU            int32        `wire:"3"`
	Max            int32        `wire:"4"`
	NJobs          int32        `wire:"5"`
	Run            int32        `wire:"6"`
	SSusp          int32        `wire:"7"`
	USusp          int32        `wire:"8"`
	Rsv            int32        `wire:"9"`
	CPUF           float64      `wire:"10"`
	DispatchWindow string       `wire:"11"`
	Load           []*LoadValue `wire:"12"`
	Thresholds     []*Threshold `wire:"13"`
	Comment        string       `wire:"14"`
	Type           string       `wire:"15"`
	Model          string       `wire:"16"`
	NCPUs          int32        `wire:"17"`
	BusyIndices    []string     `wire:"18"`
	StatusTime     int64        `wire:"19"`
	// GPUs are the host's GPUs with the jobs allocated to each (bhosts
	// -gpu).
	GPUs []*HostGPU `wire:"80"`
}

// HostGPU is one GPU of a batch host and its use by jobs.
type HostGPU struct {
	Index    int32  `wire:"1"`
	Model    string `wire:"2"`
	MemTotal int64  `wire:"3"` // MB
	MemUsed  int64  `wire:"4"` // MB; unknown without nvidia-smi's usage
	MemRsv   int64  `wire:"5"` // MB reserved by jobs
	NJobs    int32  `wire:"6"`
	Run      int32  `wire:"7"`
	Susp     int32  `wire:"8"`
	Rsv      int32  `wire:"9"`
	// Exclusive: a job holds it with j_exclusive=yes.
	Exclusive bool `wire:"10"`
}

// HostsRequest selects hosts (bhosts).
type HostsRequest struct {
	Hosts  []string `wire:"1"`
	ResReq string   `wire:"2"`
}

// HostsReply answers a HostsRequest.
type HostsReply struct {
	Hosts    []*HostInfo `wire:"1"`
	NotFound []string    `wire:"2"`
}

// UserInfo is busers' view of a user or group.
type UserInfo struct {
	Name    string  `wire:"1"`
	Group   bool    `wire:"2"`
	JLP     float64 `wire:"3"`
	Max     int32   `wire:"4"`
	NJobs   int32   `wire:"5"`
	Pend    int32   `wire:"6"`
	Run     int32   `wire:"7"`
	SSusp   int32   `wire:"8"`
	USusp   int32   `wire:"9"`
	Rsv     int32   `wire:"10"`
	MaxPend int32   `wire:"11"`
}

// UsersRequest selects users (busers).
type UsersRequest struct {
	Users []string `wire:"1"`
}

// UsersReply answers a UsersRequest.
type UsersReply struct {
	Users    []*UserInfo `wire:"1"`
	NotFound []string    `wire:"2"`
}

// Group is a user or host group (bugroup, bmgroup).
type Group struct {
	Name    string          `wire:"1"`
	Members []string        `wire:"2"` // subgroups end in "/"
	Shares  []*ShareAccount `wire:"3"`
	Admins  []string        `wire:"4"`
}

// GroupsRequest selects groups.
type GroupsRequest struct {
	HostGroups bool     `wire:"1"` // bmgroup; else bugroup
	Names      []string `wire:"2"`
	Recursive  bool     `wire:"3"`
}

// GroupsReply answers a GroupsRequest.
type GroupsReply struct {
	Groups   []*Group `wire:"1"`
	NotFound []string `wire:"2"`
}

// ParamsRequest asks for the effective lsb.params.
type ParamsRequest struct{}

// ParamsReply lists parameters in LSF's order.
type ParamsReply struct {
	Params []*KeyValue `wire:"1"`
}

// HistoryEvent is one event in a job's life, as bhist prints it.
type HistoryEvent struct {
	Time       int64       `wire:"1"`
	Kind       string      `wire:"2"` // LSF event name: JOB_NEW, JOB_START, ...
	State      JobState    `wire:"3"`
	User       string      `wire:"4"`
	Hosts      []*ExecHost `wire:"5"`
	PID        int32       `wire:"6"`
	ExitStatus int32       `wire:"7"`
	Signal     string      `wire:"8"`
	Queue      string      `wire:"9"`
	Text       string      `wire:"10"`
	Reason     int32       `wire:"11"`
	Usage      *Usage      `wire:"12"`
}

// JobHistory is a job and its events.
type JobHistory struct {
	Job    *JobRecord      `wire:"1"`
	Events []*HistoryEvent `wire:"2"`
}

// HistoryReply is one chunk of bhist output.
type HistoryReply struct {
	Jobs     []*JobHistory `wire:"1"`
	NotFound []*JobRef     `wire:"2"`
}

// AdminOp is a badmin operation.
type AdminOp int32

// Admin operations.
const (
	AdminQOpen      AdminOp = 1
	AdminQClose     AdminOp = 2
	AdminQAct       AdminOp = 3
	AdminQInact     AdminOp = 4
	AdminHOpen      AdminOp = 5
	AdminHClose     AdminOp = 6
	AdminReconfig   AdminOp = 7
	AdminMbdRestart AdminOp = 8
	AdminHShutdown  AdminOp = 9  // badmin hshutdown: stop the hosts' sbatchd
	AdminHRestart   AdminOp = 10 // badmin hrestart: restart the hosts' sbatchd
)

// AdminRequest runs a badmin operation on queues or hosts ("all" allowed).
type AdminRequest struct {
	Op      AdminOp  `wire:"1"`
	Targets []string `wire:"2"`
	Message string   `wire:"3"` // -C
}

// AdminResult is the outcome for one target.
type AdminResult struct {
	Target string  `wire:"1"`
	Status *Status `wire:"2"`
}

// AdminReply answers an AdminRequest.
type AdminReply struct {
	Results  []*AdminResult `wire:"1"`
	Status   *Status        `wire:"2"`
	Messages []string       `wire:"3"`
}

// InfoRequest asks mbatchd to describe the cluster.
type InfoRequest struct{}

// InfoReply describes the cluster (lsid, lsclusters).
type InfoReply struct {
	Cluster    string   `wire:"1"`
	Master     string   `wire:"2"`
	Admins     []string `wire:"3"`
	NumHosts   int32    `wire:"4"`
	NumServers int32    `wire:"5"`
	Version    string   `wire:"6"`
	StartTime  int64    `wire:"7"`
}

// SharedResourcesRequest asks for the cluster's shared numeric resources
// (bhosts -s); Names empty: all of them.
type SharedResourcesRequest struct {
	Names []string `wire:"1"`
}

// BatchSharedInstance is one instance of a shared resource: the hosts sharing
// it, its current value (LIM's, or the configured one) and what running
// and pending jobs reserve of it.
type BatchSharedInstance struct {
	Hosts    []string `wire:"1"`
	Total    float64  `wire:"2"`
	HasTotal bool     `wire:"3"`
	Reserved float64  `wire:"4"`
}

// BatchSharedResource is a shared resource and its instances.
type BatchSharedResource struct {
	Name      string                 `wire:"1"`
	Instances []*BatchSharedInstance `wire:"2"`
}

// SharedResourcesReply answers a SharedResourcesRequest.
type SharedResourcesReply struct {
	Resources []*BatchSharedResource `wire:"1"`
	NotFound  []string               `wire:"2"`
}

// PartitionsRequest selects host partitions (bhpart); Names empty: all.
type PartitionsRequest struct {
	Names []string `wire:"1"`
}

// HostPartitionInfo is a host partition with its fairshare accounts.
type HostPartitionInfo struct {
	Name   string          `wire:"1"`
	Hosts  []string        `wire:"2"`
	Shares []*ShareAccount `wire:"3"`
}

// PartitionsReply answers a PartitionsRequest.
type PartitionsReply struct {
	Partitions []*HostPartitionInfo `wire:"1"`
	NotFound   []string             `wire:"2"`
}

// ApplicationsRequest selects application profiles (bapp); Names empty:
// all.
type ApplicationsRequest struct {
	Names []string `wire:"1"`
}

// ApplicationInfo is an lsb.applications profile with the counts of its
// unfinished jobs (slots, as bqueues counts them).
type ApplicationInfo struct {
	Name              string  `wire:"1"`
	Description       string  `wire:"2"`
	NJobs             int32   `wire:"3"`
	Pend              int32   `wire:"4"`
	Run               int32   `wire:"5"`
	SSusp             int32   `wire:"6"`
	USusp             int32   `wire:"7"`
	Rsv               int32   `wire:"8"`
	ResReq            string  `wire:"9"`
	Limits            *Limits `wire:"10"`
	PreExec           string  `wire:"11"`
	PostExec          string  `wire:"12"`
	JobStarter        string  `wire:"13"`
	RequeueExitValues string  `wire:"14"`
	SuccessExitValues string  `wire:"15"`
	MaxJobPreempt     int32   `wire:"16"`
	// Nice is set when HasNice (NICE may be 0).
	Nice        int32  `wire:"17"`
	HasNice     bool   `wire:"18"`
	Rerunnable  string `wire:"19"` // "yes", "no" or "" (the queue's)
	JobControls string `wire:"20"` // "SUSPEND: [...] ..." as bqueues -l
	EnvVars     string `wire:"21"`
	TaskLimit   string `wire:"22"`  // "min default max", "" when unset
	GPUReq      string `wire:"120"` // GPU_REQ (bapp -l)
}

// ApplicationsReply answers an ApplicationsRequest.
type ApplicationsReply struct {
	Applications []*ApplicationInfo `wire:"1"`
	NotFound     []string           `wire:"2"`
}

// LeaderRequest asks an mbatchd replica who leads.
type LeaderRequest struct {
	// Digest asks for a digest of the replica's job state (LeaderReply.
	// Digest), to check that replicas agree; it costs a walk of every job.
	Digest bool `wire:"1"`
}

// LeaderReply is a replica's view of the master's raft group.
type LeaderReply struct {
	Host   string `wire:"1"` // the answering replica's host
	Leader string `wire:"2"` // the leader's host; "" while none is known
	// IsLeader: the answering replica leads and serves requests (it has
	// applied what earlier leaders committed).
	IsLeader bool     `wire:"3"`
	Term     uint64   `wire:"4"`
	Applied  uint64   `wire:"5"` // the replica's last applied raft index
	Commit   uint64   `wire:"6"` // the last index it knows committed
	Replicas []string `wire:"7"` // the raft configuration's voters, by host
	// Digest (when asked) summarises every job's ID, state, queue, user,
	// hosts and run count as of the applied index DigestIndex: replicas
	// at the same index must have the same digest.
	Digest      uint64 `wire:"8"`
	DigestIndex uint64 `wire:"9"`
}

// JobGroupRequest is bgadd, bgmod or bgdel (Op as EvJobGroup's).
type JobGroupRequest struct {
	Op         JobGroupOp `wire:"1"`
	Path       string     `wire:"2"`
	HasLimit   bool       `wire:"3"` // -L
	Limit      int32      `wire:"4"`
	ClearLimit bool       `wire:"5"` // bgmod -Ln
	Owner      string     `wire:"6"` // bgmod -u
}

// JobGroupsRequest is bjgroup.
type JobGroupsRequest struct {
	Path string `wire:"1"` // "" every group; with -s a group and its subgroups
	// Slots: -N counts slots, not jobs.
	Slots bool `wire:"2"`
}

// JobGroupInfo is one line of bjgroup: counts over the group and its
// subgroups.
type JobGroupInfo struct {
	Path     string `wire:"1"`
	Owner    string `wire:"2"`
	HasLimit bool   `wire:"3"`
	Limit    int32  `wire:"4"`
	NJobs    int32  `wire:"5"`
	Pend     int32  `wire:"6"`
	Run      int32  `wire:"7"`
	SSusp    int32  `wire:"8"`
	USusp    int32  `wire:"9"`
	Finish   int32  `wire:"10"`
	// Started counts the started jobs (RUN, SSUSP, USUSP) the limit
	// counts, whatever -N says.
	Started int32 `wire:"11"`
}

// JobGroupsReply answers a JobGroupsRequest, groups in path order.
type JobGroupsReply struct {
	Groups []*JobGroupInfo `wire:"1"`
}

// SysHistoryRequest is badmin hist, mbdhist, qhist or hhist: which records
// of the current event file (Kind as eventlog.SysKind), for which queues or
// hosts, in which window (Unix seconds; To 0: none).
type SysHistoryRequest struct {
	Kind  int32    `wire:"1"`
	Names []string `wire:"2"`
	From  int64    `wire:"3"`
	To    int64    `wire:"4"`
}

// SysHistoryLine is one line of badmin hist: a time and what happened.
type SysHistoryLine struct {
	Time int64  `wire:"1"` // Unix seconds
	Text string `wire:"2"`
}

// SysHistoryReply answers a SysHistoryRequest, in event order.
type SysHistoryReply struct {
	Lines []*SysHistoryLine `wire:"1"`
	// Bad counts records that did not parse (skipped).
	Bad int32 `wire:"2"`
}
