package output

import (
	"fmt"
	"strings"
	"sync"

	"github.com/basalt-lsf/basalt/api"
)

// Pending reason code ranges (lsbatch.h).
const (
	pendHostLoad      = 2001 // + load index
	pendHostQueRusage = 2301 // + load index
	pendHostJobRusage = 2601 // + load index
)

// pendTexts are LSF's pending reason texts by PEND_* code (lsb.reason.c;
// appendix §A.1).
var pendTexts = sync.OnceValue(func() map[int32]string {
	return map[int32]string{
		1:    "New job is waiting for scheduling",
		2:    "The job has a specified start time",
		3:    "Job dependency condition not satisfied",
		4:    "Dependency condition invalid or never satisfied",
		5:    "Migrating job is waiting for rescheduling",
		6:    "The job's pre-exec command exited with non-zero status",
		7:    "Unable to access job file",
		8:    "Unable to set job's environment variables",
		9:    "Unable to determine job's home/working directories",
		10:   "Unable to open job's I/O buffers",
		11:   "Job execution initialization failed",
		12:   "Unable to copy restarting job's checkpoint files",
		13:   "The schedule of the job is postponed for a while",
		14:   "Waiting for re-scheduling after switching queue",
		15:   "Event is rejected by eeventd due to syntax error",
		17:   "Failed to get user password",
		19:   "Waiting for re-scheduling after parameters have been changed",
		23:   "Requeue the job for the next run",
		35:   "System is unable to schedule the job",
		38:   "The job array has reached its running element limit",
		60:   "The job group has reached its job limit",
		85:   "Job is waiting for advance reservation to become active",
		86:   "The job's advance reservation has expired or has been deleted",
		87:   "Not enough job slots left in the job's advance reservation",
		301:  "The queue is inactivated by the administrator",
		302:  "The queue is inactivated by its time windows",
		303:  "The queue has reached its job slot limit",
		304:  "User has reached the per-user job slot limit of the queue",
		305:  "Not enough per-user job slots of the queue for the parallel job",
		306:  "The queue's pre-exec command exited with non-zero status",
		310:  "System is not ready for scheduling after reconfiguration",
		311:  "Requeued job is waiting for rescheduling",
		312:  "Not enough hosts to meet the job's spanning requirement",
		313:  "Not enough hosts to meet the queue's spanning requirement",
		314:  "The queue has not enough job slots for the parallel job",
		315:  "Job will not finish before queue's run window is closed",
		316:  "Job no longer satisfies queue PROCLIMIT configuration",
		601:  "The user has reached his/her job slot limit",
		602:  "One of the user's groups has reached its job slot limit",
		603:  "The user has not enough job slots for the parallel job",
		604:  "One of user's groups has not enough job slots for the parallel job",
		605:  "Waiting for scheduling after resumed by user",
		607:  "The job was suspended by the user while pending",
		608:  "Unable to determine user account for execution",
		609:  "The user has no permission to run the job on remote host/cluster",
		610:  "The job was suspended by LSF admin or root while pending",
		1001: "Job's resource requirements not satisfied",
		1002: "Job's requirement for exclusive execution not satisfied",
		1003: "Higher or equal priority jobs already suspended by system",
		1005: "Unable to get the PID of the restarting job",
		1006: "Unable to lock host for exclusively executing the job",
		1007: "Cleaning up zombie job",
		1008: "Can't run jobs submitted by root",
		1009: "Job will not finish on the host before queue's run window is closed",
		1010: "Job will not finish on the host before job's termination deadline",
		1301: "Closed by LSF administrator",
		1302: "Host is locked",
		1303: "Not enough job slot(s)",
		1304: "Dispatch windows closed",
		1305: "Job slot limit reached",
		1306: "Queue's per-CPU job slot limit reached",
		1307: "Queue's per-host job slot limit reached",
		1308: "User's per-CPU job slot limit reached",
		1309: "Host's per-user job slot limit reached",
		1310: "Not usable to the queue",
		1311: "Not specified in job submission",
		1312: "User has no access to the host partition",
		1313: "There is no such user account",
		1314: "Just started a job recently",
		1315: "Load information unavailable",
		1316: "LIM is unreachable now",
		1318: "Queue's resource requirements not satisfied",
		1319: "Not the same type as the submission host",
		1320: "Not enough processors to meet the job's spanning requirement",
		1321: "Not enough processors to meet the queue's spanning requirement",
		1322: "Running an exclusive job",
		1324: "User group's per-CPU job slot limit reached",
		1325: "Bad host name, host group name or cluster name",
		1326: "Host or host group is not used by the queue",
		1327: "Host is locked by master LIM",
		1345: "Job slots held by an advance reservation",
		1346: "Not a host of the job's advance reservation",
		1601: "Unable to reach slave batch server",
		1602: "Number of jobs exceeds quota",
		1603: "Failed in talking to server to start the job",
		1604: "Failed in receiving the reply from server when starting the job",
		1605: "Unable to allocate memory to run job",
		1606: "Unable to fork process to run job",
		1607: "Unable to communicate with job process",
		1608: "Slave batch server failed to accept job",
		4701: "The job limit defined on user or user group has been reached",
		4702: "The job limit defined on queue has been reached",
		4703: "The job limit defined on project has been reached",
		4704: "The job limit defined cluster-wide has been reached",
		4705: "The job limit defined on host and/or host group has been reached",
	}
})

// limitPendTexts are the lsb.resources limit reasons (LSF 7+), whose text
// names the resource (PendReason.Detail: "slot", "mem", a resource name).
var limitPendTexts = sync.OnceValue(func() map[int32]string {
	return map[int32]string{
		3201: "Resource (%s) limit defined on user or user group has been reached",
		3501: "Resource (%s) limit defined on queue has been reached",
		3801: "Resource (%s) limit defined on project has been reached",
		4101: "Resource (%s) limit defined cluster-wide has been reached",
		4401: "Resource (%s) limit defined on host and/or host group has been reached",
	}
})

// Built-in load indices in LSF's numbering (lsf.h).
var loadIndexNames = []string{"r15s", "r1m", "r15m", "ut", "pg", "io", "ls", "it", "tmp", "swp", "mem"}

// loadPendTexts are the PEND_HOST_LOAD texts per built-in index.
var loadPendTexts = []string{
	"The 15s effective CPU queue length (r15s) is beyond threshold",
	"The 1 min effective CPU queue length (r1m) is beyond threshold",
	"The 15 min effective CPU queue length (r15m) is beyond threshold",
	"The CPU utilization (ut) is beyond threshold",
	"The paging rate (pg) is beyond threshold",
	"The disk IO rate (io) is beyond threshold",
	"There are too many login users (ls)",
	"The idle time (it) is not long enough",
	"The available /tmp space (tmp) is low",
	"The available swap space (swp) is low",
	"The available memory (mem) is low",
}

// PendReasonText returns LSF's text for a pending reason. Load and
// reservation reasons (2001+, 2301+, 2601+) name their index: built-in
// indices by number, external ones by r.Detail.
func PendReasonText(r *api.PendReason) string {
	if r == nil {
		return ""
	}
	code := r.Code
	switch {
	case code >= pendHostJobRusage && code < pendHostJobRusage+300:
		return "Job's requirements for reserving resource (" + indexName(code-pendHostJobRusage, r.Detail) + ") not satisfied"
	case code >= pendHostQueRusage && code < pendHostJobRusage:
		return "Queue requirements for reserving resource (" + indexName(code-pendHostQueRusage, r.Detail) + ") not satisfied"
	case code >= pendHostLoad && code < pendHostQueRusage:
		idx := code - pendHostLoad
		if int(idx) < len(loadPendTexts) && r.Detail == "" {
			return loadPendTexts[idx]
		}
		if r.Detail != "" {
			if i := builtinIndex(r.Detail); i >= 0 {
				return loadPendTexts[i]
			}
			return "External load index (" + r.Detail + ") is beyond threshold"
		}
		return "External load index is beyond threshold"
	}
	if t, ok := limitPendTexts()[code]; ok {
		what := r.Detail
		if what == "" {
			what = "slot"
		}
		return fmt.Sprintf(t, what)
	}
	if t, ok := pendTexts()[code]; ok {
		return t
	}
	return fmt.Sprintf("Unknown pending reason code: %d", code)
}

func indexName(idx int32, detail string) string {
	if detail != "" {
		return detail
	}
	if idx >= 0 && int(idx) < len(loadIndexNames) {
		return loadIndexNames[idx]
	}
	return fmt.Sprint(idx)
}

func builtinIndex(name string) int {
	for i, n := range loadIndexNames {
		if n == name {
			return i
		}
	}
	return -1
}

// PendReasonLines returns the reason lines bjobs -p and bjobs -l print, each
// with its leading space and trailing ";" and newline (lsb.reason.c):
// " New job is waiting for scheduling;" for a job-level reason,
// " Job slot limit reached: 3 hosts;" with host counts, and with withHosts
// (bjobs -lp) the host names: " Closed by LSF administrator: hostA, hostB;".
// Job-level reasons carry no host count in IBM LSF 10.1 output (OpenLava
// prints ": 1 host" for them too).
func PendReasonLines(reasons []*api.PendReason, withHosts bool) string {
	var b strings.Builder
	for _, r := range reasons {
		if r == nil {
			continue
		}
		b.WriteByte(' ')
		b.WriteString(PendReasonText(r))
		switch {
		case withHosts && len(r.Hosts) > 0:
			b.WriteString(": ")
			b.WriteString(strings.Join(r.Hosts, ", "))
		case r.NumHosts == 1:
			b.WriteString(": 1 host")
		case r.NumHosts > 1:
			fmt.Fprintf(&b, ": %d hosts", r.NumHosts)
		}
		b.WriteString(";\n")
	}
	return b.String()
}

// Suspend reason bits (lsbatch.h SUSP_*).
const (
	suspUserResume     = 0x1
	suspUserStop       = 0x2
	suspQueueWindow    = 0x8
	suspReschedPreempt = 0x10
	suspHostLock       = 0x20
	suspLoadReason     = 0x40
	suspMbdPreempt     = 0x80
	suspSbdPreempt     = 0x100
	suspQueStopCond    = 0x200
	suspQueResumeCond  = 0x400
	suspPgIt           = 0x800
	suspLoadUnavail    = 0x2000
	suspAdminStop      = 0x4000
	suspResReserve     = 0x8000
	suspResLimit       = 0x20000
	suspHostLockMaster = 0x80000
)

var suspLoadTexts = []string{
	"15-second CPU run queue length (r15s)",
	"1-minute CPU run queue length (r1m)",
	"15-minute CPU run queue length (r15m)",
	"1-minute CPU utilization (ut)",
	"Paging rate (pg)",
	"Disk IO rate (io)",
	"Number of login sessions (ls)",
	"Idle time (it)",
	"Available /tmp space (tmp)",
	"Available swap space (swp)",
	"Available memory (mem)",
}

// SuspReasonLine returns the line bjobs -s and bjobs -l print for a
// suspended job's reasons (lsb.reason.c lsb_suspreason): the first matching
// reason in LSF's order, with a leading space and a newline.
func SuspReasonLine(reasons, sub int32) string {
	switch {
	case reasons&suspUserStop != 0:
		return " The job was suspended by user;\n"
	case reasons&suspAdminStop != 0:
		return " The job was suspended by LSF admin or root;\n"
	case reasons&suspQueueWindow != 0:
		return " The run windows of the queue are closed;\n"
	case reasons&suspHostLock != 0:
		return " The execution host is locked by LSF administrator now;\n"
	case reasons&suspHostLockMaster != 0:
		return " The execution host is locked by master LIM now;\n"
	case reasons&suspUserResume != 0:
		return " Waiting for re-scheduling after being resumed by user;\n"
	case reasons&suspQueStopCond != 0:
		return " STOP_COND is true with current host load;\n"
	case reasons&suspQueResumeCond != 0:
		return " RESUME_COND is false with current host load;\n"
	case reasons&suspResReserve != 0:
		return " Job's requirements for resource reservation not satisfied;\n"
	case reasons&suspPgIt != 0:
		return " Job was suspended due to paging rate (pg) and the host is not idle yet\n"
	case reasons&suspLoadUnavail != 0:
		return " Load information on execution host(s) is unavailable\n"
	case reasons&suspLoadReason != 0:
		if sub >= 0 && int(sub) < len(suspLoadTexts) {
			return " Host load exceeded threshold:  " + suspLoadTexts[sub] + "\n"
		}
		return " Host load exceeded threshold:   External load index is beyond threshold\n"
	case reasons&suspResLimit != 0:
		switch {
		case sub&0x1 != 0:
			return " RUNLIMIT was reached;\n"
		case sub&0x2 != 0:
			return " DEADLINE was reached;\n"
		case sub&0x4 != 0:
			return " PROCESSLIMIT was reached;\n"
		case sub&0x8 != 0:
			return " CPULIMIT was reached;\n"
		case sub&0x10 != 0:
			return " MEMLIMIT was reached;\n"
		}
	case reasons&(suspReschedPreempt|suspMbdPreempt|suspSbdPreempt) != 0:
		// IBM LSF: preempted jobs; OpenLava has no text.
		return " The job was preempted by a higher priority job;\n"
	}
	return fmt.Sprintf(" Unknown suspending reason code: %d\n", reasons)
}
