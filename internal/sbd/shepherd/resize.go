package shepherd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/basalt-lsf/basalt/internal/sbd/sbdwire"
)

// resizeRun is a resize notification command in progress.
type resizeRun struct {
	pid int
	env []string // the variables it was given, kept in the job's environment after it
}

// resizeCommand handles an OpResize command: it starts the job's resize
// notification command (or queues it behind the one running) and answers
// at once: the allocation changed already (mbatchd recorded it), and a
// command that runs long must not make mbatchd send the notice again. Its
// outcome is logged. It reports whether the command was one.
func (s *Shepherd) resizeCommand(ce cmdEvent) bool {
	c := ce.cmd
	if c.Op != sbdwire.OpResize {
		return false
	}
	ack := &sbdwire.Ack{Seq: c.Seq}
	if err := s.startResize(ce); err != nil {
		s.warnf("resize notification: %v", err)
		ack.Err = err.Error()
	}
	if s.conns[ce.from] {
		s.send(ce.from, frameAck, ack)
	}
	return true
}

// startResize runs the notification command with /bin/sh -c as the job
// user, outside the job's cgroup, in the job's working directory, with
// the job's environment and c.ResizeEnv over it.
func (s *Shepherd) startResize(ce cmdEvent) error {
	c := ce.cmd
	switch {
	case s.ended || s.done:
		return ErrFinished
	case !s.started || s.job == nil:
		return errors.New("Job has not started yet")
	case s.rsz != nil:
		// One at a time, in order: this one starts when the running one
		// ends.
		s.rszQueue = append(s.rszQueue, ce)
		return nil
	case c.ResizeCmd == "":
		return errors.New("no resize notification command")
	}
	env := overEnv(s.env, c.ResizeEnv)
	spec := s.baseSpec([]string{"/bin/sh", "-c", c.ResizeCmd}, env)
	spec.Dirs = []string{s.st.ExecCwd, "/tmp"}
	ch, err := s.spawn(kindResize, spec, nil)
	if err != nil {
		return err
	}
	s.rsz = &resizeRun{pid: ch.pid, env: c.ResizeEnv}
	s.logf("resize notification command started (pid %d)", ch.pid)
	return nil
}

// resizeDone logs the notification command's outcome and starts the next
// one queued; the job's environment keeps the new allocation's LSB_HOSTS,
// LSB_MCPU_HOSTS (later job control commands see them).
func (s *Shepherd) resizeDone(c *child, failed bool) {
	r := s.rsz
	if r == nil || r.pid != c.pid {
		return
	}
	s.rsz = nil
	outcome := "exit status 0"
	switch {
	case failed:
		outcome = fmt.Sprintf("could not run: %s", c.res.Err)
	case !c.ws.Exited():
		outcome = fmt.Sprintf("killed by signal %d", c.ws.Signal())
	case c.ws.ExitStatus() != 0:
		outcome = fmt.Sprintf("exit status %d", c.ws.ExitStatus())
	}
	var keep []string
	for _, kv := range r.env {
		if !strings.HasPrefix(kv, "LSB_RESIZE_") {
			keep = append(keep, kv)
		}
	}
	s.env = overEnv(s.env, keep)
	s.logf("resize notification command ended (pid %d): %s", c.pid, outcome)
	if h := s.heldSuspend; h != nil {
		s.heldSuspend = nil
		if !s.ended {
			s.logf("the preemption's suspension held during the notification command applies now")
			s.suspend(h.SuspReasons, h.SuspSubreason, h.User)
		}
	}
	for len(s.rszQueue) > 0 && s.rsz == nil {
		next := s.rszQueue[0]
		s.rszQueue = s.rszQueue[1:]
		if err := s.startResize(next); err != nil {
			s.warnf("resize notification: %v", err)
		}
	}
}

// overEnv is env with over's variables replacing (or added to) its own.
func overEnv(env, over []string) []string {
	names := map[string]bool{}
	for _, kv := range over {
		k, _, _ := strings.Cut(kv, "=")
		names[k] = true
	}
	out := make([]string, 0, len(env)+len(over))
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); !names[k] {
			out = append(out, kv)
		}
	}
	return append(out, over...)
}

// suspReschedPreempt is SUSP_RESCHED_PREEMPT, the suspension of a
// preempted job.
const suspReschedPreempt = 0x10

// holdPreemption keeps a preemption's suspension from the job while its
// resize notification command runs (LSF: the suspend signal does not reach
// the job then); it applies when the command ends, unless a resumption
// came first. It reports whether c was held.
func (s *Shepherd) holdPreemption(c *sbdwire.Command) bool {
	if s.rsz == nil || c.SuspReasons&suspReschedPreempt == 0 {
		return false
	}
	cc := *c
	s.heldSuspend = &cc
	s.logf("preemption: suspension held until the resize notification command ends")
	return true
}
