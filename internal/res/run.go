package res

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/rpc"
	"github.com/basalt-lsf/basalt/internal/sbd/cgroup"
	"github.com/creack/pty"
)

// run serves RES.Run: the TaskSpec first, then stdin, signals and
// resizes; Started, output and Exit back. The task's session is killed
// when the task ends (its leftovers), when the client goes away, or when
// RES shuts down.
func (s *Server) run(ctx context.Context, st *rpc.ServerStream) error {
	id := st.Identity()
	if id.Daemon != "" {
		return s.refuse(id, "", errDenied, "a daemon identity") // never gets to send a task
	}
	if s.DisableLsrun && !(id.IsRoot() || s.Admin != nil && s.Admin(id.User) || strings.EqualFold(id.Host, s.Host)) {
		return s.refuse(id, "", errDenied, "LSF_DISABLE_LSRUN: tasks from other hosts for root and the administrators only")
	}
	var in api.TaskInput
	if err := st.Recv(&in); err != nil {
		if err == io.EOF {
			return rpc.Errorf(rpc.InvalidArgument, "RES.Run: no task")
		}
		return err
	}
	spec := in.Spec
	if spec == nil || len(spec.Argv) == 0 {
		return rpc.Errorf(rpc.InvalidArgument, "RES.Run: the first message names no task")
	}
	acct, err := s.account(id, spec.User)
	if err != nil {
		return err
	}
	var sendMu sync.Mutex
	send := func(m *api.TaskOutput) error {
		sendMu.Lock()
		defer sendMu.Unlock()
		return st.Send(m)
	}
	t, err := s.start(acct, spec)
	if err != nil {
		s.log().Info("task could not start", "user", acct.User, "from", describe(id), "argv", spec.Argv, "err", err)
		var ee *execError
		if errors.As(err, &ee) {
			// As LSF's RES: the child's perror(argv[0]) on the task's
			// stderr (its terminal with a pty), and status 127.
			out := &api.TaskOutput{Stderr: []byte(ee.Error() + "\n")}
			if spec.Pty {
				out = &api.TaskOutput{Stdout: []byte(ee.Error() + "\r\n")}
			}
			if err := send(out); err != nil {
				return err
			}
			return send(&api.TaskOutput{Exit: &api.TaskExit{ExitCode: 127}})
		}
		return send(&api.TaskOutput{Exit: &api.TaskExit{ExitCode: 127, Message: err.Error()}})
	}
	s.log().Info("task started", "user", acct.User, "from", describe(id), "host", s.Host, "pid", t.cmd.Process.Pid, "argv", spec.Argv, "pty", spec.Pty)
	dispatched := time.Now()
	defer t.removeGroup()
	defer t.killSession()
	if err := send(&api.TaskOutput{Started: &api.TaskStarted{PID: int32(t.cmd.Process.Pid), Host: s.Host}}); err != nil {
		return err
	}
	// Output: one reader per stream; both end at EOF (every writer gone)
	// or when the session is killed after the task ended.
	var outWG sync.WaitGroup
	pump := func(r io.Reader, stderr bool) {
		defer outWG.Done()
		buf := make([]byte, 32<<10)
		for {
			n, err := r.Read(buf)
			if n > 0 {
				m := &api.TaskOutput{Stdout: append([]byte(nil), buf[:n]...)}
				if stderr {
					m = &api.TaskOutput{Stderr: m.Stdout}
				}
				if send(m) != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}
	for i, r := range t.outputs {
		outWG.Add(1)
		go pump(r, i == 1)
	}
	// Input: until the client ends its side; a broken stream (client gone)
	// kills the session.
	go func() {
		for {
			var m api.TaskInput
			if err := st.Recv(&m); err != nil {
				if err != io.EOF {
					t.killSession()
				}
				t.closeStdin()
				return
			}
			t.input(&m)
		}
	}()
	waitErr := make(chan error, 1)
	go func() { waitErr <- t.cmd.Wait() }()
	var werr error
	select {
	case werr = <-waitErr:
	case <-ctx.Done():
		t.killSession()
		<-waitErr
		t.killSession()
		t.closeOutputs()
		outWG.Wait()
		s.log().Info("task killed: client gone", "user", acct.User, "from", describe(id), "host", s.Host, "pid", t.cmd.Process.Pid)
		return ctx.Err()
	}
	// The task has ended: what it left running in its session goes too,
	// then its output is drained.
	t.killSession()
	if t.ptmx != nil {
		outWG.Wait() // EIO once the terminal's last holder is gone
	} else {
		outWG.Wait()
	}
	t.closeOutputs()
	ex := exitOf(t.cmd.ProcessState, werr)
	s.log().Info("task done", "user", acct.User, "from", describe(id), "host", s.Host, "pid", t.cmd.Process.Pid, "exit", ex.ExitCode, "signal", ex.Signal)
	s.logTask(taskRecordOf(t, acct.User, id.Host, spec.Argv, dispatched))
	return send(&api.TaskOutput{Exit: ex})
}

// exitOf is a wait status as a TaskExit.
func exitOf(ps *os.ProcessState, err error) *api.TaskExit {
	if ps == nil {
		msg := "unknown"
		if err != nil {
			msg = err.Error()
		}
		return &api.TaskExit{ExitCode: 1, Message: msg}
	}
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok {
		return &api.TaskExit{ExitCode: int32(ps.ExitCode())}
	}
	if ws.Signaled() {
		return &api.TaskExit{ExitCode: 128 + int32(ws.Signal()), Signal: int32(ws.Signal()), CoreDump: ws.CoreDump()}
	}
	return &api.TaskExit{ExitCode: int32(ws.ExitStatus())}
}

// task is a running task.
type task struct {
	cmd     *exec.Cmd
	ptmx    *os.File // with a pseudo-terminal
	stdin   io.WriteCloser
	outputs []io.Reader // stdout, stderr (pipes) or the terminal
	closers []io.Closer
	group   *cgroup.Group // nil: the session only

	mu     sync.Mutex
	inDone bool
}

// taskSeq names the tasks' control groups.
var taskSeq atomic.Int64

// start starts the task in a session of its own as acct.
func (s *Server) start(acct *account, spec *api.TaskSpec) (*task, error) {
	env := spec.Env
	if len(env) == 0 {
		env = []string{"HOME=" + acct.Home, "USER=" + acct.User, "LOGNAME=" + acct.User, "PATH=/usr/local/bin:/usr/bin:/bin"}
	}
	for _, kv := range s.Env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env = setEnv(env, k, v)
		}
	}
	if spec.Pty && spec.Term != "" {
		env = setEnv(env, "TERM", spec.Term)
	}
	path, err := lookPath(spec.Argv[0], getEnv(env, "PATH"))
	if err != nil {
		return nil, err
	}
	cmd := &exec.Cmd{Path: path, Args: spec.Argv, Env: env, Dir: workDir(spec.Cwd, acct.Home)}
	attr := &syscall.SysProcAttr{Setsid: true}
	if os.Geteuid() == 0 {
		groups := make([]uint32, len(acct.Groups))
		for i, g := range acct.Groups {
			groups[i] = uint32(g)
		}
		attr.Credential = &syscall.Credential{Uid: uint32(acct.UID), Gid: uint32(acct.GID), Groups: groups}
	}
	cmd.SysProcAttr = attr
	t := &task{cmd: cmd}
	if s.Cgroups != nil {
		g, _, err := s.Cgroups.Make(fmt.Sprintf("task.%d", taskSeq.Add(1)))
		if err != nil {
			s.log().Warn("task cgroup not made: its session only is tracked", "err", err)
		} else {
			t.group = g
			// Into the group at clone (cgroup v2): no fork escapes
			// before it joins.
			if dir := g.Unified(); dir != "" {
				if fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0); err == nil {
					attr.UseCgroupFD, attr.CgroupFD = true, fd
					defer syscall.Close(fd)
				}
			}
		}
	}
	started := func() {
		if t.group != nil && !attr.UseCgroupFD {
			_ = t.group.Join(cmd.Process.Pid)
		}
	}
	if spec.Pty {
		ptmx, tty, err := pty.Open()
		if err != nil {
			return nil, err
		}
		if spec.Rows > 0 && spec.Cols > 0 {
			_ = pty.Setsize(ptmx, &pty.Winsize{Rows: uint16(spec.Rows), Cols: uint16(spec.Cols)})
		}
		if os.Geteuid() == 0 {
			_ = tty.Chown(int(acct.UID), -1)
		}
		cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
		attr.Setctty, attr.Ctty = true, 0
		if err := execErr(spec.Argv[0], cmd.Start()); err != nil {
			ptmx.Close()
			tty.Close()
			t.removeGroup()
			return nil, err
		}
		started()
		tty.Close()
		t.ptmx, t.stdin, t.outputs = ptmx, ptmx, []io.Reader{ptmx}
		t.closers = []io.Closer{ptmx}
		return t, nil
	}
	var stdinR *os.File
	if spec.NoStdin {
		cmd.Stdin = nil // /dev/null
	} else {
		r, w, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		stdinR, t.stdin = r, w
		cmd.Stdin = r
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	err = execErr(spec.Argv[0], cmd.Start())
	if err == nil {
		started()
	} else {
		t.removeGroup()
	}
	outW.Close()
	errW.Close()
	if stdinR != nil {
		stdinR.Close()
	}
	if err != nil {
		outR.Close()
		errR.Close()
		if t.stdin != nil {
			t.stdin.Close()
		}
		return nil, err
	}
	t.outputs = []io.Reader{outR, errR}
	t.closers = []io.Closer{outR, errR}
	return t, nil
}

// input applies one client message.
func (t *task) input(m *api.TaskInput) {
	if len(m.Stdin) > 0 {
		t.mu.Lock()
		w, done := t.stdin, t.inDone
		t.mu.Unlock()
		if w != nil && !done {
			_, _ = w.Write(m.Stdin)
		}
	}
	if m.StdinEOF && t.ptmx == nil {
		t.closeStdin()
	}
	if m.Signal > 0 && m.Signal < 65 {
		_ = syscall.Kill(-t.cmd.Process.Pid, syscall.Signal(m.Signal))
	}
	if m.Resize != nil && t.ptmx != nil {
		_ = pty.Setsize(t.ptmx, &pty.Winsize{Rows: uint16(m.Resize.Rows), Cols: uint16(m.Resize.Cols)})
	}
}

func (t *task) closeStdin() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.inDone {
		return
	}
	t.inDone = true
	if t.stdin != nil && t.ptmx == nil {
		t.stdin.Close()
	}
}

func (t *task) closeOutputs() {
	t.closeStdin()
	for _, c := range t.closers {
		c.Close()
	}
}

// killSession kills every process of the task's session (its process
// group, and the groups its shell or programs made inside the session).
func (t *task) killSession() {
	sid := t.cmd.Process.Pid
	_ = syscall.Kill(-sid, syscall.SIGKILL)
	killSession(sid)
	if t.group != nil {
		_ = t.group.Kill()
	}
}

// removeGroup kills what is left in the task's group and removes it.
func (t *task) removeGroup() {
	if t.group == nil {
		return
	}
	_ = t.group.Kill()
	for range 50 {
		if t.group.Remove() == nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// workDir is the task's working directory: cwd when it exists, else the
// user's home, else /tmp.
func workDir(cwd, home string) string {
	for _, d := range []string{cwd, home} {
		if d == "" {
			continue
		}
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return d
		}
	}
	return "/tmp"
}

// execError is a command that could not be executed: the name as the
// client gave it and execve's error, printed as perror prints it.
type execError struct {
	name  string
	errno syscall.Errno
}

func (e *execError) Error() string {
	return e.name + ": " + strerror(e.errno)
}

// strerror is err's text as glibc's strerror prints it (capitalised; Go's
// is lower case), as LSF shows it.
func strerror(err error) string {
	msg := err.Error()
	if msg == "" {
		return msg
	}
	return strings.ToUpper(msg[:1]) + msg[1:]
}

// execErr is err as an execError when the exec itself failed.
func execErr(name string, err error) error {
	var pe *os.PathError
	var errno syscall.Errno
	if err == nil || !errors.As(err, &pe) || pe.Op != "fork/exec" || !errors.As(err, &errno) {
		return err
	}
	switch errno {
	case syscall.ENOENT, syscall.EACCES, syscall.ENOEXEC, syscall.ENOTDIR, syscall.ELOOP, syscall.ENAMETOOLONG, syscall.EISDIR:
		return &execError{name, errno}
	}
	return err
}

// lookPath finds a command in the task's PATH as execvp does: ENOENT when
// no directory has it, EACCES when one has it but it is not executable.
func lookPath(name, path string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	if path == "" {
		path = "/usr/local/bin:/usr/bin:/bin"
	}
	denied := false
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		st, err := os.Stat(p)
		if err != nil || st.IsDir() {
			continue
		}
		if st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, nil
		}
		denied = true
	}
	if denied {
		return "", &execError{name, syscall.EACCES}
	}
	return "", &execError{name, syscall.ENOENT}
}

func getEnv(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}

func setEnv(env []string, key, val string) []string {
	out := env[:0:0]
	for _, e := range env {
		if k, _, _ := strings.Cut(e, "="); k != key {
			out = append(out, e)
		}
	}
	return append(out, key+"="+val)
}
