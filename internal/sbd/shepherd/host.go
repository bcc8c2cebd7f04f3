package shepherd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/basalt-lsf/basalt/internal/clock"
	"github.com/basalt-lsf/basalt/internal/logging"
	"github.com/basalt-lsf/basalt/internal/sbd/cgroup"
	"github.com/basalt-lsf/basalt/internal/sbd/jobgate"
	"github.com/basalt-lsf/basalt/internal/sbd/procfs"
	"github.com/basalt-lsf/basalt/internal/timerslack"
)

// Host is what the shepherds of one process share: the process is the
// subreaper of every job it runs, and one reaper (wait4(-1)) hands each
// child's end to the shepherd that started it. A process runs one job
// (job-shepherd SPOOLDIR) or serves many (Serve, job-shepherd -host).
type Host struct {
	clk     clock.Clock
	log     *slog.Logger
	logw    io.Writer // the host's log, for shepherds without their own
	pid     int
	devnull *os.File
	// devnullFD is devnull's descriptor, for the forks.
	devnullFD int
	// single: the process runs one job, so every orphan is that job's.
	single bool
	proc   procfs.FS

	// mu is held from before a fork until the child is registered in
	// procs, so the reaper never meets a child of a job it cannot place.
	mu    sync.Mutex
	procs map[int]*Shepherd

	reapOnce  sync.Once
	hierOnce  sync.Once
	hier      cgroup.Hierarchies
	hierErr   error
	managers  map[string]*cgroup.Manager // by parent path; under mu
	noCloneCg atomic.Bool                // clone3 with CLONE_INTO_CGROUP refused once: write cgroup.procs instead
	// ownSlack is the timer slack of the host's threads, jobSlack that of
	// the processes it starts (package timerslack).
	ownSlack, jobSlack int

	// gate is the job gate (see direct.go); nil (none on this platform,
	// or BASALT_JOBGATE=off in the environment), or noGate set after it
	// failed to execute: jobs wait at the job file's gate.
	gate   *jobgate.Gate
	noGate atomic.Bool

	// forkCh feeds the forker threads (see direct.go); forkers counts
	// them.
	forkCh  chan threadWork
	forkers atomic.Int32
	forkErr atomic.Value // error: the forkers cannot work (no unshare)

	// Remote reaches the submission hosts of jobs' bsub -f files; nil
	// copies through this host's file system. Set before jobs start.
	Remote RemoteFor

	// srv is Serve's state (see serve.go), owned by its loop.
	srv atomic.Pointer[server]
}

// NewHost prepares a host process; logw receives the host's own
// diagnostics (each job logs to its spool directory; nil discards them).
func NewHost(clk clock.Clock, logw io.Writer) (*Host, error) {
	if clk == nil {
		clk = clock.Real()
	}
	if logw == nil {
		logw = io.Discard
	}
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("shepherd host: %w", err)
	}
	h := &Host{clk: clk, logw: logw, pid: os.Getpid(), devnull: devnull, devnullFD: int(devnull.Fd()),
		procs: map[int]*Shepherd{}, forkCh: make(chan threadWork)}
	h.log = slog.New(logging.NewHandler(logw, &logging.HandlerOptions{Level: slog.LevelInfo, Name: fmt.Sprintf("shepherd host %d", h.pid), Now: clk.Now}))
	// Every thread has the slack the process started with; its jobs get
	// the one the daemon had before it raised it.
	h.jobSlack = timerslack.Job(os.Getenv)
	if h.ownSlack, err = timerslack.Get(); err != nil {
		h.ownSlack = h.jobSlack
	}
	// Before the reaper starts: the gate's check waits for its own child.
	if os.Getenv("BASALT_JOBGATE") != "off" {
		var err error
		if h.gate, err = processGate(); err != nil && !errors.Is(err, errors.ErrUnsupported) {
			h.warnf("job gate unusable, jobs wait at their job file's gate: %v", err)
		}
	}
	return h, nil
}

// processGate opens the job gate once per process and checks that it
// runs.
var processGate = sync.OnceValues(func() (*jobgate.Gate, error) {
	g, err := jobgate.Open()
	if err != nil {
		return nil, err
	}
	if err := g.Check(); err != nil {
		g.Close()
		return nil, err
	}
	return g, nil
})

// jobGate is the job gate, nil when jobs wait at the job file's gate.
func (h *Host) jobGate() *jobgate.Gate {
	if h.noGate.Load() {
		return nil
	}
	return h.gate
}

// logf and warnf write the host's lines at LOG_INFO and LOG_WARNING.
func (h *Host) logf(format string, args ...any) { h.log.Info(fmt.Sprintf(format, args...)) }

func (h *Host) warnf(format string, args ...any) { h.log.Warn(fmt.Sprintf(format, args...)) }

// errorf writes a line at LOG_ERR (a shepherd's or a forker's panic).
func (h *Host) errorf(format string, args ...any) { h.log.Error(fmt.Sprintf(format, args...)) }

// startReaper makes the process the subreaper of its descendants (orphans
// of the jobs become its children) and starts the reaper, once.
func (h *Host) startReaper(ctx context.Context) {
	h.reapOnce.Do(func() {
		if err := prctl(pr_SET_CHILD_SUBREAPER, 1); err != nil {
			h.warnf("cannot become subreaper: %v", err)
		}
		// Before any child can end unseen: the reaper looks for ended
		// children first, then at every SIGCHLD.
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, syscall.SIGCHLD)
		go h.reap(ctx, sigs)
	})
}

// cgroups is the manager of the job groups under parent (the mounts are
// read once, a manager made once per parent).
func (h *Host) cgroups(parent string) (*cgroup.Manager, error) {
	h.hierOnce.Do(func() { h.hier, h.hierErr = cgroup.Detect() })
	if h.hierErr != nil {
		return nil, h.hierErr
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	m := h.managers[parent]
	if m == nil {
		if h.managers == nil {
			h.managers = map[string]*cgroup.Manager{}
		}
		m = cgroup.New(h.hier, parent)
		h.managers[parent] = m
	}
	return m, nil
}

// forkExec starts a child for shepherd s and registers it before the
// reaper can see it. h.mu is held until the child has exec'd (see
// server.retire). The child inherits the forking thread's timer slack,
// which is set to the job slack for the fork (package timerslack).
func (h *Host) forkExec(s *Shepherd, path string, argv []string, attr *syscall.ProcAttr) (int, error) {
	if h.jobSlack != h.ownSlack {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := timerslack.SetThread(h.jobSlack); err != nil {
			return 0, err
		}
		defer timerslack.SetThread(h.ownSlack)
	}
	h.mu.Lock()
	pid, err := syscall.ForkExec(path, argv, attr)
	if err == nil {
		h.procs[pid] = s
	}
	h.mu.Unlock()
	return pid, err
}

// release forgets the children of a shepherd that has ended: their exits,
// if any come, are reaped and dropped.
func (h *Host) release(s *Shepherd) {
	h.mu.Lock()
	for pid, o := range h.procs {
		if o == s {
			delete(h.procs, pid)
		}
	}
	h.mu.Unlock()
}

func (h *Host) registered(pid int) bool {
	h.mu.Lock()
	_, ok := h.procs[pid]
	h.mu.Unlock()
	return ok
}

// reap collects every child of the process that ended (orphans of the
// jobs included) and passes each registered child's end to its shepherd.
// It waits for SIGCHLD rather than in wait4: a goroutine blocked in a
// system call keeps the runtime's monitor polling every 20 to 10000 us for
// as long as it blocks, which cost more CPU than the shepherds' own work.
func (h *Host) reap(ctx context.Context, sigs <-chan os.Signal) {
	for {
		for {
			var ws syscall.WaitStatus
			var ru syscall.Rusage
			pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, &ru)
			if err == syscall.EINTR {
				continue
			}
			if err != nil && err != syscall.ECHILD {
				h.warnf("wait4: %v", err)
			}
			if pid <= 0 {
				break // none ended (or no child at all)
			}
			h.mu.Lock()
			s := h.procs[pid]
			delete(h.procs, pid)
			h.mu.Unlock()
			if s == nil {
				continue // an orphan of a job, or a child of an ended shepherd
			}
			select {
			case s.exits <- exitEvent{pid: pid, ws: ws, ru: ru}:
			case <-s.finished:
			case <-ctx.Done():
				return
			}
		}
		select {
		case <-sigs:
		case <-ctx.Done():
			return
		}
	}
}

// orphans are the processes of job jobID[index] that were reparented to
// this process (their parent ended): children of the host no shepherd
// started, recognised by the job's LSB_JOBID and LSB_JOBINDEX in their
// environment, and their descendants. Only used without cgroups.
func (h *Host) orphans(tab procfs.Table, jobID int64, index int32) []int {
	id := []byte("LSB_JOBID=" + strconv.FormatInt(jobID, 10) + "\x00")
	idx := []byte("LSB_JOBINDEX=" + strconv.Itoa(int(index)) + "\x00")
	var out []int
	for pid, st := range tab {
		if st.PPID != h.pid || st.State == 'Z' || h.registered(pid) {
			continue
		}
		if h.single {
			out = append(out, pid)
			out = append(out, tab.Descendants(pid)...)
			continue
		}
		env, err := h.proc.Environ(pid)
		if err != nil || !envHas(env, id) || !envHas(env, idx) {
			continue
		}
		out = append(out, pid)
		out = append(out, tab.Descendants(pid)...)
	}
	return out
}

// envHas reports whether the NUL-separated environment env holds the
// entry kv (which ends with its NUL).
func envHas(env, kv []byte) bool {
	if bytes.HasPrefix(env, kv) {
		return true
	}
	for i := bytes.IndexByte(env, 0); i >= 0 && i+1 < len(env); {
		if bytes.HasPrefix(env[i+1:], kv) {
			return true
		}
		j := bytes.IndexByte(env[i+1:], 0)
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

// prlimit sets a resource limit of process pid.
func prlimit(pid, resource int, lim *syscall.Rlimit) error {
	if _, _, e := syscall.RawSyscall6(syscall.SYS_PRLIMIT64, uintptr(pid), uintptr(resource), uintptr(unsafe.Pointer(lim)), 0, 0, 0); e != 0 {
		return e
	}
	return nil
}

var errRetired = errors.New("the shepherd host accepts no more jobs")

// idleDefault is how long a serving host with no job and no sbatchd
// connection waits before it exits.
const idleDefault = 30 * time.Second
