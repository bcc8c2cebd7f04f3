package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
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
func bsubInteractive(ctx context.Context, env *Env, cc *clientConf, c *rpc.Client, id int64, spec *api.JobSpec) int {
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
	host, code, ok := waitDispatch(ctx, env, c, id, sigs, kill)
	if !ok {
		return code
	}
	fmt.Fprintf(env.Stderr, "<<Starting on %s>>\n", host)
	code, err := attachInteractive(ctx, env, cc, c, id, host, spec, sigs, kill)
	if err == nil {
		return code
	}
	// No terminal: the job is killed (as when bsub goes away), and bsub
	// ends with it. A job killed at the user's request before its
	// terminal was joined is no error.
	if !killed.Load() {
		env.Errorf("Job <%d>: %v", id, err)
		kill()
	}
	if code, ok := waitEnd(ctx, c, id); ok && killed.Load() {
		return code
	}
	return ExitUsage
}

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
func waitDispatch(ctx context.Context, env *Env, c *rpc.Client, id int64, sigs chan os.Signal, kill func()) (string, int, bool) {
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
	for {
		select {
		case r := <-recs:
			if len(r.ExecHosts) > 0 && (r.State&(api.StateRun|api.StateSSusp|api.StateUSusp) != 0 || r.StartTime > 0) {
				return r.ExecHosts[0].Host, 0, true
			}
			if r.State == api.StateExit || r.State == api.StateDone {
				if r.StartTime == 0 {
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

// attachInteractive relays the job's terminal and returns its exit code;
// an error when the terminal could not be joined or broke.
func attachInteractive(ctx context.Context, env *Env, cc *clientConf, mc *rpc.Client, id int64, host string, spec *api.JobSpec,
	sigs chan os.Signal, kill func()) (int, error) {
	addr, err := cc.addr(ctx, host, cc.conf.SBDPort())
	if err != nil {
		return 0, fmt.Errorf("%s: %w", host, err)
	}
	hello, err := cc.hello(ctx, cc.creds(env), auth.KindSbatchd, host)
	if err != nil {
		return 0, err
	}
	sc, err := rpc.Dial(ctx, addr, hello)
	if err != nil {
		return 0, fmt.Errorf("Unable to contact execution host <%s>: %w", host, err)
	}
	defer sc.Close()
	ts := &api.TaskSpec{JobID: id, Pty: spec.Pty, Term: env.Getenv("TERM")}
	tfd, isTerm := termFile(env.Stdin)
	if ofd, ok := termFile(stdoutReader(env)); ok {
		if ws := winSize(ofd); ws != nil {
			ts.Rows, ts.Cols = ws.Rows, ws.Cols
		}
	} else if isTerm {
		if ws := winSize(tfd); ws != nil {
			ts.Rows, ts.Cols = ws.Rows, ws.Cols
		}
	}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st, err := sc.Bidi(sctx, api.SBatchdAttach, &api.TaskInput{Spec: ts})
	if err != nil {
		return 0, err
	}
	raw := spec.Pty && isTerm
	if raw {
		// ^C and ^Z go to the job's terminal as bytes.
		if rt, err := makeRaw(tfd, false); err == nil {
			defer rt.restore()
		}
	}
	// Input: bsub's standard input to the job.
	go func() {
		buf := make([]byte, 32<<10)
		for {
			n, err := env.Stdin.Read(buf)
			if n > 0 {
				if st.Send(&api.TaskInput{Stdin: append([]byte(nil), buf[:n]...)}) != nil {
					return
				}
			}
			if err != nil {
				switch {
				case !spec.Pty:
					_ = st.Send(&api.TaskInput{StdinEOF: true})
				case !isTerm:
					// Input piped to a job on a terminal ends as a
					// terminal's does: ^D.
					_ = st.Send(&api.TaskInput{Stdin: []byte{4}})
				}
				return
			}
		}
	}()
	// Signals: window changes, and Ctrl-C where it is a signal.
	go func() {
		for {
			select {
			case s := <-sigs:
				switch {
				case s == syscall.SIGWINCH:
					fd := tfd
					if ofd, ok := termFile(stdoutReader(env)); ok {
						fd = ofd
					}
					if ws := winSize(fd); ws != nil && spec.Pty {
						_ = st.Send(&api.TaskInput{Resize: ws})
					}
				case spec.Pty && s == syscall.SIGINT:
					_ = st.Send(&api.TaskInput{Signal: int32(syscall.SIGINT)})
				default:
					kill()
				}
			case <-sctx.Done():
				return
			}
		}
	}()
	for {
		var out api.TaskOutput
		err := st.Recv(&out)
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = errors.New("the job's terminal closed without its exit status")
			}
			if raw {
				fmt.Fprint(env.Stderr, "\r")
			}
			return 0, err
		}
		if len(out.Stdout) > 0 {
			_, _ = env.Stdout.Write(out.Stdout)
		}
		if len(out.Stderr) > 0 {
			_, _ = env.Stderr.Write(out.Stderr)
		}
		if out.Exit != nil {
			if out.Exit.Message != "" {
				env.Errorf("%s", out.Exit.Message)
			}
			return int(out.Exit.ExitCode), nil
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
