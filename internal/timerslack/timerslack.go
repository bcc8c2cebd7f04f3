package timerslack

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

const (
	// Daemon is the timer slack (ns) Raise gives a daemon.
	Daemon = 1_000_000

	// EnvJob names the variable that holds the slack (ns) the daemon was
	// started with: the slack of its job processes.
	EnvJob = "BASALT_JOB_TIMERSLACK"

	// maxSlack bounds what EnvJob may say (an hour: any larger value is a
	// mistake, not a slack).
	maxSlack = 3600 * 1_000_000_000

	prSetTimerslack = 29
	prGetTimerslack = 30
)

// Get returns the calling thread's timer slack (ns).
func Get() (int, error) {
	r, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prGetTimerslack, 0, 0)
	if e != 0 {
		return 0, fmt.Errorf("timerslack: prctl(PR_GET_TIMERSLACK): %w", e)
	}
	return int(r), nil
}

// SetThread sets the calling thread's timer slack (ns); the caller holds
// the thread (runtime.LockOSThread) for as long as the setting matters.
func SetThread(ns int) error {
	if ns <= 0 {
		return fmt.Errorf("timerslack: slack %d: not positive", ns)
	}
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetTimerslack, uintptr(ns), 0); e != 0 {
		return fmt.Errorf("timerslack: prctl(PR_SET_TIMERSLACK, %d): %w", ns, e)
	}
	return nil
}

// Job returns the slack for the processes a daemon starts for jobs: EnvJob
// when it holds one, else the calling thread's own (the daemon was not
// raised).
func Job(getenv func(string) string) int {
	if n, err := strconv.Atoi(getenv(EnvJob)); err == nil && n > 0 && n <= maxSlack {
		return n
	}
	if n, err := Get(); err == nil && n > 0 {
		return n
	}
	return 50_000 // Linux's default
}

// Raise executes the running program again (/proc/self/exe, argv, environ
// with EnvJob added) with its first thread's slack at Daemon, unless the
// slack already is at least that: then, and when the execution fails (the
// error says why; the process goes on as it was), it returns. Call it
// first thing, before the daemon opens anything.
func Raise(argv, environ []string) error {
	cur, err := Get()
	if err != nil {
		return err
	}
	if cur >= Daemon {
		nameAfter(argv)
		return nil
	}
	env := environ[:len(environ):len(environ)]
	if !slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, EnvJob+"=") }) {
		env = append(env, EnvJob+"="+strconv.Itoa(cur)) // an ancestor's stays
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := SetThread(Daemon); err != nil {
		return err
	}
	err = syscall.Exec("/proc/self/exe", argv, env)
	_ = SetThread(cur)
	return fmt.Errorf("timerslack: executing /proc/self/exe again: %w", err)
}

// nameAfter gives the process the name argv[0] gave it (ps and pgrep show
// it): executed as /proc/self/exe, it is named "exe". Only that name is
// changed.
func nameAfter(argv []string) {
	b, err := os.ReadFile("/proc/self/comm")
	if err != nil || strings.TrimSpace(string(b)) != "exe" || len(argv) == 0 {
		return
	}
	name := filepath.Base(argv[0])
	if len(name) > 15 {
		name = name[:15] // the kernel keeps 15 bytes
	}
	if name != "exe" && name != "." && name != "/" {
		_ = os.WriteFile("/proc/self/comm", []byte(name), 0) // the thread group's leader
	}
}
