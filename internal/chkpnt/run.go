package chkpnt

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Files of a job's checkpoint directory.
const (
	// DoneFile is what a job checkpointed by the default method creates
	// once it has saved its state.
	DoneFile = "chkpnt.done"
	// RestartCmdFile is where erestart.<method> writes
	// LSB_RESTART_CMD=command.
	RestartCmdFile = ".restart_cmd"
	// MarkFile records a successful checkpoint (the method that took it):
	// only a checkpointed job can be restarted.
	MarkFile = ".basalt-chkpnt"
	// SubmissionFile is the job's submission (api.JobSpec, wire encoded)
	// the shepherd saves, as the job user, at each successful checkpoint:
	// brestart submits it again when mbatchd no longer knows the job.
	SubmissionFile = ".basalt-job"
)

// Env is what the echkpnt and erestart programs see of their process.
type Env struct {
	Getenv  func(string) string
	Environ []string
}

func (e Env) get(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

// Args are echkpnt's options: echkpnt [-c] [-f] [-k | -s] [-d dir] [-x]
// process_group_ID.
type Args struct {
	Copy, Force, Kill, Stop, Tree bool
	Dir                           string
	PGID                          int
}

// Argv renders a for echkpnt.<method>.
func (a Args) Argv() []string {
	var v []string
	for _, f := range []struct {
		on   bool
		flag string
	}{{a.Copy, "-c"}, {a.Force, "-f"}, {a.Kill, "-k"}, {a.Stop, "-s"}} {
		if f.on {
			v = append(v, f.flag)
		}
	}
	if a.Dir != "" {
		v = append(v, "-d", a.Dir)
	}
	if a.Tree {
		v = append(v, "-x")
	}
	return append(v, strconv.Itoa(a.PGID))
}

// ParseArgs parses echkpnt's command line.
func ParseArgs(args []string) (Args, error) {
	var a Args
	i := 0
	for ; i < len(args) && strings.HasPrefix(args[i], "-") && len(args[i]) > 1; i++ {
		switch args[i] {
		case "-c":
			a.Copy = true
		case "-f":
			a.Force = true
		case "-k":
			a.Kill = true
		case "-s":
			a.Stop = true
		case "-x":
			a.Tree = true
		case "-d":
			if i+1 >= len(args) {
				return a, errors.New("-d needs a checkpoint directory")
			}
			i++
			a.Dir = args[i]
		default:
			return a, fmt.Errorf("unknown option %s", args[i])
		}
	}
	if a.Kill && a.Stop {
		return a, errors.New("-k and -s are mutually exclusive")
	}
	if i != len(args)-1 {
		return a, errors.New("usage: echkpnt [-c] [-f] [-k | -s] [-d checkpoint_dir] [-x] process_group_ID")
	}
	n, err := strconv.Atoi(args[i])
	if err != nil || n <= 0 {
		return a, fmt.Errorf("bad process group ID %q", args[i])
	}
	a.PGID = n
	return a, nil
}

// Echkpnt is the echkpnt program: it checkpoints process group a.PGID into
// the job's checkpoint directory (-d, else LSB_CHKPNT_DIR) with the job's
// method, and records the success in MarkFile.
func Echkpnt(ctx context.Context, a Args, env Env) error {
	dir := a.Dir
	if dir == "" {
		dir = env.get("LSB_CHKPNT_DIR")
	}
	if dir == "" {
		return errors.New("no checkpoint directory (-d or LSB_CHKPNT_DIR)")
	}
	a.Dir = dir
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("checkpoint directory: %w", err)
	}
	m, err := Find(env.get("LSB_ECHKPNT_METHOD"), env.get("LSB_ECHKPNT_METHOD_DIR"), env.get("LSF_SERVERDIR"))
	if err != nil {
		return err
	}
	switch {
	case !m.Builtin():
		err = runMethod(ctx, m.Echkpnt, a.Argv(), dir, "echkpnt", env)
	case m.Name == MethodCRIU:
		err = criuDump(ctx, dir, a.PGID)
	default:
		err = appCheckpoint(ctx, dir, a.PGID, env)
	}
	if err != nil {
		return err
	}
	return writeAtomic(filepath.Join(dir, MarkFile), []byte(m.Name+"\n"))
}

// Checkpointed reports whether dir holds a successful checkpoint.
func Checkpointed(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, MarkFile))
	return err == nil
}

// ParseRestartArgs parses erestart's command line: erestart [-c] [-f]
// checkpoint_dir.
func ParseRestartArgs(args []string) (dir string, flags []string, err error) {
	i := 0
	for ; i < len(args) && (args[i] == "-c" || args[i] == "-f"); i++ {
		flags = append(flags, args[i])
	}
	if i != len(args)-1 || strings.HasPrefix(args[i], "-") {
		return "", nil, errors.New("usage: erestart [-c] [-f] checkpoint_dir")
	}
	return args[i], flags, nil
}

// Erestart is the erestart program up to the command it executes: it
// moves the checkpoint of an earlier job ID to the job's own directory
// (LSB_CHKPNT_DIR, leaving a symbolic link at the old name, as LSF does),
// runs erestart.<method>, and returns the restart command (.restart_cmd's
// LSB_RESTART_CMD, else the job's command, LSB_ERESTART_USRCMD) and the
// checkpoint directory now in use.
func Erestart(ctx context.Context, dir string, flags []string, env Env) (cmd, used string, err error) {
	if !Checkpointed(dir) {
		return "", "", fmt.Errorf("%s: no checkpoint to restart from", dir)
	}
	used = dir
	if own := env.get("LSB_CHKPNT_DIR"); own != "" && filepath.Clean(own) != filepath.Clean(dir) {
		if _, err := os.Lstat(own); errors.Is(err, os.ErrNotExist) {
			if err := os.Rename(dir, own); err != nil {
				return "", "", fmt.Errorf("checkpoint directory: %w", err)
			}
			if err := os.Symlink(filepath.Base(own), dir); err != nil {
				return "", "", fmt.Errorf("checkpoint directory: %w", err)
			}
			used = own
		}
	}
	m, err := Find(env.get("LSB_ECHKPNT_METHOD"), env.get("LSB_ECHKPNT_METHOD_DIR"), env.get("LSF_SERVERDIR"))
	if err != nil {
		return "", "", err
	}
	rc := filepath.Join(used, RestartCmdFile)
	_ = os.Remove(rc)
	switch {
	case !m.Builtin():
		err = runMethod(ctx, m.Erestart, append(flags, used), used, "erestart", env)
	case m.Name == MethodCRIU:
		err = writeAtomic(rc, []byte("LSB_RESTART_CMD="+criuRestoreCmd(used)+"\n"))
	}
	if err != nil {
		return "", "", err
	}
	cmd, err = readRestartCmd(rc)
	if err != nil {
		return "", "", err
	}
	if cmd == "" {
		cmd = env.get("LSB_ERESTART_USRCMD")
	}
	if cmd == "" {
		return "", "", errors.New("no restart command: .restart_cmd is empty and LSB_ERESTART_USRCMD is not set")
	}
	return cmd, used, nil
}

// ExecForm is a restart command as erestart gives it to /bin/sh -c: a
// simple command (no list, pipeline or background) is prefixed with exec,
// so that the restarted job is the command itself and no shell stays
// between it and the signals of its next checkpoint (a shell would die of
// the default method's SIGUSR1).
func ExecForm(cmd string) string {
	c := strings.TrimSpace(cmd)
	if c == "" || strings.ContainsAny(c, ";&|\n(){}`") || strings.HasPrefix(c, "exec ") {
		return cmd
	}
	for _, kw := range []string{"if", "for", "while", "until", "case", "!"} {
		if c == kw || strings.HasPrefix(c, kw+" ") {
			return cmd
		}
	}
	return "exec " + c
}

func readRestartCmd(p string) (string, error) {
	f, err := os.Open(p)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "LSB_RESTART_CMD="); ok {
			return strings.TrimSpace(v), nil
		}
	}
	return "", sc.Err()
}

// runMethod runs a method's program with the job's environment; its
// output goes to name.out/.err in dir with LSB_ECHKPNT_KEEP_OUTPUT=y, else
// nowhere.
func runMethod(ctx context.Context, prog string, argv []string, dir, name string, env Env) error {
	c := exec.CommandContext(ctx, prog, argv...)
	c.Env = append(append([]string(nil), env.Environ...), "LSB_CHKPNT_DIR="+dir)
	if k := env.get("LSB_ECHKPNT_KEEP_OUTPUT"); strings.EqualFold(k, "y") {
		out, err := os.Create(filepath.Join(dir, name+".out"))
		if err != nil {
			return err
		}
		defer out.Close()
		errf, err := os.Create(filepath.Join(dir, name+".err"))
		if err != nil {
			return err
		}
		defer errf.Close()
		c.Stdout, c.Stderr = out, errf
	}
	if err := c.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return fmt.Errorf("%s failed (%s)", filepath.Base(prog), ee.ProcessState)
		}
		return fmt.Errorf("%s: %w", filepath.Base(prog), err)
	}
	return nil
}

// appCheckpoint is the default method: signal the job, wait for it to say
// it saved its state.
func appCheckpoint(ctx context.Context, dir string, pgid int, env Env) error {
	sig := syscall.SIGUSR1
	if s := env.get("LSB_ECHKPNT_SIGNAL"); s != "" {
		var ok bool
		if sig, ok = ParseSignal(s); !ok {
			return fmt.Errorf("LSB_ECHKPNT_SIGNAL: bad signal %q", s)
		}
	}
	timeout := 60 * time.Second
	if s := env.get("BASALT_ECHKPNT_TIMEOUT"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			return fmt.Errorf("BASALT_ECHKPNT_TIMEOUT: bad number of seconds %q", s)
		}
		timeout = time.Duration(n) * time.Second
	}
	done := filepath.Join(dir, DoneFile)
	if err := os.Remove(done); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	// A suspended job (SIGSTOP) is let run while it saves its state, and
	// stopped again after.
	stopped := groupStopped(pgid)
	if err := syscall.Kill(-pgid, sig); err != nil {
		return fmt.Errorf("signalling process group %d: %w", pgid, err)
	}
	if stopped {
		_ = syscall.Kill(-pgid, syscall.SIGCONT)
		defer syscall.Kill(-pgid, syscall.SIGSTOP)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := os.Stat(done); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the job did not save its state (no %s after %v)", DoneFile, timeout)
		case <-tick.C:
		}
	}
}

// groupStopped reports whether the job in process group pgid is stopped:
// some process of the group is (state T in /proc/<pid>/stat). The leader
// alone does not tell: a shell stopped while it forks a command with vfork
// waits uninterruptibly (state D) on its stopped child.
func groupStopped(pgid int) bool {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		if state, pg, ok := statStateGroup(b); ok && pg == pgid && (state == 'T' || state == 't') {
			return true
		}
	}
	return false
}

// statStateGroup returns the state and process group of a
// /proc/<pid>/stat line ("pid (comm) state ppid pgrp ...").
func statStateGroup(b []byte) (state byte, pgid int, ok bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 3 || len(f[0]) != 1 || !('A' <= f[0][0] && f[0][0] <= 'Z' || 'a' <= f[0][0] && f[0][0] <= 'z') {
		return 0, 0, false
	}
	pg, err := strconv.Atoi(f[2])
	if err != nil {
		return 0, 0, false
	}
	return f[0][0], pg, true
}

// sigPWR is Linux's SIGPWR (30 on every Linux architecture Basalt builds
// for); the syscall package has no name for it on the other systems the
// commands are built for.
const sigPWR = syscall.Signal(30)

var signals = map[string]syscall.Signal{
	"HUP": syscall.SIGHUP, "INT": syscall.SIGINT, "QUIT": syscall.SIGQUIT, "USR1": syscall.SIGUSR1,
	"USR2": syscall.SIGUSR2, "TERM": syscall.SIGTERM, "URG": syscall.SIGURG, "WINCH": syscall.SIGWINCH,
	"IO": syscall.SIGIO, "PWR": sigPWR, "XCPU": syscall.SIGXCPU, "ALRM": syscall.SIGALRM,
}

// ParseSignal reads a signal name (with or without SIG) or number.
func ParseSignal(s string) (syscall.Signal, bool) {
	if n, err := strconv.Atoi(s); err == nil {
		return syscall.Signal(n), n > 0 && n < 65
	}
	sig, ok := signals[strings.TrimPrefix(strings.ToUpper(s), "SIG")]
	return sig, ok
}

// CRIUCheck says why the criu method cannot work here: criu missing, or
// `criu check` failing on this kernel.
func CRIUCheck(ctx context.Context) error {
	p, err := exec.LookPath("criu")
	if err != nil {
		return errors.New("criu is not installed")
	}
	out, err := exec.CommandContext(ctx, p, "check").CombinedOutput()
	if err != nil {
		return fmt.Errorf("criu check: %v: %s", err, lastLine(out))
	}
	return nil
}

func criuDump(ctx context.Context, dir string, pid int) error {
	img := filepath.Join(dir, "criu")
	if err := os.MkdirAll(img, 0o700); err != nil {
		return err
	}
	out, err := exec.CommandContext(ctx, "criu", "dump", "-t", strconv.Itoa(pid), "-D", img,
		"--shell-job", "--leave-running", "-o", "dump.log").CombinedOutput()
	if err != nil {
		return fmt.Errorf("criu dump: %v: %s", err, lastLine(out))
	}
	return nil
}

func criuRestoreCmd(dir string) string {
	return "exec criu restore -D " + ShellQuote(filepath.Join(dir, "criu")) + " --shell-job -o restore.log"
}

// ShellQuote quotes s for /bin/sh, always (restart command lines).
func ShellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func lastLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

func writeAtomic(p string, b []byte) error {
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}
