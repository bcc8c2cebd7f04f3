package eauth

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// SiteServer runs a site's eauth -s for one daemon: one long-lived process
// fed one request line per connection, answering "1" (accept) or "0";
// restarted when it exits (at most once per request). Requests are
// served one at a time, as LSF does.
type SiteServer struct {
	Path   string // LSF_SERVERDIR/eauth
	Daemon string // the daemon that asks: LSF_EAUTH_SERVER
	Env    []string
	// Cred runs it as another user (LSF_EAUTH_USER); nil: the daemon's.
	Cred *syscall.Credential
	// Timeout bounds one answer (default 10 s).
	Timeout time.Duration

	mu  sync.Mutex
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func (s *SiteServer) start() error {
	cmd := exec.Command(s.Path, "-s")
	cmd.Env = append(append(os.Environ(), s.Env...), "LSF_EAUTH_SERVER="+s.Daemon)
	cmd.Stderr = os.Stderr
	if s.Cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.Cred}
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s -s: %w", s.Path, err)
	}
	s.cmd, s.in, s.out = cmd, in, bufio.NewReaderSize(out, 256)
	return nil
}

func (s *SiteServer) stop() {
	if s.cmd == nil {
		return
	}
	s.in.Close()
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
}

// Close stops the process.
func (s *SiteServer) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stop()
}

// Check asks eauth -s about one request.
func (s *SiteServer) Check(ctx context.Context, r *Request) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	line := r.Append(nil)
	var err error
	for attempt := 0; attempt < 2; attempt++ {
		var ok bool
		if ok, err = s.ask(ctx, line); err == nil {
			return ok, nil
		}
		s.stop()
		if ctx.Err() != nil {
			break
		}
	}
	return false, fmt.Errorf("%s -s: %w", s.Path, err)
}

func (s *SiteServer) ask(ctx context.Context, line []byte) (bool, error) {
	if s.cmd == nil {
		if err := s.start(); err != nil {
			return false, err
		}
	}
	timeout := s.Timeout
	if timeout == 0 {
		timeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// The process is killed if it does not answer in time.
	cmd := s.cmd
	stop := context.AfterFunc(ctx, func() { _ = cmd.Process.Kill() })
	defer stop()
	if _, err := s.in.Write(line); err != nil {
		return false, err
	}
	ans, err := s.out.ReadString('\n')
	if err != nil {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		return false, err
	}
	switch strings.TrimSpace(ans) {
	case "1":
		return true, nil
	case "0":
		return false, nil
	}
	return false, errors.New("answer " + strings.TrimSpace(ans) + ", want 1 or 0")
}
