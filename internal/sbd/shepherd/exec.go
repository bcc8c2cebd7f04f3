package shepherd

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/basalt-lsf/basalt/api/wire"
	"github.com/basalt-lsf/basalt/internal/sbd/cgroup"
	"github.com/basalt-lsf/basalt/internal/sbd/rawfile"
	"github.com/basalt-lsf/basalt/internal/sbd/sbdwire"
)

// The helper's file descriptors, besides the standard streams.
const (
	fdSpec   = 3 // read: the sbdwire.ExecSpec
	fdResult = 4 // write: sbdwire.ExecResult frames, closed by a successful exec
)

// Steps of the helper, as ExecResult.Step names them.
const (
	StepSpec   = "spec"
	StepCgroup = "cgroup"
	StepLimits = "rlimit"
	StepCred   = "cred"
	StepDir    = "dir"
	StepStdin  = "stdin"
	StepStdout = "stdout"
	StepStderr = "stderr"
	StepEexec  = "eexec"
	StepExec   = "exec"
	// StepGate: the job gate could not be executed (direct.go); the job
	// goes back to pending, as for any failure before it ran.
	StepGate = "gate"
)

// ExecMain is the helper that becomes a job process (basaltd job-shepherd
// -exec): it reads its ExecSpec on fd 3, joins the job's cgroups, sets
// limits, process group, priority and umask, switches to the job's account,
// changes to the first usable working directory, opens the job's files as
// the job user, runs eexec, reports what it did on fd 4 and executes the
// job. It returns only on failure, with the exit status a shell would give
// (127: command not found, 126: not executable, 1: anything else).
func ExecMain() int {
	out := os.NewFile(fdResult, "result")
	syscall.CloseOnExec(fdResult)
	res := &sbdwire.ExecResult{}
	fail := func(step string, err error, code int) int {
		res.Step, res.Err = step, err.Error()
		var errno syscall.Errno
		if errors.As(err, &errno) {
			res.Errno = int32(errno)
		}
		writeResult(out, res)
		return code
	}
	in := os.NewFile(fdSpec, "spec")
	b, err := io.ReadAll(in)
	in.Close()
	if err != nil {
		return fail(StepSpec, err, 1)
	}
	spec := &sbdwire.ExecSpec{}
	if err := spec.UnmarshalWire(b); err != nil {
		return fail(StepSpec, err, 1)
	}
	if len(spec.Cgroups) > 0 {
		if err := cgroup.JoinFiles(spec.Cgroups, os.Getpid()); err != nil {
			return fail(StepCgroup, err, 1)
		}
	}
	if spec.Setpgid {
		if err := syscall.Setpgid(0, 0); err != nil {
			return fail(StepCred, fmt.Errorf("setpgid: %w", err), 1)
		}
	}
	if spec.Nice != 0 {
		_ = syscall.Setpriority(syscall.PRIO_PROCESS, 0, int(spec.Nice))
	}
	for _, rl := range spec.Rlimits {
		lim := syscall.Rlimit{Cur: rl.Cur, Max: rl.Max}
		if err := syscall.Setrlimit(int(rl.Resource), &lim); err != nil {
			return fail(StepLimits, fmt.Errorf("setrlimit(%d): %w", rl.Resource, err), 1)
		}
	}
	if spec.SetMask {
		syscall.Umask(int(spec.Umask))
	}
	if spec.SetCred {
		groups := make([]int, len(spec.Groups))
		for i, g := range spec.Groups {
			groups[i] = int(g)
		}
		if err := syscall.Setgroups(groups); err != nil {
			return fail(StepCred, fmt.Errorf("setgroups: %w", err), 1)
		}
		if err := syscall.Setgid(int(spec.GID)); err != nil {
			return fail(StepCred, fmt.Errorf("setgid(%d): %w", spec.GID, err), 1)
		}
		if err := syscall.Setuid(int(spec.UID)); err != nil {
			return fail(StepCred, fmt.Errorf("setuid(%d): %w", spec.UID, err), 1)
		}
	}
	dir, err := chdirFirst(spec.Dirs)
	if err != nil {
		return fail(StepDir, err, 1)
	}
	res.Dir = dir
	if spec.Stdin != nil {
		f, err := os.Open(spec.Stdin.Path)
		if err != nil {
			return fail(StepStdin, err, 1)
		}
		dup(f, 0)
	}
	if spec.Stdout != nil {
		f, path, note, err := openOutput(spec.Stdout)
		if err != nil {
			return fail(StepStdout, err, 1)
		}
		res.Stdout = path
		if st, err := f.Stat(); err == nil {
			res.StdoutStart = st.Size()
		}
		if note != "" {
			res.OpenErrors = append(res.OpenErrors, note)
		}
		dup(f, 1)
	}
	switch {
	case spec.StderrToStdout:
		if err := syscall.Dup3(1, 2, 0); err != nil {
			return fail(StepStderr, err, 1)
		}
		res.Stderr = res.Stdout
	case spec.Stderr != nil:
		f, path, note, err := openOutput(spec.Stderr)
		if err != nil {
			return fail(StepStderr, err, 1)
		}
		res.Stderr = path
		if note != "" {
			res.OpenErrors = append(res.OpenErrors, note)
		}
		dup(f, 2)
	}
	env := spec.Env
	if spec.SetJobPID {
		pid := strconv.Itoa(os.Getpid())
		env = append(env[:len(env):len(env)], "LS_JOBPID="+pid, "LSB_JOBPIDS="+pid)
	}
	if spec.Eexec != "" {
		if err := runEexec(spec, env); err != nil {
			return fail(StepEexec, err, 1)
		}
	}
	path, err := lookPath(spec.Argv[0], env)
	if err != nil {
		return fail(StepExec, err, execStatus(err))
	}
	writeResult(out, res)
	err = syscall.Exec(path, spec.Argv, env)
	return fail(StepExec, fmt.Errorf("%s: %w", spec.Argv[0], err), execStatus(err))
}

func execStatus(err error) int {
	switch {
	case errors.Is(err, syscall.ENOENT), errors.Is(err, exec.ErrNotFound):
		return 127
	case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.ENOEXEC), errors.Is(err, syscall.EISDIR):
		return 126
	}
	return 1
}

// lookPath resolves a command name through the job's PATH.
func lookPath(name string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	path := ""
	for _, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			path = kv[5:]
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: %w", name, exec.ErrNotFound)
}

func dup(f *os.File, fd int) {
	if int(f.Fd()) != fd {
		_ = syscall.Dup3(int(f.Fd()), fd, 0)
		f.Close()
	}
}

// openOutput opens an output file as the current (job) user: in a
// directory named by the path (trailing slash, or an existing directory)
// the file is DirName; when the file cannot be opened the fallback is, and
// note says why.
func openOutput(fs *sbdwire.FileSpec) (f *os.File, path, note string, err error) {
	fd, path, note, err := openOutputFD(fs)
	if err != nil {
		return nil, "", "", err
	}
	return os.NewFile(uintptr(fd), path), path, note, nil
}

// openOutputFD is openOutput returning a bare descriptor (close-on-exec).
func openOutputFD(fs *sbdwire.FileSpec) (fd int, path, note string, err error) {
	path = fs.Path
	if fs.DirName != "" {
		if strings.HasSuffix(path, "/") {
			_ = os.MkdirAll(path, 0o700)
			path = filepath.Join(path, fs.DirName)
		} else if st, serr := os.Stat(path); serr == nil && st.IsDir() {
			path = filepath.Join(path, fs.DirName)
		}
	}
	flags := syscall.O_WRONLY | syscall.O_CREAT
	if fs.Append {
		flags |= syscall.O_APPEND
	} else {
		flags |= syscall.O_TRUNC
	}
	fd, err = rawfile.OpenBlocking(path, flags, 0o666)
	if err == nil {
		return fd, absPath(path), "", nil
	}
	if fs.Fallback == "" {
		return -1, "", "", err
	}
	fd, ferr := rawfile.OpenBlocking(fs.Fallback, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_APPEND, 0o600)
	if ferr != nil {
		return -1, "", "", fmt.Errorf("%w (fallback: %v)", err, ferr)
	}
	return fd, fs.Fallback, fmt.Sprintf("Fail to open output file %s: %v.", fs.Path, unwrapPath(err)), nil
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// runEexec runs eexec (LS_EXEC_T=START) with esub's output on its standard
// input and the job's output and error, and waits for it, as LSF does
// before starting the job.
func runEexec(spec *sbdwire.ExecSpec, env []string) error {
	cmd := exec.Command(spec.Eexec)
	cmd.Env = append(env[:len(env):len(env)], "LS_EXEC_T=START")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if spec.EexecInput != "" {
		f, err := os.Open(spec.EexecInput)
		if err == nil {
			defer f.Close()
			cmd.Stdin = f
		}
	}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("eexec: %w", err)
	}
	return nil
}

func writeResult(out *os.File, res *sbdwire.ExecResult) {
	b := wire.Marshal(res)
	buf := binary.AppendUvarint(make([]byte, 0, len(b)+binary.MaxVarintLen64), uint64(len(b)))
	_, _ = out.Write(append(buf, b...))
}

// readResults reads the helper's result frames until the pipe closes and
// returns the last one (nil when the helper wrote none).
func readResults(r io.Reader) *sbdwire.ExecResult {
	br := newByteReader(r)
	var last *sbdwire.ExecResult
	for {
		n, err := binary.ReadUvarint(br)
		if err != nil || n > maxFrame {
			return last
		}
		b := make([]byte, n)
		if _, err := io.ReadFull(br, b); err != nil {
			return last
		}
		res := &sbdwire.ExecResult{}
		if res.UnmarshalWire(b) == nil {
			last = res
		}
	}
}

type byteReader struct {
	io.Reader
	b [1]byte
}

func newByteReader(r io.Reader) *byteReader { return &byteReader{Reader: r} }

func (r *byteReader) ReadByte() (byte, error) {
	_, err := io.ReadFull(r.Reader, r.b[:])
	return r.b[0], err
}
