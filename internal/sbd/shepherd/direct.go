package shepherd

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	sysunix "golang.org/x/sys/unix"

	"github.com/basalt-lsf/basalt/internal/clock"
	"github.com/basalt-lsf/basalt/internal/sbd/cgroup"
	"github.com/basalt-lsf/basalt/internal/sbd/jobenv"
	"github.com/basalt-lsf/basalt/internal/sbd/jobgate"
	"github.com/basalt-lsf/basalt/internal/sbd/rawfile"
	"github.com/basalt-lsf/basalt/internal/sbd/sbdwire"
)

// The job itself is started without the exec helper (an exec of this
// binary costs about 20 ms of CPU on a small VM): the shepherd forks the
// job gate (package jobgate), and what the fork cannot do is done while
// the new process waits at the gate, before any user command runs. The
// gate then sets LS_JOBPID and executes the command itself when it is a
// plain command (so a trivial job costs one program, not a shell and a
// fork), else /bin/sh on the job file. Where there is no job gate, the
// shepherd forks /bin/sh on a job file whose first lines are the gate.
//
// A plain command run without the shell is the job process itself: when
// it is killed by a signal that LSF did not send, the job reports 128 plus
// the signal, as the job file's shell would have (jobEnded).
//
//   - On a forker, an OS thread with a file system context of its own
//     (unshare(CLONE_FS): its own working directory and umask), the
//     shepherd takes the job's umask and the job user's file system
//     identity (setfsuid, setfsgid, setgroups act on that thread only),
//     tries the working directories, opens the job's files as the helper
//     would, switches back to its own identity and forks with the job's
//     credentials, process group and standard streams; the child inherits
//     the thread's directory and umask. A forker that cannot switch back
//     is discarded with its thread.
//   - With a unified cgroup hierarchy the child is cloned into the job's
//     group (CLONE_INTO_CGROUP); the v1 hierarchies are joined by writing
//     its PID to their cgroup.procs while it waits at the gate, where its
//     rlimits (prlimit) and nice value (setpriority) are also set. Only
//     then is "go" written on the gate: nothing of the job can escape its
//     groups or limits. A gate that closes without "go" (the shepherd
//     died) ends the job with status 125 before it runs anything.
//
// The helper stays for what needs code in the new process: eexec (run
// before the job, in its context), bsub -L (the login shell would run the
// user's profile before the gate), pre- and post-execution commands and
// JOB_CONTROLS commands (which are not hot).

// o_PATH is O_PATH (open a directory only to name it), which package
// syscall lacks.
const o_PATH = 0x200000

// canStartDirect says whether the job itself can be started without the
// helper.
func (s *Shepherd) canStartDirect() bool {
	return s.l.Spec.LoginShell == "" && s.eexec() == ""
}

// forked is the outcome of forkJob.
type forked struct {
	pid  int
	res  *sbdwire.ExecResult // Step and Err set when it failed
	ws   syscall.WaitStatus  // the status a shell would give a failure
	gate int                 // write end of the gate
	// inUnified: the child was cloned into the unified group.
	inUnified bool
}

// startDirect starts the job process from spec (as startJobNow built it
// for the helper) without the helper.
func (s *Shepherd) startDirect(spec *sbdwire.ExecSpec) {
	cgfd := -1
	if s.cg != nil && s.cg.Unified() != "" && !s.host.noCloneCg.Load() {
		if fd, err := syscall.Open(s.cg.Unified(), o_PATH|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0); err == nil {
			cgfd = fd
		}
	}
	f := s.forkJob(spec, cgfd)
	if cgfd >= 0 {
		syscall.Close(cgfd)
	}
	if f.res.Err != "" {
		s.warnf("job: %s failed: %s", f.res.Step, f.res.Err)
		s.finishSetupFailed(f.res, f.ws)
		return
	}
	c := &child{pid: f.pid, kind: kindJob}
	s.children[f.pid] = c
	s.job = c
	if step, err := s.gateSetup(f.pid, spec, f.inUnified); err != nil {
		// It never ran any of the job: killed at the gate.
		_ = syscall.Kill(f.pid, syscall.SIGKILL)
		syscall.Close(f.gate)
		c.res, c.resDone = &sbdwire.ExecResult{Step: step, Err: err.Error(), Dir: f.res.Dir}, true
		return // its exit completes it (finishSetupFailed)
	}
	err := rawfile.WriteAll(f.gate, []byte("go\n"))
	syscall.Close(f.gate)
	if err != nil {
		// The process is already gone; its exit follows.
		c.res, c.resDone = &sbdwire.ExecResult{Step: StepExec, Err: "gate: " + err.Error(), Dir: f.res.Dir}, true
		return
	}
	c.res, c.resDone = f.res, true
	s.jobStarted(c)
}

// gateSetup puts the process waiting at the gate into the job's groups and
// limits; on failure it names the step.
func (s *Shepherd) gateSetup(pid int, spec *sbdwire.ExecSpec, inUnified bool) (string, error) {
	files := spec.Cgroups
	if inUnified {
		files = nil
		skip := filepath.Join(s.cg.Unified(), "cgroup.procs")
		for _, f := range spec.Cgroups {
			if f != skip {
				files = append(files, f)
			}
		}
	}
	if len(files) > 0 {
		if err := cgroup.JoinFiles(files, pid); err != nil {
			return StepCgroup, err
		}
	}
	for _, rl := range spec.Rlimits {
		if rl.Resource == syscall.RLIMIT_STACK && !awaitGate(s.clk, pid) {
			s.warnf("the job's process did not reach its gate within a second: its stack limit may not hold")
		}
		lim := syscall.Rlimit{Cur: rl.Cur, Max: rl.Max}
		if err := prlimit(pid, int(rl.Resource), &lim); err != nil {
			return StepLimits, fmt.Errorf("prlimit(%d): %w", rl.Resource, err)
		}
	}
	if spec.Nice != 0 {
		_ = syscall.Setpriority(syscall.PRIO_PROCESS, pid, int(spec.Nice))
	}
	return "", nil
}

// awaitGate returns once process pid has left the execve that made it (the
// gate); false when it has not within a second. The fork returns when that
// execve closes the descriptors marked close-on-exec, and the execve
// writes back, last (finalize_exec), the stack limit it read when it
// began: a prlimit(RLIMIT_STACK) in between is lost (the other limits are
// not touched). /proc/<pid>/syscall says "running", or the system call the
// process waits in: execve while it is still executing, another one (the
// gate's read) once it runs its own code.
func awaitGate(clk clock.Clock, pid int) bool {
	path := "/proc/" + strconv.Itoa(pid) + "/syscall"
	deadline := clk.Now().Add(time.Second)
	for {
		b, err := rawfile.ReadFile(path)
		if err != nil {
			return true // gone, or no such file: nothing to wait for
		}
		if f := strings.Fields(string(b)); len(f) > 0 && f[0] != "running" {
			if nr, err := strconv.Atoi(f[0]); err != nil || nr != sysunix.SYS_EXECVE && nr != sysunix.SYS_EXECVEAT {
				return true
			}
		}
		if !clk.Now().Before(deadline) {
			return false
		}
		t := clk.NewTimer(100 * time.Microsecond)
		<-t.C()
	}
}

// forkJob prepares and forks the job process on a forker (see the top of
// this file).
func (s *Shepherd) forkJob(spec *sbdwire.ExecSpec, cgfd int) forked {
	var f forked
	if err := s.host.onThread(func() bool {
		var ok bool
		f, ok = s.forkOnThread(spec, cgfd)
		return ok
	}); err != nil {
		f = forked{res: &sbdwire.ExecResult{Step: StepCred, Err: err.Error()}, ws: syscall.WaitStatus(1 << 8)}
	}
	return f
}

// threadWork is a function for a forker; it returns false when it left
// the thread with another identity than the shepherd's.
type threadWork struct {
	fn   func() bool
	done chan struct{}
}

// maxForkers bounds the forker threads of a host.
const maxForkers = 4

// onThread runs fn on a forker: an OS thread with a file system context
// of its own (working directory, umask), whose file system identity fn may
// change as long as it changes it back (else it returns false and the
// thread is discarded). A forker is started when none is idle and fewer
// than maxForkers run.
func (h *Host) onThread(fn func() bool) error {
	w := threadWork{fn: fn, done: make(chan struct{})}
	select {
	case h.forkCh <- w:
	default:
		if h.forkers.Add(1) <= maxForkers {
			go h.forker()
		} else {
			h.forkers.Add(-1)
		}
		h.forkCh <- w
	}
	<-w.done
	if err, _ := h.forkErr.Load().(error); err != nil {
		return err
	}
	return nil
}

// forker serves work on a locked OS thread with its own file system
// context. When the thread cannot be returned to the shepherd's identity
// it ends, locked, and the runtime discards the thread.
func (h *Host) forker() {
	runtime.LockOSThread()
	defer h.forkers.Add(-1)
	if err := syscall.Unshare(syscall.CLONE_FS); err != nil {
		err = fmt.Errorf("unshare(CLONE_FS): %w", err)
		h.warnf("forker: %v", err)
		h.forkErr.Store(err)
		for w := range h.forkCh {
			close(w.done)
		}
		return
	}
	for w := range h.forkCh {
		ok := h.runOnForker(w.fn)
		_ = syscall.Chdir("/") // hold no job's directory
		close(w.done)
		if !ok {
			h.warnf("forker: cannot restore the thread's identity: discarding it")
			return
		}
	}
}

// runOnForker runs fn; a panic is logged and the thread (whose identity is
// then unknown) discarded, not the process.
func (h *Host) runOnForker(fn func() bool) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			h.errorf("forker: %v\n%s", r, debug.Stack())
			ok = false
		}
	}()
	return fn()
}

// forkOnThread runs on a forker; ok is false when the thread keeps a job
// user's identity and must be discarded.
func (s *Shepherd) forkOnThread(spec *sbdwire.ExecSpec, cgfd int) (_ forked, ok bool) {
	res := &sbdwire.ExecResult{}
	fail := func(step string, err error, code int) forked {
		res.Step, res.Err = step, err.Error()
		var errno syscall.Errno
		if errors.As(err, &errno) {
			res.Errno = int32(errno)
		}
		return forked{res: res, ws: syscall.WaitStatus(code << 8)}
	}
	if spec.SetMask {
		syscall.Umask(int(spec.Umask))
	}
	if spec.SetCred {
		restore, err := threadAs(int(spec.UID), int(spec.GID), spec.Groups)
		if err != nil {
			return fail(StepCred, err, 1), restore() == nil
		}
		f := s.prepareOnThread(spec, res, fail)
		// Back to the shepherd's own identity for the fork: joining the
		// unified group by clone is checked against the caller's.
		if err := restore(); err != nil {
			f.close()
			return fail(StepCred, err, 1), false
		}
		if f.failed != nil {
			return *f.failed, true
		}
		return s.forkPrepared(spec, res, f, cgfd, fail), true
	}
	f := s.prepareOnThread(spec, res, fail)
	if f.failed != nil {
		return *f.failed, true
	}
	return s.forkPrepared(spec, res, f, cgfd, fail), true
}

// prepared are the job's working directory and standard streams, as the
// job user opened them.
type prepared struct {
	in, out, errf int
	fds           []int // to close after the fork
	failed        *forked
}

func (p *prepared) close() {
	for _, fd := range p.fds {
		syscall.Close(fd)
	}
	p.fds = nil
}

func (s *Shepherd) prepareOnThread(spec *sbdwire.ExecSpec, res *sbdwire.ExecResult, fail func(string, error, int) forked) *prepared {
	p := &prepared{}
	failed := func(f forked) *prepared {
		p.close()
		p.failed = &f
		return p
	}
	if len(spec.Dirs) == 0 {
		_ = syscall.Chdir("/")
	}
	var err error
	if res.Dir, err = chdirFirst(spec.Dirs); err != nil {
		return failed(fail(StepDir, err, 1))
	}
	null := s.host.devnullFD
	p.in, p.out, p.errf = null, null, null
	if t := s.tty; t != nil {
		// An interactive job's terminal or pipes (tty.go), where no -i,
		// -o or -e names a file.
		p.in, p.out, p.errf = t.in, t.out, t.errf
	}
	if spec.Stdin != nil {
		fd, err := rawfile.OpenBlocking(spec.Stdin.Path, syscall.O_RDONLY, 0)
		if err != nil {
			return failed(fail(StepStdin, err, 1))
		}
		p.fds = append(p.fds, fd)
		p.in = fd
	}
	if spec.Stdout != nil {
		fd, path, note, err := openOutputFD(spec.Stdout)
		if err != nil {
			return failed(fail(StepStdout, err, 1))
		}
		p.fds = append(p.fds, fd)
		p.out = fd
		res.Stdout = path
		var st syscall.Stat_t
		if syscall.Fstat(fd, &st) == nil {
			res.StdoutStart = st.Size
		}
		if note != "" {
			res.OpenErrors = append(res.OpenErrors, note)
		}
	}
	switch {
	case spec.StderrToStdout:
		p.errf, res.Stderr = p.out, res.Stdout
	case spec.Stderr != nil:
		fd, path, note, err := openOutputFD(spec.Stderr)
		if err != nil {
			return failed(fail(StepStderr, err, 1))
		}
		p.fds = append(p.fds, fd)
		p.errf = fd
		res.Stderr = path
		if note != "" {
			res.OpenErrors = append(res.OpenErrors, note)
		}
	}
	return p
}

// forkPrepared forks the job process with the prepared streams (closed
// here), registering it with the host.
func (s *Shepherd) forkPrepared(spec *sbdwire.ExecSpec, res *sbdwire.ExecResult, p *prepared, cgfd int, fail func(string, error, int) forked) forked {
	defer p.close()
	path, err := lookPath(spec.Argv[0], spec.Env)
	if err != nil {
		return fail(StepExec, err, execStatus(err))
	}
	var gate [2]int
	if err := syscall.Pipe2(gate[:], syscall.O_CLOEXEC); err != nil {
		return fail(StepExec, fmt.Errorf("pipe: %w", err), 1)
	}
	gr, gw := gate[0], gate[1]
	defer syscall.Close(gr)
	files := make([]uintptr, jobenv.GateFD+1)
	files[0], files[1], files[2] = uintptr(p.in), uintptr(p.out), uintptr(p.errf)
	for i := 3; i < jobenv.GateFD; i++ {
		files[i] = ^uintptr(0) // closed
	}
	files[jobenv.GateFD] = uintptr(gr)
	sys := &syscall.SysProcAttr{Setpgid: spec.Setpgid}
	if t := s.tty; t != nil && t.pty {
		// The job leads a session whose controlling terminal is the
		// pseudo-terminal (job control in bsub -Is bash): its process
		// group is its own, as with Setpgid.
		sys.Setpgid, sys.Setsid = false, true
		for i, fd := range []int{p.in, p.out, p.errf} {
			if fd == t.in {
				sys.Setctty, sys.Ctty = true, i
				break
			}
		}
	}
	if spec.SetCred {
		groups := make([]uint32, len(spec.Groups))
		for i, g := range spec.Groups {
			groups[i] = uint32(g)
		}
		sys.Credential = &syscall.Credential{Uid: uint32(spec.UID), Gid: uint32(spec.GID), Groups: groups}
	}
	inUnified := cgfd >= 0
	if inUnified {
		sys.UseCgroupFD, sys.CgroupFD = true, cgfd
	}
	argv, env := spec.Argv, spec.Env
	if s.gated {
		argv, env = s.gateArgs(spec)
		path = s.host.gate.Path
	}
	attr := &syscall.ProcAttr{Env: env, Files: files, Sys: sys}
	pid, err := s.host.forkExec(s, path, argv, attr)
	if err != nil && inUnified {
		// Perhaps no clone3 or CLONE_INTO_CGROUP here (an old kernel, a
		// seccomp filter): the gate can join every hierarchy.
		sys.UseCgroupFD, sys.CgroupFD = false, 0
		var err2 error
		if pid, err2 = s.host.forkExec(s, path, argv, attr); err2 == nil {
			s.host.noCloneCg.Store(true)
			s.warnf("cannot clone into the job's cgroup (%v): joining it at the gate from now on", err)
			inUnified = false
		}
		err = err2
	}
	if err != nil {
		syscall.Close(gw)
		if s.gated && gateFailure(err) {
			if !s.host.noGate.Swap(true) {
				s.warnf("cannot execute the job gate (%v): jobs wait at their job file's gate from now on", err)
			}
			return fail(StepGate, fmt.Errorf("job gate: %w", err), 1)
		}
		return fail(StepExec, fmt.Errorf("%s: %w", spec.Argv[0], err), execStatus(err))
	}
	return forked{pid: pid, res: res, gate: gw, inUnified: inUnified}
}

// gateFailure says whether a fork's error is the job gate's execution
// failing (a memfd that cannot be executed here), not the job's setup.
func gateFailure(err error) bool {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return false
	}
	switch errno {
	case syscall.EACCES, syscall.ENOEXEC, syscall.ETXTBSY, syscall.ENOENT, syscall.ELOOP:
		return true
	}
	return false
}

// gateArgs are the job gate's arguments and environment: the job file's
// shell, the job file, and the command itself when it is a plain command
// found on the job's PATH (from the job's working directory, where the
// forker thread is), which the gate then executes without the shell.
func (s *Shepherd) gateArgs(spec *sbdwire.ExecSpec) ([]string, []string) {
	path := ""
	words, plain := jobenv.PlainCommand(jobenv.UserCommand(s.l, s.files))
	if plain {
		if p, err := lookPath(words[0], spec.Env); err == nil {
			path = p
		}
	}
	s.bare = path != ""
	return jobgate.Argv(spec.Argv[0], spec.Argv[1], path, words), jobgate.Env(spec.Env)
}

// chdirFirst changes to the first of dirs that it can (the job's working
// directory, then LSF's fallbacks) and returns it; the error lists why
// each failed. No dirs: nothing to do.
func chdirFirst(dirs []string) (string, error) {
	var errs []string
	for _, d := range dirs {
		if err := syscall.Chdir(d); err != nil {
			errs = append(errs, d+": "+err.Error())
			continue
		}
		return d, nil
	}
	if len(dirs) == 0 {
		return "", nil
	}
	return "", errors.New(strings.Join(errs, "; "))
}
