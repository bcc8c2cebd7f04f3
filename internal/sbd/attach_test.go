package sbd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

// attachEnv is an in-process sbatchd serving its RPC methods, a fake
// mbatchd session, and a client of the methods as user.
type attachEnv struct {
	s   *fakeSession
	sub string
	cl  *rpc.Client
}

func newAttachEnv(t *testing.T, user string, uid int) *attachEnv {
	t.Helper()
	state, sub := testDirs(t)
	mbd := newFakeMbd(t)
	cfg := testConfig(state, uniqueHost(t), mbd.addr)
	d := inProcess(t, cfg)
	srv := rpc.NewServer(auth.Static{User: user, UID: uid})
	d.Register(srv)
	ln, err := netListen()
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Shutdown(context.Background()) })
	cl, err := rpc.Dial(context.Background(), ln.Addr().String(), &api.ConnHello{User: user})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })
	return &attachEnv{s: mbd.session(), sub: sub, cl: cl}
}

func (e *attachEnv) launch(id int64, cmd string, pty bool) {
	l := jobLaunch(id, "root", e.sub, cmd)
	l.Spec.Interactive, l.Spec.Pty = true, pty
	e.s.launch(l)
}

// collect reads the stream to the job's exit.
func collect(t *testing.T, st *rpc.ClientStream, until func(stdout string) bool) (stdout, stderr string, exit *api.TaskExit, started bool) {
	t.Helper()
	var o, e strings.Builder
	for {
		var out api.TaskOutput
		if err := st.Recv(&out); err != nil {
			t.Fatalf("attach stream: %v (stdout %q)", err, o.String())
		}
		o.Write(out.Stdout)
		e.Write(out.Stderr)
		started = started || out.Started != nil && out.Started.PID > 0
		if out.Exit != nil {
			return o.String(), e.String(), out.Exit, started
		}
		if until != nil && until(o.String()) {
			return o.String(), e.String(), nil, started
		}
	}
}

func TestAttachPipes(t *testing.T) {
	e := newAttachEnv(t, "root", 0)
	e.launch(81, `read x; echo "got $x"; echo oops >&2; exit 3`, false)
	st, err := e.cl.Bidi(context.Background(), api.SBatchdAttach, &api.TaskInput{Spec: &api.TaskSpec{JobID: 81}})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Send(&api.TaskInput{Stdin: []byte("hello\n")}); err != nil {
		t.Fatal(err)
	}
	st.Send(&api.TaskInput{StdinEOF: true})
	o, errOut, exit, started := collect(t, st, nil)
	if o != "got hello\n" || errOut != "oops\n" || exit.ExitCode != 3 || !started {
		t.Errorf("stdout %q stderr %q exit %+v started %v", o, errOut, exit, started)
	}
	fin := e.s.final(81)
	if fin.State != api.StateExit || syscall.WaitStatus(fin.ExitStatus).ExitStatus() != 3 {
		t.Errorf("final report %+v", fin)
	}
}

func TestAttachPtyResizeAndSignal(t *testing.T) {
	e := newAttachEnv(t, "root", 0)
	e.launch(82, `stty size; read x; stty size; exec sleep 300`, true)
	st, err := e.cl.Bidi(context.Background(), api.SBatchdAttach,
		&api.TaskInput{Spec: &api.TaskSpec{JobID: 82, Pty: true, Rows: 30, Cols: 90, Term: "xterm"}})
	if err != nil {
		t.Fatal(err)
	}
	o, _, exit, _ := collect(t, st, func(o string) bool { return strings.Contains(o, "30 90") })
	if exit != nil {
		t.Fatalf("ended early: %q %+v", o, exit)
	}
	// The resize is applied before the input that follows it.
	st.Send(&api.TaskInput{Resize: &api.WindowSize{Rows: 50, Cols: 120}})
	st.Send(&api.TaskInput{Stdin: []byte("go\r")})
	o, _, exit, _ = collect(t, st, func(o string) bool { return strings.Contains(o, "50 120") })
	if exit != nil {
		t.Fatalf("ended early: %q %+v", o, exit)
	}
	st.Send(&api.TaskInput{Signal: int32(syscall.SIGTERM)})
	_, _, exit, _ = collect(t, st, nil)
	if exit.ExitCode != 128+int32(syscall.SIGTERM) {
		t.Errorf("exit %+v, want 143", exit)
	}
}

func TestAttachClientGoneKillsTheJob(t *testing.T) {
	e := newAttachEnv(t, "root", 0)
	e.launch(83, `echo ready; sleep 300`, true)
	st, err := e.cl.Bidi(context.Background(), api.SBatchdAttach, &api.TaskInput{Spec: &api.TaskSpec{JobID: 83, Pty: true}})
	if err != nil {
		t.Fatal(err)
	}
	collect(t, st, func(o string) bool { return strings.Contains(o, "ready") })
	e.cl.Close() // bsub is gone
	fin := e.s.final(83)
	if fin.State != api.StateExit || fin.TermReason != "TERM_OWNER" {
		t.Errorf("final %+v, want EXIT TERM_OWNER", fin)
	}
}

func TestAttachRefusals(t *testing.T) {
	refused := func(what string, st *rpc.ClientStream, err error, code rpc.Code, text string) {
		t.Helper()
		if err == nil {
			err = st.Recv(&api.TaskOutput{})
		}
		if rpc.CodeOf(err) != code || !strings.Contains(err.Error(), text) {
			t.Errorf("%s: %v, want code %v %q", what, err, code, text)
		}
	}
	e := newAttachEnv(t, "root", 0)
	e.launch(84, `sleep 300`, false)
	batch := jobLaunch(85, "root", e.sub, "sleep 300")
	e.s.launch(batch)
	st, err := e.cl.Bidi(context.Background(), api.SBatchdAttach, &api.TaskInput{Spec: &api.TaskSpec{JobID: 85}})
	refused("a batch job", st, err, rpc.FailedPrecondition, "is not an interactive job")
	st, err = e.cl.Bidi(context.Background(), api.SBatchdAttach, &api.TaskInput{})
	refused("no spec", st, err, rpc.InvalidArgument, "no task spec")

	// Another user's job.
	a := newAttachEnv(t, "alice", 1000)
	l := jobLaunch(86, "root", a.sub, "sleep 300")
	l.Spec.Interactive = true
	a.s.launch(l)
	st, err = a.cl.Bidi(context.Background(), api.SBatchdAttach, &api.TaskInput{Spec: &api.TaskSpec{JobID: 86}})
	refused("another user's job", st, err, rpc.PermissionDenied, "User permission denied")
}

// TestAttachTee: bsub -I -tty -o -e: the job's output and error go to
// their files, and to the terminal as well, without what the pre-execution
// wrote before the job and without the job report.
func TestAttachTee(t *testing.T) {
	e := newAttachEnv(t, "root", 0)
	l := jobLaunch(87, "root", e.sub, `echo to-out; echo to-err >&2; sleep 0.3; echo more-out; exit 2`)
	l.Spec.Interactive = true
	l.Spec.OutFile, l.Spec.ErrFile = "out.%J", "err.%J"
	l.Spec.PreExec = "echo from-pre-exec"
	e.s.launch(l)
	st, err := e.cl.Bidi(context.Background(), api.SBatchdAttach, &api.TaskInput{Spec: &api.TaskSpec{JobID: 87, Tee: true}})
	if err != nil {
		t.Fatal(err)
	}
	st.Send(&api.TaskInput{StdinEOF: true})
	o, errOut, exit, _ := collect(t, st, nil)
	if o != "to-out\nmore-out\n" || errOut != "to-err\n" || exit.ExitCode != 2 {
		t.Errorf("terminal stdout %q stderr %q exit %+v", o, errOut, exit)
	}
	out, _ := os.ReadFile(filepath.Join(e.sub, "out.87"))
	if !strings.Contains(string(out), "from-pre-exec\nto-out\nmore-out\n") || !strings.Contains(string(out), "Exited with exit code 2") {
		t.Errorf("-o file %q", out)
	}
	if b, _ := os.ReadFile(filepath.Join(e.sub, "err.87")); string(b) != "to-err\n" {
		t.Errorf("-e file %q", b)
	}
}
