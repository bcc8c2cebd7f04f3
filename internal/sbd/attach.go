package sbd

import (
	"context"
	"crypto/rand"
	"errors"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/clock"
	"github.com/basalt-lsf/basalt/internal/rpc"
	"github.com/basalt-lsf/basalt/internal/sbd/sbdwire"
	"github.com/basalt-lsf/basalt/internal/sbd/shepherd"
	"github.com/basalt-lsf/basalt/internal/sbd/spool"
)

// Interactive batch jobs (bsub -I, -Ip, -Is): SBatchd.Attach joins the
// submitting bsub to its job. sbatchd makes the job's streams (a
// pseudo-terminal of the client's size, or three pipes), hands the job's
// ends to the shepherd (shepherd.AttachTTY), which has held the job until
// then, and relays its own ends to the stream: input, window size changes
// and signals one way, output and the job's exit status the other. A
// client that goes away before the job ends has the job killed, as LSF
// kills an interactive job whose bsub is gone.

// attachWait bounds how long an attach waits for a job mbatchd has
// dispatched here but whose launch has not arrived yet.
const attachWait = 30 * time.Second

// attachDrain bounds how long output is waited for once the job has ended
// (a process it left behind may hold the terminal).
const attachDrain = 2 * time.Second

// attachJob serves SBatchd.Attach: the opening TaskInput's Spec names the
// job (JobID, JobIndex) and its terminal (Pty, Rows, Cols); the caller
// must own the job (or be root).
func (d *Daemon) attachJob(ctx context.Context, st *rpc.ServerStream) error {
	id := st.Identity()
	var first api.TaskInput
	if err := st.Request(&first); err != nil || first.Spec == nil {
		return rpc.Errorf(rpc.InvalidArgument, "SBatchd.Attach: no task spec")
	}
	spec := first.Spec
	k := spool.Key(spec.JobID, spec.JobIndex)
	// The job: known here, interactive, and the caller's.
	var owner string
	var launch *api.JobLaunch
	var interactive, found, ended bool
	reattach := len(spec.Session) > 0
	deadline := d.cfg.Clock.Now().Add(attachWait)
	for {
		if !d.query(ctx, func() {
			j := d.jobs[k]
			// Its shepherd listens once sbatchd is connected to it.
			if j == nil || j.launch == nil || j.client == nil && !j.final() {
				return
			}
			found, owner, launch = true, j.launch.User, j.launch
			interactive = j.launch.Spec != nil && j.launch.Spec.Interactive
			ended = j.final()
		}) {
			return rpc.Errorf(rpc.Unavailable, "sbatchd is shutting down")
		}
		// A re-attach's job is re-adopted already, or done here.
		if found || reattach || !d.cfg.Clock.Now().Before(deadline) {
			break
		}
		if err := d.pause(ctx, 5*time.Millisecond); err != nil {
			return err
		}
	}
	if reattach {
		// The session's owner only. A job this sbatchd has done with
		// (it ended while sbatchd was down) may still have its shepherd
		// holding its last output: the shepherd's launch then says whose
		// it is.
		if found && (id.User != owner || !interactive) {
			return rpc.Errorf(rpc.PermissionDenied, "User permission denied")
		}
		return d.reattachJob(ctx, st, k, spec, id.User, found && !ended)
	}
	switch {
	case !found:
		return rpc.Errorf(rpc.NotFound, "Job <%s> is not found", k)
	case !id.IsRoot() && id.User != owner:
		return rpc.Errorf(rpc.PermissionDenied, "User permission denied")
	case !interactive:
		return rpc.Errorf(rpc.FailedPrecondition, "Job <%s> is not an interactive job", k)
	case ended:
		return rpc.Errorf(rpc.FailedPrecondition, "Job <%s>: Job has already finished", k)
	}
	var tee *teeSpec
	if spec.Tee {
		tee = d.newTeeSpec(launch)
	}
	r, err := newRelay(spec)
	if err != nil {
		return rpc.Errorf(rpc.Internal, "Job <%s>: %v", k, err)
	}
	r.tee = tee
	defer r.close()
	own, err := r.ownFDs()
	if err != nil {
		return rpc.Errorf(rpc.Internal, "Job <%s>: %v", k, err)
	}
	// A shepherd just started may not accept yet.
	var c *shepherd.Client
	for {
		c, err = shepherd.AttachTTY(ctx, shepherd.SocketName(d.cfg.StateDir, k), spec.Pty, r.jobFDs(), own, r.token)
		if err == nil || !errors.Is(err, syscall.ECONNREFUSED) || !d.cfg.Clock.Now().Before(deadline) {
			break
		}
		if err := d.pause(ctx, 5*time.Millisecond); err != nil {
			return err
		}
	}
	r.closeJobEnds()
	closeFDs(own)
	if err != nil {
		return rpc.Errorf(rpc.Unavailable, "Job <%s>: %v", k, err)
	}
	defer c.Close()
	d.cfg.Log.Info("interactive job attached", "job", k, "user", id.User, "pty", spec.Pty)
	return r.run(ctx, st, c, d.cfg.Host, d.cfg.Clock, d.done)
}

// reattachJob joins user again to the terminal session spec.Session of
// job k (sbatchd restarted while the job ran; running: this sbatchd has
// it running): the shepherd, which kept sbatchd's ends of the terminal,
// hands them over when the token is the session's, and they are relayed
// when its launch is user's interactive job.
func (d *Daemon) reattachJob(ctx context.Context, st *rpc.ServerStream, k string, spec *api.TaskSpec, user string, running bool) error {
	c, rl, err := shepherd.Reattach(ctx, shepherd.SocketName(d.cfg.StateDir, k), spec.Session)
	if errors.Is(err, shepherd.ErrReattachRefused) {
		d.cfg.Log.Warn("interactive job re-attach refused", "job", k, "user", user, "err", err)
		if strings.Contains(err.Error(), "is attached") {
			return rpc.Errorf(rpc.Unavailable, "Job <%s>: the terminal is attached", k)
		}
		return rpc.Errorf(rpc.PermissionDenied, "Job <%s>: %s", k, "the terminal session does not match or has ended")
	}
	if err != nil {
		if !running {
			return rpc.Errorf(rpc.NotFound, "Job <%s> is not found", k)
		}
		return rpc.Errorf(rpc.Unavailable, "Job <%s>: %v", k, err)
	}
	defer c.Close()
	r := &relay{first: rl.State, pty: rl.Pty, master: rl.Master, stdin: rl.Stdin, stdout: rl.Stdout, stderr: rl.Stderr,
		token: spec.Session, reattached: true}
	defer r.close()
	if l := rl.Launch; l == nil || l.User != user || l.Spec == nil || !l.Spec.Interactive {
		d.cfg.Log.Warn("interactive job re-attach refused: not the job's owner", "job", k, "user", user)
		return rpc.Errorf(rpc.PermissionDenied, "User permission denied")
	}
	if spec.Tee {
		r.tee = d.newTeeSpec(rl.Launch)
	}
	d.cfg.Log.Info("interactive job re-attached", "job", k, "user", user, "pty", rl.Pty)
	return r.run(ctx, st, c, d.cfg.Host, d.cfg.Clock, d.done)
}

// relay is sbatchd's side of an interactive job's streams.
type relay struct {
	pty bool
	// master: the terminal's master (pty); else stdin, stdout, stderr are
	// sbatchd's ends of the pipes and job* the job's.
	master                *os.File
	slave                 *os.File
	stdin, stdout, stderr *os.File
	jobIn, jobOut, jobErr *os.File
	// token names the session for a re-attach.
	token []byte
	// tee: bsub -tty with -o or -e (attach_tee.go).
	tee        *teeSpec
	teeRun     teeRun
	reattached bool
	// first: the job's state at a re-attach (final: read what is left).
	first                       *api.JobStatusReport
	sendMu                      sync.Mutex
	closeOnce, closeJobEndsOnce sync.Once
}

func newRelay(spec *api.TaskSpec) (*relay, error) {
	r := &relay{pty: spec.Pty, token: make([]byte, 16)}
	if _, err := rand.Read(r.token); err != nil {
		return nil, err
	}
	if spec.Pty {
		m, s, err := pty.Open()
		if err == nil {
			m, err = pollable(m)
		}
		if err != nil {
			if s != nil {
				s.Close()
			}
			return nil, err
		}
		r.master, r.slave = m, s
		if spec.Rows > 0 && spec.Cols > 0 {
			_ = pty.Setsize(m, &pty.Winsize{Rows: uint16(spec.Rows), Cols: uint16(spec.Cols)})
		}
		return r, nil
	}
	var err error
	pipe := func(rd, wr **os.File) {
		if err == nil {
			*rd, *wr, err = os.Pipe()
		}
	}
	pipe(&r.jobIn, &r.stdin)
	pipe(&r.stdout, &r.jobOut)
	pipe(&r.stderr, &r.jobErr)
	if err != nil {
		r.closeJobEnds()
		r.close()
		return nil, err
	}
	return r, nil
}

func (r *relay) jobFDs() []int {
	if r.pty {
		return []int{int(r.slave.Fd())}
	}
	return []int{int(r.jobIn.Fd()), int(r.jobOut.Fd()), int(r.jobErr.Fd())}
}

// ownFDs are copies of sbatchd's ends, which the shepherd keeps for a
// re-attach (the caller closes them). They are duplicated rather than
// taken with Fd, which would put the files in blocking mode: a read in
// progress would then outlive their Close.
func (r *relay) ownFDs() ([]int, error) {
	files := []*os.File{r.master}
	if !r.pty {
		files = []*os.File{r.stdin, r.stdout, r.stderr}
	}
	var fds []int
	for _, f := range files {
		rc, err := f.SyscallConn()
		if err != nil {
			closeFDs(fds)
			return nil, err
		}
		var dup int
		var derr error
		if err := rc.Control(func(fd uintptr) { dup, derr = syscall.Dup(int(fd)) }); err != nil || derr != nil {
			closeFDs(fds)
			return nil, errors.Join(err, derr)
		}
		syscall.CloseOnExec(dup)
		fds = append(fds, dup)
	}
	return fds, nil
}

// pollable returns f as a file the runtime polls (its descriptor
// non-blocking), closing f: a read in progress on a blocking file outlives
// its Close (pty.Open leaves the master blocking), and after an sbatchd
// restart such a reader would take the output of the next relay.
func pollable(f *os.File) (*os.File, error) {
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	var dup int
	var derr error
	if err := rc.Control(func(fd uintptr) { dup, derr = syscall.Dup(int(fd)) }); err != nil || derr != nil {
		return nil, errors.Join(err, derr)
	}
	syscall.CloseOnExec(dup)
	if err := syscall.SetNonblock(dup, true); err != nil {
		syscall.Close(dup)
		return nil, err
	}
	return os.NewFile(uintptr(dup), f.Name()), nil
}

func closeFDs(fds []int) {
	for _, fd := range fds {
		syscall.Close(fd)
	}
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		if f != nil {
			f.Close()
		}
	}
}

// closeJobEnds closes sbatchd's copies of the job's ends: the shepherd has
// its own, and output ends once the job's are all closed.
func (r *relay) closeJobEnds() {
	r.closeJobEndsOnce.Do(func() { closeAll(r.slave, r.jobIn, r.jobOut, r.jobErr) })
}

func (r *relay) close() {
	r.closeOnce.Do(func() { closeAll(r.master, r.stdin, r.stdout, r.stderr) })
}

func (r *relay) send(st *rpc.ServerStream, m *api.TaskOutput) error {
	r.sendMu.Lock()
	defer r.sendMu.Unlock()
	return st.Send(m)
}

// run relays until the job has ended and its output is out, then sends
// the exit status. A client that goes away has the job killed, unless
// sbatchd is stopping (closed stopped): the shepherd keeps the terminal
// for the client's re-attach to the next sbatchd.
func (r *relay) run(ctx context.Context, st *rpc.ServerStream, c *shepherd.Client, host string, clk clock.Clock,
	stopped <-chan struct{}) error {
	ctx, cancel := context.WithCancel(ctx)
	r.teeRun.ended = make(chan struct{})
	defer r.teeRun.wg.Wait() // after the cancel below
	defer cancel()
	// Output: one reader per stream; outDone closes when all are at end.
	var wg sync.WaitGroup
	pump := func(f *os.File, stderr bool) {
		defer wg.Done()
		buf := make([]byte, 32<<10)
		for {
			n, err := f.Read(buf)
			if n > 0 {
				m := &api.TaskOutput{Stdout: append([]byte(nil), buf[:n]...)}
				if stderr {
					m.Stdout, m.Stderr = nil, m.Stdout
				}
				if r.send(st, m) != nil {
					return
				}
			}
			if err != nil {
				return // EOF, or EIO from a terminal whose job side is closed
			}
		}
	}
	if r.pty {
		wg.Add(1)
		go pump(r.master, false)
	} else {
		wg.Add(2)
		go pump(r.stdout, false)
		go pump(r.stderr, true)
	}
	outDone := make(chan struct{})
	go func() { wg.Wait(); close(outDone) }()
	// The session's name, for a re-attach after an sbatchd restart.
	_ = r.send(st, &api.TaskOutput{Started: &api.TaskStarted{Host: host, Session: r.token}})
	if r.tee != nil && r.reattached {
		r.startTee(ctx, st, r.tee, nil, clk)
	}

	// The shepherd's states: the final one gives the exit status.
	final := make(chan *api.JobStatusReport, 1)
	go func() {
		if r.first != nil && r.first.Final {
			final <- r.first
			return
		}
		started := false
		for {
			ev, err := c.Recv()
			if err != nil {
				close(final)
				return
			}
			if ev.Status != nil && ev.Status.State == api.StateRun && ev.Status.PID > 0 && !started {
				// (Once: the shepherd sends its state at every sample.)
				started = true
				_ = r.send(st, &api.TaskOutput{Started: &api.TaskStarted{PID: ev.Status.PID, Host: host, Session: r.token}})
				if r.tee != nil {
					r.startTee(ctx, st, r.tee, ev.Status, clk)
				}
			}
			if ev.Status != nil && ev.Status.Final {
				final <- ev.Status
				return
			}
		}
	}()

	// The client's input.
	clientGone := make(chan struct{})
	stdinClosed := r.stdin == nil // owned by the input goroutine
	stdinEOF := func() {
		if !stdinClosed {
			stdinClosed = true
			r.stdin.Close()
			_ = c.StdinEOF() // the shepherd's copy too
		}
	}
	go func() {
		defer close(clientGone)
		var seq uint64 = 1 << 62
		var done uint64 // input handed to the job (TaskOutput.InputDone)
		for {
			var in api.TaskInput
			if err := st.Recv(&in); err != nil {
				if errors.Is(err, io.EOF) && !r.pty {
					// bsub's end of input (the job keeps running).
					stdinEOF()
					<-ctx.Done()
				}
				return
			}
			took := done
			if len(in.Stdin) > 0 {
				w := r.stdin
				if r.pty {
					w = r.master
				}
				if r.pty || !stdinClosed {
					_, _ = w.Write(in.Stdin)
				}
				done += uint64(len(in.Stdin))
			}
			if in.StdinEOF && !r.pty {
				stdinEOF()
				done++
			}
			if done != took {
				_ = r.send(st, &api.TaskOutput{InputDone: done})
			}
			if in.Resize != nil && r.pty {
				_ = pty.Setsize(r.master, &pty.Winsize{Rows: uint16(in.Resize.Rows), Cols: uint16(in.Resize.Cols)})
			}
			if in.Signal > 0 {
				seq++
				_ = c.Send(&sbdwire.Command{Op: sbdwire.OpSignal, Signal: in.Signal, Seq: seq})
			}
		}
	}()

	var fin *api.JobStatusReport
	select {
	case fin = <-final:
	case <-clientGone:
		select {
		case <-stopped:
			return ctx.Err()
		default:
		}
		// bsub is gone: the job is killed, as LSF kills it.
		_ = c.Send(&sbdwire.Command{Op: sbdwire.OpTerminate, TermReason: "TERM_OWNER", Seq: 1<<62 - 1})
		return ctx.Err()
	}
	if fin == nil {
		return rpc.Errorf(rpc.Unavailable, "the job's shepherd went away")
	}
	// The output, and what -tty follows up to the job report.
	close(r.teeRun.ended)
	teeDone := make(chan struct{})
	go func() { r.teeRun.wg.Wait(); close(teeDone) }()
	t := clk.NewTimer(attachDrain)
	for _, done := range []chan struct{}{outDone, teeDone} {
		select {
		case <-done:
			continue
		case <-t.C():
		}
		break
	}
	t.Stop()
	r.sendMu.Lock()
	defer r.sendMu.Unlock()
	return st.Send(&api.TaskOutput{Exit: taskExit(fin)})
}

// taskExit is the job's end as a task's: its exit code, or 128 plus the
// signal that killed it.
func taskExit(st *api.JobStatusReport) *api.TaskExit {
	ws := syscall.WaitStatus(st.ExitStatus)
	e := &api.TaskExit{}
	switch {
	case st.State == api.StateDone:
	case ws.Exited():
		e.ExitCode = int32(ws.ExitStatus())
	case ws.Signaled():
		e.Signal = int32(ws.Signal())
		e.ExitCode = 128 + e.Signal
		e.CoreDump = ws.CoreDump()
	default:
		e.ExitCode = 1
	}
	if st.State != api.StateDone && e.ExitCode == 0 {
		e.ExitCode = 1
	}
	return e
}

// pause waits d on the daemon's clock, or until ctx ends (its error).
func (d *Daemon) pause(ctx context.Context, wait time.Duration) error {
	t := d.cfg.Clock.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
