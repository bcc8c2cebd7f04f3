package report

import (
	"strconv"
	"sync"
	"syscall"
)

// termReasons maps LSF's termination keywords to their description (IBM
// "Termination reasons displayed by bacct, bhist, and bjobs") and the
// integer logged in lsb.acct.
// The tables are built on first use: every command of the multi-call binary
// links this package, and none but sbatchd's needs them.
var termReasons = sync.OnceValue(func() map[string]termReason {
	return map[string]termReason{
		"TERM_UNKNOWN":         {"LSF cannot determine a termination reason", 0},
		"TERM_PREEMPT":         {"job killed after preemption", 1},
		"TERM_WINDOW":          {"job killed after queue run window closed", 2},
		"TERM_LOAD":            {"job killed after load exceeds threshold", 3},
		"TERM_OTHER":           {"job killed for other reasons", 4},
		"TERM_RUNLIMIT":        {"job killed after reaching LSF run time limit", 5},
		"TERM_DEADLINE":        {"job killed after deadline expires", 6},
		"TERM_PROCESSLIMIT":    {"job killed after reaching LSF process limit", 7},
		"TERM_FORCE_OWNER":     {"job killed by owner without time for cleanup", 8},
		"TERM_FORCE_ADMIN":     {"job killed by root or LSF administrator without time for cleanup", 9},
		"TERM_REQUEUE_OWNER":   {"job killed and requeued by owner", 10},
		"TERM_REQUEUE_ADMIN":   {"job killed and requeued by root or LSF administrator", 11},
		"TERM_CPULIMIT":        {"job killed after reaching LSF CPU usage limit", 12},
		"TERM_CHKPNT":          {"job killed after checkpointing", 13},
		"TERM_OWNER":           {"job killed by owner", 14},
		"TERM_ADMIN":           {"job killed by root or LSF administrator", 15},
		"TERM_MEMLIMIT":        {"job killed after reaching LSF memory usage limit", 16},
		"TERM_EXTERNAL_SIGNAL": {"job killed by a signal external to LSF", 17},
		"TERM_ZOMBIE":          {"job exited while LSF is not available", 19},
		"TERM_SWAP":            {"job killed after reaching LSF swap usage limit", 20},
		"TERM_THREADLIMIT":     {"job killed after reaching LSF thread limit", 21},
		"TERM_CWD_NOTEXIST":    {"current working directory is not accessible or does not exist on the execution host", 25},
	}
})

type termReason struct {
	text string
	code int
}

// TermText returns a termination keyword's description ("" if unknown).
func TermText(reason string) string { return termReasons()[reason].text }

// TermCode returns the integer lsb.acct logs for a termination keyword (0,
// TERM_UNKNOWN, for an unknown one).
func TermCode(reason string) int { return termReasons()[reason].code }

// LSF's internal job control signals, as LSB_JOBEXIT_INFO shows them
// ("SIGNAL -14 SIG_TERM_USER"). SIG_TERM_USER (-14) and SIG_KILL_REQUEUE
// (-23) are the values IBM documents; the others keep OpenLava's order
// around them.
var lsfSignals = sync.OnceValue(func() map[string]int {
	return map[string]int{
		"SIG_TERM_USER":         -14,
		"SIG_TERM_LOAD":         -15,
		"SIG_TERM_WINDOW":       -16,
		"SIG_TERM_OTHER":        -17,
		"SIG_TERM_RUNLIMIT":     -18,
		"SIG_TERM_DEADLINE":     -19,
		"SIG_TERM_PROCESSLIMIT": -20,
		"SIG_TERM_FORCE":        -21,
		"SIG_KILL_REQUEUE":      -23,
		"SIG_TERM_CPULIMIT":     -24,
		"SIG_TERM_MEMLIMIT":     -25,
	}
})

// ExitInfo is LSB_JOBEXIT_INFO for a job that ended because LSF killed it
// for reason ("SIGNAL -14 SIG_TERM_USER"); "" when reason is empty.
func ExitInfo(reason string) string {
	sym := ""
	switch reason {
	case "":
		return ""
	case "TERM_OWNER", "TERM_ADMIN", "TERM_PREEMPT":
		sym = "SIG_TERM_USER"
	case "TERM_FORCE_OWNER", "TERM_FORCE_ADMIN":
		sym = "SIG_TERM_FORCE"
	case "TERM_REQUEUE_OWNER", "TERM_REQUEUE_ADMIN":
		sym = "SIG_KILL_REQUEUE"
	case "TERM_RUNLIMIT":
		sym = "SIG_TERM_RUNLIMIT"
	case "TERM_CPULIMIT":
		sym = "SIG_TERM_CPULIMIT"
	case "TERM_MEMLIMIT", "TERM_SWAP":
		sym = "SIG_TERM_MEMLIMIT"
	case "TERM_PROCESSLIMIT", "TERM_THREADLIMIT":
		sym = "SIG_TERM_PROCESSLIMIT"
	case "TERM_DEADLINE":
		sym = "SIG_TERM_DEADLINE"
	case "TERM_LOAD":
		sym = "SIG_TERM_LOAD"
	case "TERM_WINDOW":
		sym = "SIG_TERM_WINDOW"
	default:
		sym = "SIG_TERM_OTHER"
	}
	return "SIGNAL " + strconv.Itoa(lsfSignals()[sym]) + " " + sym
}

// signalTexts are glibc's strsignal(3) descriptions, which LSF prints in
// "Exited with signal termination: ...".
var signalTexts = sync.OnceValue(func() map[syscall.Signal]string {
	return map[syscall.Signal]string{
		syscall.SIGHUP: "Hangup", syscall.SIGINT: "Interrupt", syscall.SIGQUIT: "Quit",
		syscall.SIGILL: "Illegal instruction", syscall.SIGTRAP: "Trace/breakpoint trap",
		syscall.SIGABRT: "Aborted", syscall.SIGBUS: "Bus error", syscall.SIGFPE: "Floating point exception",
		syscall.SIGKILL: "Killed", syscall.SIGUSR1: "User defined signal 1", syscall.SIGSEGV: "Segmentation fault",
		syscall.SIGUSR2: "User defined signal 2", syscall.SIGPIPE: "Broken pipe", syscall.SIGALRM: "Alarm clock",
		syscall.SIGTERM: "Terminated", syscall.SIGSTKFLT: "Stack fault", syscall.SIGCHLD: "Child exited",
		syscall.SIGCONT: "Continued", syscall.SIGSTOP: "Stopped (signal)", syscall.SIGTSTP: "Stopped",
		syscall.SIGTTIN: "Stopped (tty input)", syscall.SIGTTOU: "Stopped (tty output)",
		syscall.SIGURG: "Urgent I/O condition", syscall.SIGXCPU: "CPU time limit exceeded",
		syscall.SIGXFSZ: "File size limit exceeded", syscall.SIGVTALRM: "Virtual timer expired",
		syscall.SIGPROF: "Profiling timer expired", syscall.SIGWINCH: "Window changed",
		syscall.SIGIO: "I/O possible", syscall.SIGPWR: "Power failure", syscall.SIGSYS: "Bad system call",
	}
})

// SignalText is strsignal(sig).
func SignalText(sig syscall.Signal) string {
	if s, ok := signalTexts()[sig]; ok {
		return s
	}
	if sig >= 34 && sig <= 64 {
		return "Real-time signal " + strconv.Itoa(int(sig)-34)
	}
	return "Unknown signal " + strconv.Itoa(int(sig))
}

// signalNames are the names bkill -s and JOB_CONTROLS accept, without SIG.
var signalNames = sync.OnceValue(func() map[string]syscall.Signal {
	return map[string]syscall.Signal{
		"HUP": syscall.SIGHUP, "INT": syscall.SIGINT, "QUIT": syscall.SIGQUIT, "ILL": syscall.SIGILL,
		"TRAP": syscall.SIGTRAP, "ABRT": syscall.SIGABRT, "IOT": syscall.SIGABRT, "BUS": syscall.SIGBUS,
		"FPE": syscall.SIGFPE, "KILL": syscall.SIGKILL, "USR1": syscall.SIGUSR1, "SEGV": syscall.SIGSEGV,
		"USR2": syscall.SIGUSR2, "PIPE": syscall.SIGPIPE, "ALRM": syscall.SIGALRM, "TERM": syscall.SIGTERM,
		"STKFLT": syscall.SIGSTKFLT, "CHLD": syscall.SIGCHLD, "CLD": syscall.SIGCHLD, "CONT": syscall.SIGCONT,
		"STOP": syscall.SIGSTOP, "TSTP": syscall.SIGTSTP, "TTIN": syscall.SIGTTIN, "TTOU": syscall.SIGTTOU,
		"URG": syscall.SIGURG, "XCPU": syscall.SIGXCPU, "XFSZ": syscall.SIGXFSZ, "VTALRM": syscall.SIGVTALRM,
		"PROF": syscall.SIGPROF, "WINCH": syscall.SIGWINCH, "IO": syscall.SIGIO, "POLL": syscall.SIGIO,
		"PWR": syscall.SIGPWR, "SYS": syscall.SIGSYS,
	}
})

// ParseSignal reads a signal as JOB_CONTROLS and bkill -s write it: a name
// with or without SIG (SIGTSTP, TSTP, case-insensitive) or a number.
func ParseSignal(s string) (syscall.Signal, bool) {
	if n, err := strconv.Atoi(s); err == nil {
		if n > 0 && n <= 64 {
			return syscall.Signal(n), true
		}
		return 0, false
	}
	u := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		u = append(u, c)
	}
	name := string(u)
	if len(name) > 3 && name[:3] == "SIG" {
		name = name[3:]
	}
	sig, ok := signalNames()[name]
	return sig, ok
}
