package sbdwire

// Params is what sbatchd tells a job's shepherd beyond the api.JobLaunch:
// where things are on this host, who the job runs as, and sbatchd's
// parameters.
type Params struct {
	Host     string `wire:"1"`
	Cluster  string `wire:"2"`
	SpoolDir string `wire:"3"` // the job's spool directory
	// Execution account.
	User    string  `wire:"4"`
	UID     int32   `wire:"5"`
	GID     int32   `wire:"6"`
	Groups  []int32 `wire:"7"`
	Home    string  `wire:"8"`
	Shell   string  `wire:"9"`
	SetCred bool    `wire:"10"` // switch to the account (sbatchd runs as root)
	// Cgroups: the group CgroupName under CgroupParent; "" parent means
	// process-group tracking only.
	CgroupParent string `wire:"11"`
	CgroupName   string `wire:"12"`
	// ExecArgv is the argv prefix of the helper that sets up job processes
	// ("basaltd job-shepherd"); the shepherd appends "-exec" or "-append".
	ExecArgv          []string `wire:"13"`
	TerminateInterval int64    `wire:"14"` // JOB_TERMINATE_INTERVAL, nanoseconds
	SampleInterval    int64    `wire:"15"` // usage sampling period, nanoseconds
	ServerDir         string   `wire:"16"` // LSF_SERVERDIR (eexec)
	ExtraEnv          []string `wire:"17"` // LSF_ENVDIR=..., LSF_SERVERDIR=... for every job
	JobCPULimit       int32    `wire:"18"` // LSB_JOB_CPULIMIT: 0 unset, 1 y, 2 n
	MemLimitEnforce   bool     `wire:"19"` // LSB_RESOURCE_ENFORCE memory: cgroup hard limit
	// GPUDevices is the v1 devices hierarchy's mount point when
	// LSB_RESOURCE_ENFORCE has "gpu": a GPU job's processes then join a
	// devices group of their own that allows only their GPUs.
	GPUDevices string `wire:"80"`
	SocketName string `wire:"20"` // abstract unix socket of the shepherd
	EexecInput []byte `wire:"21"` // esub's standard output, for eexec's standard input
	Admin      string `wire:"22"` // primary LSF administrator (the report's sender)
	// ExecPath is the program ExecArgv runs (ExecArgv[0] is only its
	// argv[0]); "" means ExecArgv[0].
	ExecPath string `wire:"23"`
	// UserDir is the job's user directory (spool.UserDir); "" means job/
	// in the spool directory.
	UserDir string `wire:"24"`
	// SpoolTraversable: sbatchd made the spool directory mode 0711 (job
	// users reach their directory in it).
	SpoolTraversable bool `wire:"25"`
	// Job mail (lsf.conf): MailProg is LSB_MAILPROG ("" sends no mail),
	// MailTo LSB_MAILTO, MailSizeLimit LSB_MAILSIZE_LIMIT in KB (0 none).
	// Numbered from 41 so that fields added beside them in parallel do not
	// collide.
	MailProg      string `wire:"41"`
	MailTo        string `wire:"42"`
	MailSizeLimit int64  `wire:"43"`
}

// Command operations.
const (
	OpSuspend    = 1 // SUSPEND action; User marks a bstop (USUSP)
	OpResume     = 2 // RESUME action
	OpTerminate  = 3 // TERMINATE action (with escalation)
	OpSignal     = 4 // send Signal to every job process
	OpUserResume = 5 // bresume of a USUSP job: becomes SSUSP, resumed later by load
	OpPersist    = 6 // rewrite the spool files (sbatchd lost them)
	OpChkpnt     = 7 // run echkpnt; the Ack comes when it ends (when it starts with ChkpntReq)
	OpResize     = 8 // run the resize notification command; the Ack comes when it ends
)

// Command is what sbatchd asks of a shepherd. The shepherd answers every
// command with an Ack of the same Seq.
type Command struct {
	Op            int32  `wire:"1"`
	Signal        int32  `wire:"2"`
	SuspReasons   int32  `wire:"3"`
	SuspSubreason int32  `wire:"4"`
	TermReason    string `wire:"5"`
	Requeue       bool   `wire:"6"` // brequeue: the run ends requeued
	User          bool   `wire:"7"` // suspended by a user or administrator (USUSP)
	Seq           uint64 `wire:"8"`
	// OpChkpnt: kill the job after a successful checkpoint (TERM_CHKPNT;
	// Requeue: the run ends requeued, bmig), echkpnt -f.
	ChkpntKill  bool `wire:"9"`
	ChkpntForce bool `wire:"10"`
	// OpResize: the notification command and the variables it gets over
	// the job's environment (LSB_RESIZE_*, the new LSB_HOSTS...).
	ResizeCmd string   `wire:"100"`
	ResizeEnv []string `wire:"101"`
	// ChkpntReq is mbatchd's request number (api.JobSignal.ChkpntReq): the
	// shepherd acknowledges at once and keeps the outcome in its status.
	ChkpntReq int64 `wire:"140"`
}

// Ack answers a Command; Err is empty on success.
type Ack struct {
	Seq uint64 `wire:"1"`
	Err string `wire:"2"`
	PID int32  `wire:"3"` // OpChkpnt: echkpnt's PID
}

// ExecSpec tells the helper how to become a job process: join the job's
// cgroups, open its files, switch to the job's account and execute Argv.
type ExecSpec struct {
	Argv []string `wire:"1"`
	Env  []string `wire:"2"`
	// Dirs are candidate working directories, tried in order as the job
	// user; the first that works is used.
	Dirs    []string  `wire:"3"`
	SetCred bool      `wire:"4"`
	UID     int32     `wire:"5"`
	GID     int32     `wire:"6"`
	Groups  []int32   `wire:"7"`
	Umask   uint32    `wire:"8"`
	SetMask bool      `wire:"9"`
	Rlimits []*Rlimit `wire:"10"`
	// Cgroups are cgroup.procs files to write the helper's PID to.
	Cgroups []string `wire:"11"`
	Setpgid bool     `wire:"12"`
	// Standard streams; nil means /dev/null.
	Stdin          *FileSpec `wire:"13"`
	Stdout         *FileSpec `wire:"14"`
	Stderr         *FileSpec `wire:"15"`
	StderrToStdout bool      `wire:"16"`
	// Eexec runs (LS_EXEC_T=START) before Argv is executed, with
	// EexecInput on its standard input.
	Eexec      string `wire:"17"`
	EexecInput string `wire:"18"`
	// 19: reserved (was Append).
	// SetJobPID adds LS_JOBPID and LSB_JOBPIDS (the helper's own PID, which
	// the executed job keeps) to Env.
	SetJobPID bool  `wire:"20"`
	Nice      int32 `wire:"21"`
}

// Rlimit is one setrlimit(2) call.
type Rlimit struct {
	Resource int32  `wire:"1"`
	Cur      uint64 `wire:"2"`
	Max      uint64 `wire:"3"`
}

// FileSpec is a file a job process opens as the job user. A relative Path
// is relative to the working directory chosen.
type FileSpec struct {
	Path   string `wire:"1"`
	Append bool   `wire:"2"` // output: append (else truncate)
	Read   bool   `wire:"3"` // input
	// DirName is the name used inside Path when Path is a directory
	// (LSF's <jobid>.out / <jobid>.err).
	DirName string `wire:"4"`
	// Fallback is opened (append) when Path cannot be; "" means fail.
	Fallback string `wire:"5"`
}

// ExecResult is what the helper reports before executing the job (or
// instead of it): the directory and files it used, or why it failed.
type ExecResult struct {
	Dir    string `wire:"1"`
	Stdout string `wire:"2"` // file actually opened
	Stderr string `wire:"3"`
	// OpenErrors describe requested files that could not be opened (the
	// fallback was used).
	OpenErrors []string `wire:"4"`
	Err        string   `wire:"5"` // set when the helper failed
	Errno      int32    `wire:"6"`
	Step       string   `wire:"7"` // what failed: cgroup, cred, dir, stdin, exec...
	// StdoutStart is the size Stdout had when it was opened: where the
	// run's output begins in a file appended to.
	StdoutStart int64 `wire:"8"`
}

// Messages between sbatchd and the host's shepherd process (the process
// that runs every job's shepherd on the host), on the host socket.

// HostHello is the first message of a shepherd host on a new connection.
type HostHello struct {
	PID int32 `wire:"1"`
	// Build identifies the program the host runs (size and modification
	// time of its executable): sbatchd retires a host running another
	// build than its own shepherd program.
	Build string `wire:"2"`
	Jobs  int32  `wire:"3"` // jobs it serves now
}

// Host request operations.
const (
	HostOpStart = 1 // start the shepherd of the job spooled in SpoolDir
	// HostOpRetire: accept no more jobs (the host socket is closed at
	// once) and exit when the last job's shepherd is done.
	HostOpRetire = 2
)

// HostRequest is what sbatchd asks of a shepherd host; each is answered by
// a HostReply of the same Seq.
type HostRequest struct {
	Seq      uint64 `wire:"1"`
	Op       int32  `wire:"2"`
	SpoolDir string `wire:"3"`
	// Launch and Params are the job's api.JobLaunch and Params, encoded
	// (as in the spool's files, which the host then does not read).
	Launch []byte `wire:"4"`
	Params []byte `wire:"5"`
}

// HostReply answers a HostRequest; Err is empty on success.
type HostReply struct {
	Seq uint64 `wire:"1"`
	PID int32  `wire:"2"` // the host's PID
	Err string `wire:"3"`
	// Running: the job already has a live shepherd (its socket is taken).
	Running bool `wire:"4"`
}
