package shepherd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/chkpnt"
	"github.com/basalt-lsf/basalt/internal/sbd/sbdwire"
)

// chkpntRun is a checkpoint in progress: who asked (answered when echkpnt
// ends), and what follows a success.
type chkpntRun struct {
	from    *sconn
	seq     uint64
	req     int64 // mbatchd's request number: answered at once, outcome in the status
	pid     int
	kill    bool
	requeue bool
	reason  string
	// after is the signal a JOB_CONTROLS CHKPNT action sends once the
	// checkpoint has ended (from is nil then).
	after syscall.Signal
}

// chkpntCommand handles an OpChkpnt command: it starts echkpnt and keeps
// the answer for its end, or answers at once when it cannot start. It
// reports whether the command was one.
func (s *Shepherd) chkpntCommand(ce cmdEvent) bool {
	c := ce.cmd
	if c.Op != sbdwire.OpChkpnt {
		return false
	}
	if c.ChkpntReq != 0 && c.ChkpntReq <= s.st.ChkpntReq {
		// Sent again (mbatchd's new session): it is under way or its
		// outcome is in the status already.
		if s.conns[ce.from] {
			s.send(ce.from, frameAck, &sbdwire.Ack{Seq: c.Seq, PID: s.st.ChkpntPID})
		}
		return true
	}
	if err := s.startChkpnt(ce); err != nil {
		s.warnf("checkpoint: %v", err)
		if c.ChkpntReq != 0 && !s.st.Final {
			s.st.ChkpntReq, s.st.ChkpntPhase, s.st.ChkpntPID, s.st.ChkpntErr = c.ChkpntReq, api.ChkpntFailed, 0, err.Error()
			s.update()
		}
		if s.conns[ce.from] {
			s.send(ce.from, frameAck, &sbdwire.Ack{Seq: c.Seq, Err: err.Error()})
		}
		return true
	}
	if c.ChkpntReq != 0 {
		// The outcome comes in the status: sbatchd (and mbatchd) need not
		// wait for it.
		s.st.ChkpntReq, s.st.ChkpntPhase, s.st.ChkpntPID, s.st.ChkpntErr = c.ChkpntReq, api.ChkpntInitiated, int32(s.chk.pid), ""
		s.update()
		if s.conns[ce.from] {
			s.send(ce.from, frameAck, &sbdwire.Ack{Seq: c.Seq, PID: int32(s.chk.pid)})
		}
	}
	return true
}

// startChkpnt runs LSF_SERVERDIR/echkpnt [-f] -d LSB_CHKPNT_DIR pgid as
// the job user, outside the job's cgroup, with the job's environment.
// -k is not passed on: the shepherd itself kills the job after a
// successful checkpoint, so that the run ends TERM_CHKPNT (or requeued,
// for bmig) and never as killed by an unknown signal.
func (s *Shepherd) startChkpnt(ce cmdEvent) error {
	c := ce.cmd
	switch {
	case s.ended || s.done:
		return ErrFinished
	case !s.started || s.job == nil:
		return errors.New("Job has not started yet")
	case s.chk != nil:
		return errors.New("the job is already being checkpointed")
	case s.term != nil:
		return errors.New("the job is being terminated")
	}
	ch, err := s.spawnChkpnt(c.ChkpntForce)
	if err != nil {
		return err
	}
	s.chk = &chkpntRun{from: ce.from, seq: c.Seq, req: c.ChkpntReq, pid: ch.pid, kill: c.ChkpntKill, requeue: c.Requeue, reason: c.TermReason}
	s.logf("checkpoint started (echkpnt pid %d, kill %v, requeue %v)", ch.pid, c.ChkpntKill, c.Requeue)
	return nil
}

// localChkpnt is a JOB_CONTROLS CHKPNT action: checkpoint the job, then
// send it sig whatever the outcome (the signal at once when the job cannot
// be checkpointed). Nobody waits for the answer.
func (s *Shepherd) localChkpnt(sig syscall.Signal) {
	if s.chk != nil || !s.started || s.job == nil {
		s.signal(sig)
		return
	}
	ch, err := s.spawnChkpnt(false)
	if err != nil {
		s.warnf("JOB_CONTROLS CHKPNT: %v", err)
		s.signal(sig)
		return
	}
	s.chk = &chkpntRun{pid: ch.pid, after: sig}
	s.logf("JOB_CONTROLS checkpoint started (echkpnt pid %d), then %s", ch.pid, sig)
}

// spawnChkpnt starts echkpnt.
func (s *Shepherd) spawnChkpnt(force bool) (*child, error) {
	dir := envValue(s.env, "LSB_CHKPNT_DIR")
	if dir == "" {
		return nil, errors.New("Job is not checkpointable")
	}
	if s.p.ServerDir == "" {
		return nil, errors.New("LSF_SERVERDIR is not defined: no echkpnt")
	}
	prog := filepath.Join(s.p.ServerDir, "echkpnt")
	if _, err := os.Stat(prog); err != nil {
		return nil, fmt.Errorf("echkpnt: %w", err)
	}
	argv := []string{prog}
	if force {
		argv = append(argv, "-f")
	}
	argv = append(argv, "-d", dir, strconv.Itoa(s.job.pid))
	pids := s.jobPIDs()
	tab, _ := s.table(pids)
	u := tab.Sum(pids)
	env := append(s.env[:len(s.env):len(s.env)], "LSB_JOBPIDS="+joinInts(u.PIDs), "LSB_JOBPGIDS="+joinInts(u.PGIDs))
	spec := s.baseSpec(argv, env)
	spec.Dirs = []string{"/tmp"}
	return s.spawn(kindChkpnt, spec, nil)
}

// chkpntDone answers the checkpoint's request with echkpnt's outcome and,
// after a success with -k (or bmig), kills the job.
func (s *Shepherd) chkpntDone(c *child, failed bool) {
	k := s.chk
	s.chk = nil
	if k == nil || k.pid != c.pid {
		return
	}
	ack := &sbdwire.Ack{Seq: k.seq, PID: int32(c.pid)}
	switch {
	case failed:
		ack.Err = fmt.Sprintf("echkpnt could not run: %s", c.res.Err)
	case !c.ws.Exited():
		ack.Err = fmt.Sprintf("echkpnt was killed by signal %d", c.ws.Signal())
	case c.ws.ExitStatus() != 0:
		ack.Err = fmt.Sprintf("echkpnt exited with status %d", c.ws.ExitStatus())
	}
	s.logf("checkpoint ended (echkpnt pid %d): %q", c.pid, ack.Err)
	if ack.Err == "" {
		s.saveSubmission()
	}
	switch {
	case k.req != 0:
		// The outcome goes in the status (before the kill that may follow,
		// so it reaches mbatchd first); a final status already sent fails
		// the request there.
		if !s.st.Final {
			s.st.ChkpntPhase, s.st.ChkpntPID, s.st.ChkpntErr = api.ChkpntSucceeded, ack.PID, ack.Err
			if ack.Err != "" {
				s.st.ChkpntPhase = api.ChkpntFailed
			}
			s.update()
		}
	case k.from == nil:
		if !s.ended {
			s.signal(k.after)
		}
		return
	case s.conns[k.from]:
		s.send(k.from, frameAck, ack)
	}
	if ack.Err == "" && k.kill && !s.ended {
		s.terminate(k.reason, k.requeue, []step{{sig: syscall.SIGKILL}})
	}
}

func envValue(env []string, k string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if len(env[i]) > len(k) && env[i][len(k)] == '=' && env[i][:len(k)] == k {
			return env[i][len(k)+1:]
		}
	}
	return ""
}

// saveSubmission writes the job's submission into its checkpoint
// directory (chkpnt.SubmissionFile), opened as the job user and never
// through a symbolic link: brestart submits it again, as its caller, when
// mbatchd no longer knows the job. A run that restarted from a checkpoint
// saves its own command, not erestart's.
func (s *Shepherd) saveSubmission() {
	dir := envValue(s.env, "LSB_CHKPNT_DIR")
	if dir == "" || s.l == nil || s.l.Spec == nil {
		return
	}
	c := *s.l.Spec
	spec := &c
	if cmd := envValue(spec.Env, "LSB_ERESTART_USRCMD"); cmd != "" {
		spec.Command = cmd
		env := spec.Env[:0:0]
		for _, e := range spec.Env {
			if !strings.HasPrefix(e, "LSB_ERESTART_USRCMD=") {
				env = append(env, e)
			}
		}
		spec.Env = env
	}
	spec.RestartDir, spec.RestartForce, spec.UID, spec.GID = "", false, 0, 0
	f, err := openAs(filepath.Join(dir, chkpnt.SubmissionFile), os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW, 0o600, s.userCred())
	if err != nil {
		s.warnf("saving the submission for brestart: %v", err)
		return
	}
	_, err = f.Write(spec.AppendWire(nil))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		s.warnf("saving the submission for brestart: %v", err)
	}
}
