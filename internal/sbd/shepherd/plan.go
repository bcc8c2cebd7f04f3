package shepherd

import (
	"strings"
	"syscall"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/sbd/report"
)

// step is one job control action: a signal to every job process, or a
// command run as the job user (JOB_CONTROLS).
type step struct {
	sig syscall.Signal
	cmd string
	// chkpnt: checkpoint the job first (JOB_CONTROLS CHKPNT), then send
	// sig (chkpnt.go).
	chkpnt bool
}

func (s step) String() string {
	if s.cmd != "" {
		return "command " + s.cmd
	}
	if s.chkpnt {
		return "checkpoint, then signal " + report.SignalText(s.sig)
	}
	return "signal " + report.SignalText(s.sig)
}

// action parses a JOB_CONTROLS action as mbatchd forwards it: "" or
// "default" (LSF's default), "CHKPNT" (checkpoint, then the default
// action's signal: the callers fill it in), a signal name with or without
// SIG, or a command.
func action(a string) (step, bool) {
	a = strings.TrimSpace(a)
	if a == "" || strings.EqualFold(a, "default") {
		return step{}, false
	}
	if strings.EqualFold(a, "CHKPNT") {
		return step{chkpnt: true}, true
	}
	if !strings.ContainsAny(a, " \t") {
		if sig, ok := report.ParseSignal(a); ok {
			if _, err := parseNumber(a); err != nil {
				return step{sig: sig}, true
			}
		}
	}
	return step{cmd: a}, true
}

func parseNumber(s string) (int, error) {
	n := 0
	if s == "" {
		return 0, syscall.EINVAL
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, syscall.EINVAL
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, nil
}

// defaultTerminate is LSF's TERMINATE action: SIGINT, SIGTERM and SIGKILL,
// JOB_TERMINATE_INTERVAL apart.
var defaultTerminate = []step{{sig: syscall.SIGINT}, {sig: syscall.SIGTERM}, {sig: syscall.SIGKILL}}

// terminatePlan is the queue's TERMINATE action, or the default.
func terminatePlan(q *api.QueueExec) []step {
	if q != nil {
		if s, ok := action(q.TerminateAction); ok {
			if s.chkpnt {
				s.sig = syscall.SIGKILL // TERMINATE[CHKPNT]: checkpoint, then kill
			}
			return []step{s}
		}
	}
	return defaultTerminate
}

// limitPlan is how a job that exceeded a limit is killed. A queue
// TERMINATE action overrides the defaults: SIGUSR2 first for the run limit,
// SIGXCPU for the CPU limit, SIGQUIT for the swap and process limits, each
// followed by the default TERMINATE sequence.
func limitPlan(q *api.QueueExec, reason string) []step {
	if q != nil {
		if s, ok := action(q.TerminateAction); ok {
			if s.chkpnt {
				s.sig = syscall.SIGKILL
			}
			return []step{s}
		}
	}
	var first syscall.Signal
	switch reason {
	case "TERM_RUNLIMIT":
		first = syscall.SIGUSR2
	case "TERM_CPULIMIT":
		first = syscall.SIGXCPU
	case "TERM_SWAP", "TERM_PROCESSLIMIT":
		first = syscall.SIGQUIT
	default:
		return defaultTerminate
	}
	return append([]step{{sig: first}}, defaultTerminate...)
}

// suspendStep is the queue's SUSPEND action, or LSF's default: SIGTSTP for
// parallel and interactive jobs (so they can stop their tasks), SIGSTOP
// otherwise.
func suspendStep(l *api.JobLaunch) step {
	if l.Queue != nil {
		if s, ok := action(l.Queue.SuspendAction); ok {
			if !s.chkpnt {
				return s
			}
			// SUSPEND[CHKPNT]: checkpoint, then the default signal.
			d := l.Queue.SuspendAction
			l.Queue.SuspendAction = ""
			s.sig = suspendStep(l).sig
			l.Queue.SuspendAction = d
			return s
		}
	}
	slots := 0
	for _, h := range l.ExecHosts {
		slots += max(1, int(h.Slots))
	}
	if slots > 1 || (l.Spec != nil && l.Spec.Interactive) {
		return step{sig: syscall.SIGTSTP}
	}
	return step{sig: syscall.SIGSTOP}
}

// resumeStep is the queue's RESUME action, or SIGCONT.
func resumeStep(q *api.QueueExec) step {
	if q != nil {
		if s, ok := action(q.ResumeAction); ok && !s.chkpnt {
			return s
		}
	}
	return step{sig: syscall.SIGCONT}
}

// outcome decides how a run that ended with wait status ws is reported:
// DONE for exit 0, else EXIT; a normal exit with a value in the queue's
// REQUEUE_EXIT_VALUES requeues the job (EXCLUDE values also keep it off
// this host); a job killed by a signal is never requeued that way. A
// brequeue (requeue) always requeues. termReason is what LSF killed the job
// for, if it did; a job killed by a signal LSF did not send gets
// TERM_EXTERNAL_SIGNAL.
func outcome(ws syscall.WaitStatus, q *api.QueueExec, termReason string, requeue bool) (state api.JobState, reason string, requeued, exclude bool) {
	reason = termReason
	if ws.Exited() && ws.ExitStatus() == 0 {
		return api.StateDone, "", false, false
	}
	if requeue {
		return api.StateExit, reason, true, false
	}
	if ws.Signaled() {
		if reason == "" {
			reason = "TERM_EXTERNAL_SIGNAL"
		}
		return api.StateExit, reason, false, false
	}
	if reason == "" && q != nil && ws.Exited() {
		code := int32(ws.ExitStatus())
		for _, v := range q.ExcludeExitValues {
			if v == code {
				return api.StateExit, "", true, true
			}
		}
		for _, v := range q.RequeueExitValues {
			if v == code {
				return api.StateExit, "", true, false
			}
		}
	}
	return api.StateExit, reason, false, false
}
