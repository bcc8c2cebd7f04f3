package sbd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/basalt-lsf/basalt/internal/sbd/shepherd"
)

// hostLink is sbatchd's connection to the host's shepherd process (one per
// host, serving every job): found at its socket, or started. It is used by
// the launch goroutines, hence its lock.
type hostLink struct {
	cfg  *Config
	name string

	mu sync.Mutex
	c  *shepherd.HostClient
}

func newHostLink(cfg *Config) *hostLink {
	return &hostLink{cfg: cfg, name: shepherd.HostSocketName(cfg.StateDir)}
}

// client returns the connection to the serving shepherd host, starting one
// when none listens. A host running another build of the program than
// ShepherdPath is retired (it finishes its jobs) and a new one started.
func (l *hostLink) client(ctx context.Context) (*shepherd.HostClient, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.c != nil && !l.c.Broken() {
		return l.c, nil
	}
	l.c = nil
	want := shepherd.Build(l.cfg.ShepherdPath)
	var last error
	for attempt := 0; attempt < 5; attempt++ {
		c, err := shepherd.DialHost(ctx, l.name, time.Now().Add(5*time.Second))
		if err == nil {
			if want != "" && c.Hello.Build != want {
				l.cfg.Log.Warn("the shepherd host runs another build: retiring it (it keeps its jobs)", "pid", c.Hello.PID, "program", l.cfg.ShepherdPath, "jobs", c.Hello.Jobs)
				rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
				err = c.Retire(rctx)
				cancel()
				c.Close()
				if err != nil {
					last = err
				}
				continue
			}
			l.c = c
			return c, nil
		}
		last = err
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		pid, err := l.spawn()
		if errors.Is(err, syscall.EADDRINUSE) {
			continue // another host just bound it: dial it
		}
		if err != nil {
			return nil, fmt.Errorf("starting the shepherd host: %w", err)
		}
		l.cfg.Log.Info("shepherd host started", "pid", pid)
	}
	return nil, fmt.Errorf("no shepherd host: %w", last)
}

// spawn starts a shepherd host in its own session with the host socket,
// bound here first, on fd 3.
func (l *hostLink) spawn() (int, error) {
	lst, err := net.Listen("unix", l.name)
	if err != nil {
		return 0, err
	}
	lf, err := lst.(*net.UnixListener).File()
	lst.Close()
	if err != nil {
		return 0, err
	}
	defer lf.Close()
	cmd := exec.Command(l.cfg.ShepherdPath)
	cmd.Args = append(append([]string(nil), l.cfg.ShepherdArgv...), "-host", l.cfg.StateDir)
	if l.cfg.ShepherdIdle > 0 {
		cmd.Args = append(cmd.Args, "-idle", l.cfg.ShepherdIdle.String())
	}
	cmd.Dir = "/"
	cmd.ExtraFiles = []*os.File{lf}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	go cmd.Wait() // reap it if it ends while this sbatchd runs
	return cmd.Process.Pid, nil
}

// start has the shepherd host start the shepherd of the job spooled in
// dir (launch and params encoded); it returns the host's PID once the
// job's socket is bound. A host that was gone before it got the request is
// replaced once. One that went away after it is not asked again: it may
// have started the job, which must never run twice; the caller then finds
// the job's shepherd gone (and the job lost, or orphaned in its cgroup).
func (l *hostLink) start(ctx context.Context, dir string, launch, params []byte) (int, error) {
	for attempt := 0; ; attempt++ {
		c, err := l.client(ctx)
		if err != nil {
			return 0, err
		}
		pid, err := c.Start(ctx, dir, launch, params)
		switch {
		case err == nil:
			return pid, nil
		case errors.Is(err, shepherd.ErrUnanswered):
			l.drop(c)
			l.cfg.Log.Warn("the shepherd host did not answer a start", "dir", dir, "err", err)
			return 0, nil
		case errors.Is(err, shepherd.ErrHostGone) && attempt == 0:
			l.drop(c)
			continue
		}
		return pid, err
	}
}

func (l *hostLink) drop(c *shepherd.HostClient) {
	l.mu.Lock()
	if l.c == c {
		l.c = nil
	}
	l.mu.Unlock()
	c.Close()
}

// retire tells the shepherd host sbatchd used to take no more jobs and to
// exit after its last (sbatchd is shutting down; the next one starts a
// fresh host).
func (l *hostLink) retire() {
	l.mu.Lock()
	c := l.c
	l.c = nil
	l.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if c == nil {
		// Not used by this sbatchd (no launch since a restart): the host
		// a previous one used, if it still runs.
		var err error
		if c, err = shepherd.DialHost(ctx, l.name, time.Now().Add(2*time.Second)); err != nil {
			return
		}
	}
	if err := c.Retire(ctx); err != nil {
		l.cfg.Log.Warn("retiring the shepherd host", "err", err)
	}
	c.Close()
}
