package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
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
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c, err := dialRES(ctx, env, cc, host)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	st, err := c.Bidi(ctx, api.RESRun, nil)
	if err != nil {
		return 0, err
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
		return 0, err
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
			return 0, err
		}
		if len(m.Stdout) > 0 {
			tio.stdout.Write(m.Stdout)
		}
		if len(m.Stderr) > 0 {
			tio.stderr.Write(m.Stderr)
		}
		if m.Exit != nil {
			exit = m.Exit
		}
	}
	if exit == nil {
		return 0, &errRemote{"Connection to RES on " + host + " lost"}
	}
	if exit.Message != "" {
		if term != nil {
			term.restore()
		}
		return int(exit.ExitCode), &errRemote{exit.Message}
	}
	return int(exit.ExitCode), nil
}

// remoteMessage is an error as the ls commands print it.
func remoteMessage(err error) string {
	var re *errRemote
	if errors.As(err, &re) {
		return re.msg
	}
	var rerr *rpc.Error
	if errors.As(err, &rerr) {
		switch rerr.Code {
		case rpc.Unavailable:
			return "Cannot connect to RES: " + rerr.Msg
		}
		return rerr.Msg
	}
	return firstLine(err)
}
