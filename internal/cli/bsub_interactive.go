package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/clock"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

// bsub -I, -Ip, -Is: once the job is submitted bsub waits for its
// dispatch as -K does (LSF's "<<Waiting for dispatch ...>>"), then joins
// it on its execution host (SBatchd.Attach at that host's sbatchd, as the
// user) and relays the terminal: the job's output to bsub's, bsub's input
// to the job. With a pseudo-terminal (-Ip, -Is) the local terminal is put
// in raw mode (restored on every way out), window size changes follow, and
// Ctrl-C is a byte for the job's terminal; without one (-I) SIGINT kills
// the job as bkill does. bsub exits with the job's exit status.

// bsubInteractive runs an interactive job submitted as id.
func bsubInteractive(ctx context.Context, env *Env, cc *clientConf, c *rpc.Client, id int64, spec *api.JobSpec, tty bool) int {
	// SIGINT while waiting or with -I kills the job; with a terminal in
	// raw mode Ctrl-C is not a signal.
	sigs := make(chan os.Signal, 4)
	if env.Process {
		signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGWINCH)
		defer signal.Stop(sigs)
	}
	var killed atomic.Bool
	kill := func() {
		killed.Store(true)
		req := &api.ControlRequest{Op: api.OpKill, Jobs: []*api.JobRef{{JobID: id}}}
		var reply api.ControlReply
		kctx, cancel := context.WithCancel(ctx)
		defer cancel()
		_ = c.Call(kctx, api.MBatchdControl, req, &reply)
	}
	fmt.Fprintln(env.Stderr, "<<Waiting for dispatch ...>>")
	msgs := newInteractMsgs(env, cc)
	host, code, ok := waitDispatch(ctx, env, c, id, sigs, kill, msgs)
	if !ok {
		return code
	}
	fmt.Fprintf(env.Stderr, "<<Starting on %s>>\n", host)
	stopWatch := msgs.watch(ctx, c, id, spec.Pty && isTerminalReader(env.Stdin))
	code, err := attachInteractive(ctx, env, cc, c, id, host, spec, tty, sigs, kill)
	stopWatch()
	if err == nil {
		msgs.finished(ctx, c, id, code)
		return code
	}
	// No terminal: the job is killed (as when bsub goes away), and bsub
	// ends with it. A job killed at the user's request before its
	// terminal was joined is no error.
	user := killed.Load()
	if !user {
		env.Errorf("Job <%d>: %v", id, err)
		kill()
	}
	// The job's end, when it comes soon (its sbatchd may be gone).
	wctx, cancel := context.WithTimeout(ctx, endWait)
	defer cancel()
	if code, ok := waitEnd(wctx, c, id); ok && user {
		return code
	}
	return ExitUsage
}

// endWait bounds how long bsub waits for the end of a job it killed
// because its terminal was lost.
const endWait = 30 * time.Second

// waitEnd waits for the job's end and returns its exit code.
func waitEnd(ctx context.Context, c *rpc.Client, id int64) (int, bool) {
	st, err := c.Stream(ctx, api.MBatchdWaitJob, &api.JobRef{JobID: id})
	if err != nil {
		return 0, false
	}
	var last api.JobRecord
	for {
		var r api.JobRecord
		if err := st.Recv(&r); err != nil {
			if err != io.EOF || last.State&(api.StateDone|api.StateExit) == 0 {
				return 0, false
			}
			return exitCodeOf(&last), true
		}
		last = r
	}
}

// waitDispatch waits until the job runs and returns its first host; when
// it ends without running, bsub's exit code.
func waitDispatch(ctx context.Context, env *Env, c *rpc.Client, id int64, sigs chan os.Signal, kill func(), msgs *interactMsgs) (string, int, bool) {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st, err := c.Stream(wctx, api.MBatchdWaitJob, &api.JobRef{JobID: id})
	if err != nil {
		env.Errorf("%v", err)
		return "", ExitUsage, false
	}
	recs := make(chan api.JobRecord, 4)
	errc := make(chan error, 1)
	go func() {
		for {
			var r api.JobRecord
			if err := st.Recv(&r); err != nil {
				errc <- err
				return
			}
			select {
			case recs <- r:
			case <-wctx.Done():
				return
			}
		}
	}()
	// LSB_INTERACT_MSG_ENH: the pending reasons, every interval.
	var tick <-chan time.Time
	if msgs != nil {
		clk := env.Clock
		if clk == nil {
			clk = clock.Real()
		}
		t := clk.NewTicker(msgs.interval)
		defer t.Stop()
		tick = t.C()
	}
	for {
		select {
		case <-tick:
			msgs.poll(wctx, c, id)
		case r := <-recs:
			if len(r.ExecHosts) > 0 && (r.State&(api.StateRun|api.StateSSusp|api.StateUSusp) != 0 || r.StartTime > 0) {
				return r.ExecHosts[0].Host, 0, true
			}
			if r.State == api.StateExit || r.State == api.StateDone {
				if r.StartTime == 0 {
					msgs.update(&r)
					fmt.Fprintln(env.Stderr, "<<Terminated while pending>>")
					return "", 126, false
				}
				return "", exitCodeOf(&r), false
			}
		case err := <-errc:
			if err == io.EOF {
				fmt.Fprintln(env.Stderr, "<<Terminated while pending>>")
				return "", 126, false
			}
			env.Errorf("%v", err)
			return "", ExitUsage, false
		case s := <-sigs:
			if s != syscall.SIGWINCH {
				kill()
			}
		}
	}
}

// exitCodeOf is a finished job's exit code as a shell gives it.
func exitCodeOf(r *api.JobRecord) int {
	if r.State == api.StateDone {
		return 0
	}
	ws := syscall.WaitStatus(r.ExitStatus)
	switch {
	case ws.Exited() && ws.ExitStatus() != 0:
		return ws.ExitStatus()
	case ws.Signaled():
		return 128 + int(ws.Signal())
	}
	return 1
}

// termFile is r when it is a terminal.
func termFile(r io.Reader) (*os.File, bool) {
	f, ok := r.(*os.File)
	return f, ok && isTerminal(f)
}

// winSize is the size of terminal f, nil when unknown.
func winSize(f *os.File) *api.WindowSize {
	rows, cols, ok := termSize(f)
	if !ok {
		return nil
	}
	return &api.WindowSize{Rows: rows, Cols: cols}
}

// reattachFor is how long bsub tries to join its job again once its
// terminal's stream broke (sbatchd restarting on the execution host): as
// long as the shepherd keeps the terminal for a re-attach.
const reattachFor = 2 * time.Minute

// ttySession is bsub's side of an interactive job's terminal, across the
// streams that relay it: the first attach, then re-attaches through a
// restarted sbatchd with the session's token. Input read from bsub's
// standard input waits in in until a stream takes it.
type ttySession struct {
	env  *Env
	cc   *clientConf
	mc   *rpc.Client
	id   int64
	host string
	spec *api.JobSpec
	tee  bool // -tty
	sigs chan os.Signal
	kill func()

	tfd    *os.File
	isTerm bool
	// sepStderr: LSF_INTERACTIVE_STDERR=y, the job's stderr is bsub's.
	sepStderr bool
	in        chan []byte // closed at the end of bsub's input
	// inClosed: in was seen closed (owned by the running stream's
	// sender).
	inClosed bool
	// token names the session (set by the receiving loop); unacked is the
	// input sent that the job has not taken yet, acked what the current
	// stream counted of it.
	mu      sync.Mutex
	token   []byte
	unacked []inChunk
	acked   uint64
	// ended delivers the job's last record once it has finished (watched
	// through mbatchd from the first break on).
	ended chan api.JobRecord
}

// attachInteractive relays the job's terminal and returns its exit code;
// an error when the terminal could not be joined, or broke and could not
// be joined again.
func attachInteractive(ctx context.Context, env *Env, cc *clientConf, mc *rpc.Client, id int64, host string, spec *api.JobSpec,
	tee bool, sigs chan os.Signal, kill func()) (int, error) {
	s := &ttySession{env: env, cc: cc, mc: mc, id: id, host: host, spec: spec, tee: tee, sigs: sigs, kill: kill,
		in: make(chan []byte, 16)}
	s.tfd, s.isTerm = termFile(env.Stdin)
	s.sepStderr = confYes(env, cc, "LSF_INTERACTIVE_STDERR")
	raw := spec.Pty && s.isTerm
	if raw {
		// ^C and ^Z go to the job's terminal as bytes.
		if rt, err := makeRaw(s.tfd, false); err == nil {
			defer rt.restore()
		}
	}
	go s.readInput()
	clk := env.Clock
	if clk == nil {
		clk = clock.Real()
	}
	deadline := clk.Now().Add(reattachFor)
	wait := 100 * time.Millisecond
	for {
		code, exited, err := s.attach(ctx)
		if exited {
			return code, nil
		}
		if err == nil {
			// A stream relayed, then broke: a new one is waited for anew.
			deadline, wait = clk.Now().Add(reattachFor), 100*time.Millisecond
		}
		if s.token == nil || rpc.CodeOf(err) == rpc.PermissionDenied || errors.Is(err, context.Canceled) {
			if raw {
				fmt.Fprint(env.Stderr, "\r")
			}
			if err == nil {
				err = errors.New("the job's terminal closed without its exit status")
			}
			return 0, err
		}
		if s.ended == nil {
			s.ended = make(chan api.JobRecord, 1)
			go s.watchEnd(ctx)
		}
		if clk.Now().After(deadline) {
			if raw {
				fmt.Fprint(env.Stderr, "\r")
			}
			return 0, fmt.Errorf("lost the connection to the execution host <%s>", host)
		}
		t := clk.NewTimer(wait)
		wait = min(2*wait, time.Second)
	waiting:
		for {
			select {
			case <-t.C():
				break waiting
			case r := <-s.ended:
				// The job ended while its terminal was away: its shepherd
				// may still hold its last output for a re-attach.
				t.Stop()
				if code, exited, _ := s.attach(ctx); exited {
					return code, nil
				}
				return exitCodeOf(&r), nil
			case sig := <-sigs:
				if sig != syscall.SIGWINCH {
					kill()
				}
			case <-ctx.Done():
				t.Stop()
				return 0, ctx.Err()
			}
		}
	}
}

// readInput copies bsub's standard input to s.in, closed at its end.
func (s *ttySession) readInput() {
	defer close(s.in)
	for {
		buf := make([]byte, 32<<10)
		n, err := s.env.Stdin.Read(buf)
		if n > 0 {
			s.in <- buf[:n]
		}
		if err != nil {
			return
		}
	}
}

// watchEnd delivers the job's last record on s.ended once mbatchd has it
// finished.
func (s *ttySession) watchEnd(ctx context.Context) {
	st, err := s.mc.Stream(ctx, api.MBatchdWaitJob, &api.JobRef{JobID: s.id})
	if err != nil {
		return
	}
	var last api.JobRecord
	for {
		var r api.JobRecord
		if err := st.Recv(&r); err != nil {
			if err == io.EOF && last.State&(api.StateDone|api.StateExit) != 0 {
				s.ended <- last
			}
			return
		}
		last = r
	}
}

// attach opens one stream to the job's terminal (a re-attach once the
// session has a token) and relays it until the job's exit (exited) or
// the stream's end; err is nil when a stream relayed and then broke.
func (s *ttySession) attach(ctx context.Context) (code int, exited bool, err error) {
	addr, err := s.cc.addr(ctx, s.host, s.cc.conf.SBDPort())
	if err != nil {
		return 0, false, fmt.Errorf("%s: %w", s.host, err)
	}
	hello, err := s.cc.hello(ctx, s.cc.creds(s.env), auth.KindSbatchd, s.host)
	if err != nil {
		return 0, false, err
	}
	sc, err := rpc.Dial(ctx, addr, hello)
	if err != nil {
		return 0, false, fmt.Errorf("Unable to contact execution host <%s>: %w", s.host, err)
	}
	defer sc.Close()
	ts := &api.TaskSpec{JobID: s.id, Pty: s.spec.Pty, Term: s.env.Getenv("TERM"), Session: s.token, Tee: s.tee}
	ws := s.winSize()
	if ws != nil {
		ts.Rows, ts.Cols = ws.Rows, ws.Cols
	}
	sctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()
	st, err := sc.Bidi(sctx, api.SBatchdAttach, &api.TaskInput{Spec: ts})
	if err != nil {
		return 0, false, err
	}
	var first api.TaskOutput
	if err := st.Recv(&first); err != nil {
		return 0, false, err // refused, or the sbatchd went away
	}
	if s.token != nil && s.spec.Pty && ws != nil {
		// The terminal kept its size while away.
		_ = st.Send(&api.TaskInput{Resize: ws})
	}
	wg.Add(2)
	go func() {
		defer wg.Done()
		s.sendInput(sctx, st)
	}()
	go func() {
		defer wg.Done()
		s.forwardSignals(sctx, st)
	}()
	out := &first
	for {
		if out == nil {
			out = new(api.TaskOutput)
			if err := st.Recv(out); err != nil {
				return 0, false, nil
			}
		}
		if out.Started != nil && len(out.Started.Session) > 0 {
			s.mu.Lock()
			s.token = out.Started.Session
			s.mu.Unlock()
		}
		if out.InputDone > 0 {
			s.inputDone(out.InputDone)
		}
		if len(out.Stdout) > 0 {
			_, _ = s.env.Stdout.Write(out.Stdout)
		}
		if len(out.Stderr) > 0 {
			// LSF writes the job's stderr to bsub's standard output too,
			// unless LSF_INTERACTIVE_STDERR=y.
			w := s.env.Stdout
			if s.sepStderr {
				w = s.env.Stderr
			}
			_, _ = w.Write(out.Stderr)
		}
		if out.Exit != nil {
			if out.Exit.Message != "" {
				s.env.Errorf("%s", out.Exit.Message)
			}
			return int(out.Exit.ExitCode), true, nil
		}
		out = nil
	}
}

// winSize is the size of bsub's terminal (its output's, else its
// input's), nil without one.
func (s *ttySession) winSize() *api.WindowSize {
	if ofd, ok := termFile(stdoutReader(s.env)); ok {
		return winSize(ofd)
	}
	if s.isTerm {
		return winSize(s.tfd)
	}
	return nil
}

// inChunk is a piece of bsub's input: bytes, or the end of a pipe's
// input (StdinEOF, which counts 1 in TaskOutput.InputDone).
type inChunk struct {
	b   []byte
	eof bool
}

func (c inChunk) size() uint64 {
	if c.eof {
		return 1
	}
	return uint64(len(c.b))
}

// sendInput sends bsub's input on st until ctx ends or st breaks: first
// what the streams before did not hand to the job, then what comes.
func (s *ttySession) sendInput(ctx context.Context, st *rpc.ClientStream) {
	send := func(c inChunk) error {
		if c.eof {
			return st.Send(&api.TaskInput{StdinEOF: true})
		}
		return st.Send(&api.TaskInput{Stdin: c.b})
	}
	s.mu.Lock()
	resend := append([]inChunk(nil), s.unacked...)
	s.acked = 0
	s.mu.Unlock()
	for _, c := range resend {
		if send(c) != nil {
			return
		}
	}
	for !s.inClosed {
		var c inChunk
		select {
		case b, ok := <-s.in:
			switch {
			case ok:
				c.b = b
			case !s.spec.Pty:
				c.eof = true
			case !s.isTerm:
				// Input piped to a job on a terminal ends as a
				// terminal's does: ^D.
				c.b = []byte{4}
			}
			s.inClosed = !ok
			if !ok && c.size() == 0 {
				return
			}
		case <-ctx.Done():
			return
		}
		s.mu.Lock()
		if s.token != nil {
			// Kept until the job has it: a re-attach sends it again.
			s.unacked = append(s.unacked, c)
		}
		s.mu.Unlock()
		if send(c) != nil {
			return
		}
	}
}

// inputDone drops the input the job has taken (TaskOutput.InputDone n on
// the current stream).
func (s *ttySession) inputDone(n uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.unacked) > 0 && s.acked+s.unacked[0].size() <= n {
		s.acked += s.unacked[0].size()
		s.unacked = s.unacked[1:]
	}
}

// forwardSignals sends window changes, and Ctrl-C where it is a signal,
// on st until ctx ends.
func (s *ttySession) forwardSignals(ctx context.Context, st *rpc.ClientStream) {
	for {
		select {
		case sig := <-s.sigs:
			switch {
			case sig == syscall.SIGWINCH:
				if ws := s.winSize(); ws != nil && s.spec.Pty {
					_ = st.Send(&api.TaskInput{Resize: ws})
				}
			case s.spec.Pty && sig == syscall.SIGINT:
				_ = st.Send(&api.TaskInput{Signal: int32(syscall.SIGINT)})
			default:
				s.kill()
			}
		case <-ctx.Done():
			return
		}
	}
}

// stdoutReader is bsub's standard output when it is a file (to ask its
// terminal's size).
func stdoutReader(env *Env) io.Reader {
	if f, ok := env.Stdout.(*os.File); ok {
		return f
	}
	return nil
}

// checkTTYOption checks bsub -tty: LSF's sub-option of -I, -Ip and -Is
// that shows the job's output and error on the terminal as well when -o
// or -e sends them to a file (TaskSpec.Tee). Without -o and -e they are on
// the terminal already.
func checkTTYOption(spec *api.JobSpec, tty bool) error {
	if tty && !spec.Interactive {
		return errors.New("The -tty option can only be used with an interactive job (-I, -Ip, -Is)")
	}
	return nil
}

// isTerminalReader reports whether r is a terminal.
func isTerminalReader(r io.Reader) bool {
	_, ok := termFile(r)
	return ok
}
