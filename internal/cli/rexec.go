package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/config/lsfhosts"
	"github.com/basalt-lsf/basalt/internal/resreq"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

// The remote execution clients (lsrun, lsgrun, lsrcp): a connection to a
// host's RES with the user's credentials, a task run through it, and host
// placement by the master LIM (lsplace's code path).

// dialRES connects to host's RES (LSF_RES_PORT) as the invoking user.
func dialRES(ctx context.Context, env *Env, cc *clientConf, host string) (*rpc.Client, error) {
	addr, err := cc.addr(ctx, host, cc.conf.RESPort())
	if err != nil {
		return nil, err
	}
	hello, err := cc.hello(ctx, cc.creds(env), auth.KindRES, host)
	if err != nil {
		return nil, err
	}
	return rpc.Dial(ctx, addr, hello)
}

// placeHosts asks the master LIM for the best n ok server hosts among
// names (all when empty) that satisfy req (0: every eligible host), as
// lsplace does; false after an error was printed.
func placeHosts(ctx context.Context, env *Env, cmd string, names []string, req string, n int) ([]string, bool) {
	c, b, ok := lsConnect(ctx, env, cmd)
	if !ok {
		return nil, false
	}
	defer c.Close()
	cl, err := c.Cluster(ctx)
	if err != nil {
		limError(env, cmd, err)
		return nil, false
	}
	hosts, ok := lsHosts(env, cmd, cl, names)
	if !ok {
		return nil, false
	}
	var avail []*api.HostLoad
	for _, h := range hosts {
		if h.Status == 0 && h.Server {
			avail = append(avail, h)
		}
	}
	if avail, ok = lsSelect(env, cmd, b, cl, avail, req, resreq.CtxLsplace, true); !ok {
		return nil, false
	}
	if len(avail) == 0 {
		fmt.Fprintf(env.Stderr, "%s: Not enough host(s) currently eligible\n", cmd)
		return nil, false
	}
	if n > 0 && len(avail) > n {
		avail = avail[:n]
	}
	out := make([]string, len(avail))
	for i, h := range avail {
		out[i] = h.Name
	}
	return out, true
}

// clusterHost checks that name is a host of the local cluster and returns
// its configured name.
func clusterHost(ctx context.Context, env *Env, name string) (string, error) {
	b, err := lsBase(ctx, env)
	if err != nil {
		return "", err
	}
	h := b.Cluster.Host(name)
	if h == nil {
		return "", fmt.Errorf("invalid hostname %s", name)
	}
	return h.Name, nil
}

var _ = config.DefaultEnvDir

// mappedUser is the account the caller's ~/.lsfhosts sends it to on host
// (user account mapping), "" for its own.
func mappedUser(host string) string {
	u, err := osUser()
	if err != nil {
		return ""
	}
	es, err := lsfhosts.Load(u.HomeDir, os.Getuid())
	if err != nil {
		return ""
	}
	return lsfhosts.SendTo(es, host, "")
}

// taskIO is where a remote task's streams go.
type taskIO struct {
	stdin          io.Reader // nil: no input (the task's stdin is /dev/null)
	stdout, stderr io.Writer
	pty            bool
	shellMode      bool // lsrun -S: the local terminal fully raw, ^C and ^Z go to the remote terminal
	forwardSignals bool // the process's SIGINT, SIGTERM, SIGQUIT, SIGTSTP go to the task
}

// errRemote is the failure to run the task (not the task's own failure).
type errRemote struct{ msg string }

func (e *errRemote) Error() string { return e.msg }

// runTask runs argv on host through its RES and returns the task's exit
// status (128+signal when a signal ended it).
func runTask(ctx context.Context, env *Env, cc *clientConf, host string, argv []string, tio taskIO) (int, error) {
	code, _, err := runTaskStarted(ctx, env, cc, host, argv, tio)
	return code, err
}

// runTaskStarted is runTask that also reports whether the RES started the
// task (after which a failure is not one to run it elsewhere for).
func runTaskStarted(ctx context.Context, env *Env, cc *clientConf, host string, argv []string, tio taskIO) (code int, started bool, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c, err := dialRES(ctx, env, cc, host)
	if err != nil {
		return 0, started, err
	}
	defer c.Close()
	st, err := c.Bidi(ctx, api.RESRun, nil)
	if err != nil {
		return 0, started, err
	}
	spec := &api.TaskSpec{Argv: argv, Env: env.Environ(), NoStdin: tio.stdin == nil && !tio.pty, User: mappedUser(host)}
	if env.Getwd != nil {
		spec.Cwd, _ = env.Getwd()
	}
	var term *rawTerm
	if tio.pty {
		spec.Pty = true
		spec.Term = env.Getenv("TERM")
		spec.Rows, spec.Cols = 24, 80
		if f, ok := env.Stdin.(*os.File); ok && env.Process {
			if r, c, ok := termSize(f); ok {
				spec.Rows, spec.Cols = r, c
			}
			if t, err := makeRaw(f, !tio.shellMode); err == nil {
				term = t
				defer term.restore()
			}
		}
	}
	var sendMu sync.Mutex
	send := func(m *api.TaskInput) error {
		sendMu.Lock()
		defer sendMu.Unlock()
		return st.Send(m)
	}
	if err := send(&api.TaskInput{Spec: spec}); err != nil {
		return 0, started, err
	}
	if tio.forwardSignals && env.Process {
		sigs := make(chan os.Signal, 8)
		signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGQUIT, syscall.SIGTSTP, syscall.SIGWINCH)
		defer signal.Stop(sigs)
		go func() {
			for {
				select {
				case <-ctx.Done():
					return
				case s := <-sigs:
					sig := s.(syscall.Signal)
					if sig == syscall.SIGWINCH {
						if f, ok := env.Stdin.(*os.File); ok {
							if r, c, ok := termSize(f); ok {
								_ = send(&api.TaskInput{Resize: &api.WindowSize{Rows: r, Cols: c}})
							}
						}
						continue
					}
					_ = send(&api.TaskInput{Signal: int32(sig)})
				}
			}
		}()
	}
	if tio.stdin != nil || tio.pty {
		in := tio.stdin
		if in == nil {
			in = env.Stdin
		}
		go func() {
			buf := make([]byte, 32<<10)
			for {
				n, err := in.Read(buf)
				if n > 0 {
					if send(&api.TaskInput{Stdin: append([]byte(nil), buf[:n]...)}) != nil {
						return
					}
				}
				if err != nil {
					if !tio.pty {
						_ = send(&api.TaskInput{StdinEOF: true})
					}
					return
				}
			}
		}()
	}
	var exit *api.TaskExit
	for {
		var m api.TaskOutput
		err := st.Recv(&m)
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, started, err
		}
		if len(m.Stdout) > 0 {
			tio.stdout.Write(m.Stdout)
		}
		if len(m.Stderr) > 0 {
			tio.stderr.Write(m.Stderr)
		}
		if m.Started != nil {
			started = true
		}
		if m.Exit != nil {
			exit = m.Exit
		}
	}
	if exit == nil {
		return 0, started, &errRemote{"Connection is lost"}
	}
	if exit.Message != "" {
		if term != nil {
			term.restore()
		}
		return int(exit.ExitCode), started, &errRemote{exit.Message}
	}
	return int(exit.ExitCode), started, nil
}

// remoteMessage is a failure to run a task or reach a RES as the ls
// commands print it: LSF's ls_sysmsg texts (lserrno's messages) where the
// failure has one.
func remoteMessage(err error) string {
	var re *errRemote
	if errors.As(err, &re) {
		return re.msg
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return perrorText(pe)
	}
	var rerr *rpc.Error
	if errors.As(err, &rerr) {
		switch rerr.Code {
		case rpc.Unavailable:
			return connMessage(rerr.Msg)
		case rpc.Unauthenticated:
			// LSF: "User permission denied" when it cannot verify the
			// user's identity.
			return "User permission denied"
		case rpc.DeadlineExceeded:
			return "Communication time out"
		}
		return rerr.Msg
	}
	return connMessage(firstLine(err))
}

// connMessage maps a connection failure's text to LSF's: a refused or
// unreachable RES is LSE_CONN_SYS ("A connect sys call failed") with
// strerror's text, a timeout LSE_TIME_OUT, a connection that broke
// LSE_LOSTCON.
func connMessage(msg string) string {
	if i := strings.Index(msg, "connect: "); i >= 0 {
		return "A connect sys call failed: " + capitalize(msg[i+len("connect: "):])
	}
	switch {
	case strings.Contains(msg, "i/o timeout"):
		return "Communication time out"
	case strings.Contains(msg, "connection closed"), strings.Contains(msg, "connection reset"),
		strings.Contains(msg, "broken pipe"), strings.HasSuffix(msg, "EOF"):
		return "Connection is lost"
	}
	return msg
}

// capitalize is strerror's capitalised text of Go's lower-case one.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// runLocal runs argv directly on this host, without a RES (lsrun's task
// placed on the local host without -L, or -l after the remote execution
// failed): the streams are this process's, the terminal's signals reach
// the task as they reach lsrun (lsrun waits them out), SIGTERM is passed
// on. A command that cannot be executed is reported as the RES reports it
// (perror's line, status 127).
func runLocal(ctx context.Context, env *Env, argv []string, stdin io.Reader) int {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = env.Environ()
	if env.Getwd != nil {
		cmd.Dir, _ = env.Getwd()
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, env.Stdout, env.Stderr
	if err := cmd.Start(); err != nil {
		errno := syscall.ENOENT
		var en syscall.Errno
		switch {
		case errors.As(err, &en):
			errno = en
		case errors.Is(err, os.ErrPermission):
			errno = syscall.EACCES
		}
		fmt.Fprintf(env.Stderr, "%s: %s\n", argv[0], capitalize(errno.Error()))
		return 127
	}
	if env.Process {
		sigs := make(chan os.Signal, 4)
		signal.Notify(sigs, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM)
		defer signal.Stop(sigs)
		go func() {
			for s := range sigs {
				if s == syscall.SIGTERM {
					_ = cmd.Process.Signal(s)
				}
			}
		}()
	}
	err := cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	if err != nil && cmd.ProcessState == nil {
		fmt.Fprintf(env.Stderr, "%s: %v\n", argv[0], err)
		return ExitUsage
	}
	return cmd.ProcessState.ExitCode()
}

// perrorText is a file error as perror prints it: "path: Strerror".
func perrorText(pe *os.PathError) string {
	return pe.Path + ": " + capitalize(pe.Err.Error())
}
