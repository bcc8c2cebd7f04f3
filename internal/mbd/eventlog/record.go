package eventlog

import (
	"strconv"
	"strings"
)

// Version is the version string Basalt writes in every record. Clients key
// their field positions on it; "10.1" is IBM Spectrum LSF 10.1's.
const Version = "10.1"

// Event type names, as the first field of a record (lsbatch.h EVENT_*).
const (
	TypeJobNew         = "JOB_NEW"          // 1
	TypeJobStart       = "JOB_START"        // 2
	TypeJobStatus      = "JOB_STATUS"       // 3
	TypeJobSwitch      = "JOB_SWITCH"       // 4
	TypeJobMove        = "JOB_MOVE"         // 5
	TypeQueueCtrl      = "QUEUE_CTRL"       // 6
	TypeHostCtrl       = "HOST_CTRL"        // 7
	TypeMbdDie         = "MBD_DIE"          // 8
	TypeJobFinish      = "JOB_FINISH"       // 10, lsb.acct only
	TypeMbdStart       = "MBD_START"        // 15
	TypeJobSignal      = "JOB_SIGNAL"       // 17
	TypeJobExecute     = "JOB_EXECUTE"      // 18
	TypeJobRequeue     = "JOB_REQUEUE"      // 21
	TypeJobStartAccept = "JOB_START_ACCEPT" // 24
	TypeJobClean       = "JOB_CLEAN"        // 25
	TypeJobForce       = "JOB_FORCE"        // 26
	TypeLogSwitch      = "LOG_SWITCH"       // 27
	TypeJobModify2     = "JOB_MODIFY2"      // 28
	TypeJobForward     = "JOB_FORWARD"      // 11, MultiCluster
)

// Record is one line of lsb.events or lsb.acct.
type Record struct {
	Type    string // JOB_NEW, JOB_STATUS...
	Version string // "10.1" for Basalt's own records
	Time    int64  // event time, Unix seconds
	// Log is the typed payload: *JobNew, *JobStart, ... for the types this
	// package knows, *Unknown for any other.
	Log Log
}

// Log is the payload of a record. The concrete types are this package's
// (JobNew ... JobFinish, Unknown).
type Log interface {
	// fields visits the record's fields after the event time, in file order.
	fields(c coder)
}

// JobID returns the job ID and array index a record is about; ok is false for
// records that are not about one job (QUEUE_CTRL, MBD_START...).
func (r *Record) JobID() (id int64, idx int32, ok bool) {
	switch l := r.Log.(type) {
	case *JobNew:
		return l.JobID, int32(l.Idx), true
	case *JobStart:
		return l.JobID, int32(l.Idx), true
	case *JobStartAccept:
		return l.JobID, int32(l.Idx), true
	case *JobExecute:
		return l.JobID, int32(l.Idx), true
	case *JobStatus:
		return l.JobID, int32(l.Idx), true
	case *JobSwitch:
		return l.JobID, int32(l.Idx), true
	case *JobMove:
		return l.JobID, int32(l.Idx), true
	case *JobSignal:
		return l.JobID, int32(l.Idx), true
	case *JobRequeue:
		return l.JobID, int32(l.Idx), true
	case *JobClean:
		return l.JobID, int32(l.Idx), true
	case *JobForce:
		return l.JobID, int32(l.Idx), true
	case *JobSigAct:
		return l.JobID, int32(l.Idx), true
	case *Chkpnt:
		return l.JobID, int32(l.Idx), true
	case *Mig:
		return l.JobID, int32(l.Idx), true
	case *JobForward:
		return l.JobID, int32(l.Idx), true
	case *JobModify2:
		id, idx, err := ParseJobIDStr(l.JobIDStr)
		return id, idx, err == nil
	case *JobFinish:
		return l.JobID, int32(l.Idx), true
	case *JobResizeNotifyStart:
		return l.JobID, int32(l.Idx), true
	case *JobResizeRelease:
		return l.JobID, int32(l.Idx), true
	case *JobResizeCancel:
		return l.JobID, int32(l.Idx), true
	}
	return 0, 0, false
}

// ParseJobIDStr parses JOB_MODIFY2's job ID string: "123" or "123[4]".
func ParseJobIDStr(s string) (id int64, idx int32, err error) {
	base, rest, arr := strings.Cut(s, "[")
	id, err = strconv.ParseInt(base, 10, 64)
	if err != nil {
		return 0, 0, err
	}
	if arr {
		n, err := strconv.ParseInt(strings.TrimSuffix(rest, "]"), 10, 32)
		if err != nil {
			return 0, 0, err
		}
		idx = int32(n)
	}
	return id, idx, nil
}

// Resource limits, in LSF's rLimits order (lsf.h LSF_RLIMIT_*): the 11
// values JOB_NEW and JOB_MODIFY2 carry. -1 is "no limit".
const (
	RlimitCPU     = 0 // seconds (normalized)
	RlimitFSize   = 1 // KB in Basalt's records (see JobNew.Options)
	RlimitData    = 2
	RlimitStack   = 3
	RlimitCore    = 4
	RlimitRSS     = 5 // memory limit, -M
	RlimitNoFile  = 6
	RlimitOpenMax = 7
	RlimitSwap    = 8 // VMEM, -v
	RlimitRun     = 9 // seconds
	RlimitProcess = 10
	NumRlimits    = 11
)

// SUB_* option bits of JOB_NEW, JOB_MODIFY2 and JOB_FINISH (volclava
// lsbatch/lsbatch.h; the same values in IBM LSF's lsbatch.h).
const (
	SubJobName      = 0x01
	SubQueue        = 0x02
	SubHost         = 0x04
	SubInFile       = 0x08
	SubOutFile      = 0x10
	SubErrFile      = 0x20
	SubExclusive    = 0x40
	SubNotifyEnd    = 0x80
	SubNotifyBegin  = 0x100
	SubUserGroup    = 0x200
	SubChkpntPeriod = 0x400
	SubChkpntDir    = 0x800
	SubRerunnable   = 0x4000
	SubHostSpec     = 0x10000
	SubDependCond   = 0x20000
	SubResReq       = 0x40000
	SubOtherFiles   = 0x80000
	SubPreExec      = 0x100000
	SubLoginShell   = 0x200000
	SubMailUser     = 0x400000
	SubProjectName  = 0x2000000
	SubInteractive  = 0x4000000
	SubPty          = 0x8000000
	SubPtyShell     = 0x10000000
	SubPostExec     = 0x40000000
	// SubRlimitUnitIsKB (bit 31) says the size limits are in KB; without it
	// OpenLava-era files hold bytes (lsb.log.c convertRLimit). Basalt writes
	// KB and sets it.
	SubRlimitUnitIsKB = -0x80000000

	Sub2Hold        = 0x01
	Sub2ModifyCmd   = 0x02
	Sub2BsubBlock   = 0x04
	Sub2InFileSpool = 0x80
	Sub2JobCmdSpool = 0x100
	Sub2JobPriority = 0x200
	// Sub2JobDesc is volclava's bit for the job description in JOB_MODIFY2.
	Sub2JobDesc = 0x2000
)

// XFile operations (bsub -f), lsbatch.h XF_OP_*.
const (
	XFSub2Exec       = 0x1 // >
	XFExec2Sub       = 0x2 // <
	XFSub2ExecAppend = 0x4 // not used by bsub -f; kept for parsing
	XFExec2SubAppend = 0x8 // <<
)

// XFile is one bsub -f transfer.
type XFile struct {
	SubFn   string
	ExecFn  string
	Options int64
}

// KV is one key/value pair of a record's extension list.
type KV struct {
	Key   string
	Value string
}

// Lookup returns the value of key in kvs.
func Lookup(kvs []KV, key string) (string, bool) {
	for _, kv := range kvs {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return "", false
}

// Rusage is LSF's lsfRusage: the 19 numbers of getrusage(2) as LSF logs
// them, -1 where unavailable. Times in seconds, sizes in KB.
type Rusage struct {
	UTime, STime                            float64
	MaxRSS, IXRSS, ISMRSS, IDRSS, ISRSS     float64
	MinFlt, MajFlt, NSwap, InBlock, OuBlock float64
	IOCh, MsgSnd, MsgRcv, NSignals          float64
	NVCSW, NIVCSW, ExUTime                  float64
}

// HostRusage is one host's usage in JOB_STATUS and JOB_FINISH (IBM).
type HostRusage struct {
	Host                    string
	Mem, Swap, UTime, STime int64
}

// JobNew is JOB_NEW: a submission.
type JobNew struct {
	JobID            int64
	UserID           int64
	Options          int64
	NumProcessors    int64
	SubmitTime       int64
	BeginTime        int64
	TermTime         int64
	SigValue         int64
	ChkpntPeriod     int64
	RestartPID       int64
	UserName         string
	RLimits          [NumRlimits]int64
	HostSpec         string
	HostFactor       float64
	Umask            int64
	Queue            string
	ResReq           string
	FromHost         string
	Cwd              string
	ChkpntDir        string
	InFile           string
	OutFile          string
	ErrFile          string
	SubHomeDir       string
	JobFile          string
	AskedHosts       []string
	DependCond       string
	PreExecCmd       string
	PostExecCmd      string // in the record only for OpenLava-era versions
	JobName          string
	Command          string
	XFiles           []XFile
	MailUser         string
	ProjectName      string
	NiosPort         int64
	MaxNumProcessors int64
	SchedHostType    string
	LoginShell       string
	UserGroup        string // IBM/Platform layouts only
	ExceptList       string // IBM/Platform layouts only
	Options2         int64
	Idx              int64
	InFileSpool      string
	CommandSpool     string
	JobSpoolDir      string
	UserPriority     int64
	JobDesc          string // volclava 2.2 (OpenLava-era layouts only)
	// Ext is Basalt's extension list (IBM layout), after userPriority: the
	// submission parameters LSF 10 logs in fields whose order is not
	// documented (application, job group, post-exec...).
	Ext []KV
}

// JobStart is JOB_START: a dispatch decision.
type JobStart struct {
	JobID        int64
	JStatus      int64
	JobPID       int64
	JobPGID      int64
	HostFactor   float64
	ExecHosts    []string // one name per slot
	QueuePreCmd  string
	QueuePostCmd string
	JFlags       int64
	UserGroup    string // IBM layout (and OpenLava 4's trailing field)
	Idx          int64
	// AdditionalInfo, Duration4PreemptBackfill, JFlags2: IBM layout.
	AdditionalInfo           string
	Duration4PreemptBackfill int64
	JFlags2                  int64
	// EffectiveResReq is volclava 2.2's trailing effeResReq; in Basalt's
	// records it is the "effResReq" extension.
	EffectiveResReq string
	Ext             []KV
}

// JobStartAccept is JOB_START_ACCEPT: the execution host started the job.
type JobStartAccept struct {
	JobID   int64
	JobPID  int64
	JobPGID int64
	Idx     int64
}

// JobExecute is JOB_EXECUTE: the job's processes run as the execution user.
type JobExecute struct {
	JobID        int64
	ExecUID      int64
	JobPGID      int64
	ExecCwd      string
	ExecHome     string
	ExecUsername string
	JobPID       int64
	Idx          int64
}

// JobStatus is JOB_STATUS: a state change after submission.
type JobStatus struct {
	JobID      int64
	JStatus    int64
	Reason     int64
	Subreasons int64
	CPUTime    float64
	EndTime    int64
	Rusage     *Rusage // logged when set (ru 1)
	ExitStatus int64   // wait(2) status
	Idx        int64
	// ExitInfo (the TERM_* code) and HostRusage: IBM layout.
	ExitInfo   int64
	HostRusage []HostRusage
	MaxMem     int64 // KB
	AvgMem     int64 // KB
}

// JobSwitch is JOB_SWITCH: bswitch.
type JobSwitch struct {
	UserID   int64
	JobID    int64
	Queue    string
	Idx      int64
	UserName string
}

// JOB_MOVE bases.
const (
	ToTop    = 1
	ToBottom = 2
)

// JobMove is JOB_MOVE: btop, bbot.
type JobMove struct {
	UserID   int64
	JobID    int64
	Position int64
	Base     int64 // ToTop, ToBottom
	Idx      int64
	UserName string
}

// QueueCtrl is QUEUE_CTRL: badmin qopen/qclose/qact/qinact.
type QueueCtrl struct {
	OpCode   int64 // api.QueueOpen...
	Queue    string
	UserID   int64
	UserName string
	Message  string // ctrlComments (badmin -C)
}

// HostCtrl is HOST_CTRL: badmin hopen/hclose.
type HostCtrl struct {
	OpCode   int64 // api.HostOpen, api.HostClose; 3 reboot, 4 shutdown
	Host     string
	UserID   int64
	UserName string
	Message  string
}

// MbdStart is MBD_START.
type MbdStart struct {
	Master    string
	Cluster   string
	NumHosts  int64
	NumQueues int64
}

// MbdDie is MBD_DIE.
type MbdDie struct {
	Master        string
	NumRemoveJobs int64
	ExitCode      int64
	Message       string
}

// JobSignal is JOB_SIGNAL: bkill, bstop, bresume and system signals.
type JobSignal struct {
	JobID        int64
	UserID       int64
	RunCount     int64
	SignalSymbol string
	Idx          int64
	UserName     string
}

// JobRequeue is JOB_REQUEUE.
type JobRequeue struct {
	JobID int64
	Idx   int64
}

// JobClean is JOB_CLEAN: a finished job leaves mbatchd's memory.
type JobClean struct {
	JobID int64
	Idx   int64
}

// JobForward is JOB_FORWARD: a pending job forwarded to another cluster
// (MultiCluster job forwarding; LSF's fields, no reserved hosts here).
type JobForward struct {
	JobID      int64
	ReserHosts []string
	Cluster    string
	Idx        int64
	JobRmtAttr int64
}

// JobForce is JOB_FORCE: brun.
type JobForce struct {
	JobID     int64
	UserID    int64
	Idx       int64
	Options   int64 // RUNJOB_OPT_*
	ExecHosts []string
	UserName  string
}

// brun options (lsbatch.h RUNJOB_OPT_*).
const (
	RunJobOptNormal = 0x01
	RunJobOptNoStop = 0x02
)

// LogSwitch is LOG_SWITCH: the first record of a new lsb.events.
type LogSwitch struct {
	LastJobID int64
}

// JobModify2 is JOB_MODIFY2: bmod. Which fields are present depends on the
// option bits (lsb.log.c writeJobMod).
type JobModify2 struct {
	JobIDStr         string
	Options          int64
	Options2         int64
	DelOptions       int64
	UserID           int64
	UserName         string
	SubmitTime       int64
	Umask            int64
	NumProcessors    int64
	BeginTime        int64
	TermTime         int64
	SigValue         int64
	RestartPID       int64
	JobName          string
	Queue            string
	AskedHosts       []string
	ResReq           string
	RLimits          [NumRlimits]int64
	HostSpec         string
	DependCond       string
	SubHomeDir       string
	InFile           string
	OutFile          string
	ErrFile          string
	Command          string
	ChkpntPeriod     int64
	ChkpntDir        string
	XFiles           []XFile
	JobFile          string
	FromHost         string
	Cwd              string
	PreExecCmd       string
	PostExecCmd      string
	MailUser         string
	ProjectName      string
	NiosPort         int64
	MaxNumProcessors int64
	LoginShell       string
	SchedHostType    string
	DelOptions2      int64
	InFileSpool      string
	CommandSpool     string
	UserPriority     int64
	JobDesc          string
	Ext              []KV // Basalt extension
}

// IndexRange is one element range of JOB_FINISH's indexRange list.
type IndexRange struct{ Start, End, Step int64 }

// Network is one networkAlloc entry of JOB_FINISH.
type Network struct {
	ID        string
	NumWindow int64
}

// GPURusage is one gRusage entry of JOB_FINISH.
type GPURusage struct {
	Host string
	KVs  []KV
}

// JobFinish is lsb.acct's JOB_FINISH. The fields after LoginShell are those
// of IBM LSF 10.1's lsb.acct, in its order.
type JobFinish struct {
	JobID            int64
	UserID           int64
	Options          int64
	NumProcessors    int64
	SubmitTime       int64
	BeginTime        int64
	TermTime         int64
	StartTime        int64 // dispatch time
	UserName         string
	Queue            string
	ResReq           string
	DependCond       string
	PreExecCmd       string
	FromHost         string
	Cwd              string
	InFile           string
	OutFile          string
	ErrFile          string
	JobFile          string
	AskedHosts       []string
	ExecHosts        []string // one name per slot
	JStatus          int64    // 32 EXIT, 64 DONE
	HostFactor       float64
	JobName          string
	Command          string
	Rusage           Rusage
	MailUser         string
	ProjectName      string
	ExitStatus       int64
	MaxNumProcessors int64
	LoginShell       string
	TimeEvent        string
	Idx              int64
	MaxRMem          int64
	MaxRSwap         int64
	InFileSpool      string
	CommandSpool     string
	RsvID            string
	SLA              string
	ExceptMask       int64
	AdditionalInfo   string
	ExitInfo         int64
	WarningAction    string
	WarningTime      int64
	ChargedSAAP      string
	LicenseProject   string
	App              string
	// PostExecCmd is logged here in IBM layouts, after preExecCmd (when
	// SUB_POST_EXEC is set) in OpenLava's.
	PostExecCmd        string
	RuntimeEstimation  int64
	JobGroupName       string
	RequeueEValues     string
	Options2           int64
	ResizeNotifyCmd    string
	LastResizeTime     int64
	RsvID2             string // rsvId's second position (long reservation names)
	JobDescription     string
	SubmitExt          []KV // IBM submitEXT: integer keys
	HostRusage         []HostRusage
	Options3           int64
	RunLimit           int64
	AvgMem             int64
	EffectiveResReq    string
	SrcCluster         string
	SrcJobID           int64
	DstCluster         string
	DstJobID           int64
	ForwardTime        int64
	FlowID             string
	AcJobWaitTime      int64
	TotalProvisionTime int64
	OutDir             string
	RunTime            int64
	SubCwd             string
	Networks           []Network
	Affinity           string
	SerialJobEnergy    float64
	CPI, GIPS          float64
	GBS, GFLOPS        float64
	AllocSlots         []string
	IneligiblePendTime int64
	IndexRanges        []IndexRange
	RequeueTime        int64
	GPURusages         []GPURusage
	StorageInfo        []string
	// Ext is the final key/value list (IBM finishKVP); Basalt puts its own
	// extensions there.
	Ext []KV
}

// Unknown is a record of a type this package does not decode (JOB_CHUNK,
// JOB_EXCEPTION, LOAD_INDEX...): its fields as text, unquoted.
type Unknown struct {
	Fields []string
}
