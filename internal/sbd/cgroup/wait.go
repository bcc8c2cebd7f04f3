package cgroup

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/basalt-lsf/basalt/internal/clock"
)

// ErrTimeout is returned by WaitEmpty when processes remain.
var ErrTimeout = errors.New("cgroup: processes remain")

// WaitEmpty waits until no process is left in the group (killed processes
// take a moment to exit), at most d. On the unified hierarchy it waits for
// the kernel's notification (inotify on cgroup.events); on v1 it checks
// every 10ms on clk.
func (g *Group) WaitEmpty(clk clock.Clock, d time.Duration) error {
	if empty, err := g.Empty(); err != nil || empty {
		return err
	}
	deadline := clk.Now().Add(d)
	if g.unified != "" {
		if err := g.waitEvents(deadline); err == nil || errors.Is(err, ErrTimeout) {
			return err
		}
	}
	for {
		if empty, err := g.Empty(); err != nil || empty {
			return err
		}
		left := deadline.Sub(clk.Now())
		if left <= 0 {
			return ErrTimeout
		}
		t := clk.NewTimer(min(left, 10*time.Millisecond))
		<-t.C()
	}
}

// waitEvents watches cgroup.events until "populated 0" or the deadline
// (wall clock: it is the kernel's read deadline).
func (g *Group) waitEvents(deadline time.Time) error {
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), "inotify")
	defer f.Close()
	if _, err := syscall.InotifyAddWatch(fd, filepath.Join(g.unified, "cgroup.events"), syscall.IN_MODIFY); err != nil {
		return err
	}
	buf := make([]byte, 4096)
	for {
		if empty, err := g.Empty(); err != nil || empty {
			return err
		}
		if err := f.SetReadDeadline(deadline); err != nil {
			return err
		}
		if _, err := f.Read(buf); err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				return ErrTimeout
			}
			return err
		}
	}
}
