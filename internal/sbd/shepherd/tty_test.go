package shepherd

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/sbd/sbdwire"
	"github.com/basalt-lsf/basalt/internal/testutil"
)

// attachPipes hands the shepherd three pipes as bsub -I's streams and
// returns sbatchd's ends.
func attachPipes(t *testing.T, r *running) (stdin *os.File, stdout, stderr *os.File) {
	t.Helper()
	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe()
	errR, errW, _ := os.Pipe()
	c, err := AttachTTY(context.Background(), r.sock, false, []int{int(inR.Fd()), int(outW.Fd()), int(errW.Fd())}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	inR.Close()
	outW.Close()
	errW.Close()
	return inW, outR, errR
}

func TestInteractivePipes(t *testing.T) {
	j := newJob(t, `read x; echo "got $x"; echo oops >&2; exit 3`)
	j.launch.Spec.Interactive = true
	r := j.start(t)
	if st := r.next(); st.State == api.StateRun {
		t.Fatalf("an interactive job ran before its terminal was attached: %+v", st)
	}
	in, out, errf := attachPipes(t, r)
	in.Write([]byte("hello\n"))
	in.Close()
	o, _ := io.ReadAll(out)
	e, _ := io.ReadAll(errf)
	if string(o) != "got hello\n" || string(e) != "oops\n" {
		t.Errorf("stdout %q stderr %q, want %q and %q", o, e, "got hello\n", "oops\n")
	}
	st := r.final()
	if ws := syscall.WaitStatus(st.ExitStatus); st.State != api.StateExit || !ws.Exited() || ws.ExitStatus() != 3 {
		t.Errorf("final %+v, want EXIT 3", st)
	}
}

func TestInteractiveOutputFile(t *testing.T) {
	// -o sends the output to the file; stderr stays on the terminal.
	j := newJob(t, `echo to-file; echo to-term >&2`)
	j.launch.Spec.Interactive = true
	j.launch.Spec.OutFile = j.launch.Spec.SubCwd + "/out"
	r := j.start(t)
	in, out, errf := attachPipes(t, r)
	in.Close()
	o, _ := io.ReadAll(out)
	e, _ := io.ReadAll(errf)
	if string(o) != "" || string(e) != "to-term\n" {
		t.Errorf("stdout %q stderr %q", o, e)
	}
	r.final()
	mustContain(t, "-o file", readFile(t, j.launch.Spec.OutFile), "to-file\n")
}

func TestInteractivePty(t *testing.T) {
	j := newJob(t, `test -t 0 && echo isatty; stty size; ps -o stat= -p $$`)
	j.launch.Spec.Interactive, j.launch.Spec.Pty = true, true
	r := j.start(t)
	master, slave, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	defer master.Close()
	pty.Setsize(master, &pty.Winsize{Rows: 33, Cols: 101})
	c, err := AttachTTY(context.Background(), r.sock, true, []int{int(slave.Fd())}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	slave.Close()
	b, _ := io.ReadAll(master) // EIO once the job's side is closed
	text := strings.ReplaceAll(string(b), "\r\n", "\n")
	// The job leads its session on the terminal: ps shows "s" and, in
	// the foreground, "+".
	if !strings.Contains(text, "isatty\n33 101\n") || !strings.Contains(text, "s+") {
		t.Errorf("terminal shows %q", text)
	}
	if st := r.final(); st.State != api.StateDone {
		t.Errorf("final %+v", st)
	}
}

func TestInteractiveKilledWhileWaiting(t *testing.T) {
	j := newJob(t, `echo never`)
	j.launch.Spec.Interactive = true
	r := j.start(t)
	r.next()
	r.send(&sbdwire.Command{Op: sbdwire.OpTerminate, TermReason: "TERM_OWNER"})
	st := r.final()
	if st.State != api.StateExit || st.PID != 0 {
		t.Errorf("final %+v, want EXIT without a run", st)
	}
	// A terminal that comes afterwards is refused (the socket is gone).
	inR, inW, _ := os.Pipe()
	defer inR.Close()
	defer inW.Close()
	if c, err := AttachTTY(context.Background(), r.sock, false, []int{int(inR.Fd()), int(inW.Fd()), int(inW.Fd())}, nil, nil); err == nil {
		c.Close()
	}
}

func TestInteractivePtyThroughTheHelper(t *testing.T) {
	// bsub -Is -L: the exec helper starts the job, on the terminal too.
	j := newJob(t, `test -t 0 && test -t 2 && echo isatty; ps -o stat= -p $$`)
	j.launch.Spec.Interactive, j.launch.Spec.Pty = true, true
	j.launch.Spec.LoginShell = "/bin/sh"
	r := j.start(t)
	master, slave, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	defer master.Close()
	c, err := AttachTTY(context.Background(), r.sock, true, []int{int(slave.Fd())}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	slave.Close()
	b, _ := io.ReadAll(master)
	if text := string(b); !strings.Contains(text, "isatty") || !strings.Contains(text, "s+") {
		t.Errorf("terminal shows %q", text)
	}
	if st := r.final(); st.State != api.StateDone {
		t.Errorf("final %+v", st)
	}
}

// TestInteractiveReattach: the shepherd keeps sbatchd's end of the
// terminal (the master) while the job runs; when the connection that
// relayed it goes (sbatchd killed), the job goes on (no hangup), and a new
// connection that presents the session's token gets the master back. A
// wrong token, or a second re-attach while one relays, is refused.
func TestInteractiveReattach(t *testing.T) {
	j := newJob(t, `trap 'echo HUP; exit 9' HUP; echo ready; read x; echo "got $x"; exit 5`)
	j.launch.Spec.Interactive, j.launch.Spec.Pty = true, true
	r := j.start(t)
	master, slave, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	token := []byte("0123456789abcdef")
	c, err := AttachTTY(context.Background(), r.sock, true, []int{int(slave.Fd())}, []int{int(master.Fd())}, token)
	if err != nil {
		t.Fatal(err)
	}
	slave.Close()
	readUntil(t, master, "ready")
	// sbatchd dies: its connection and its copy of the master close.
	c.Close()
	master.Close()

	if _, _, err := Reattach(context.Background(), r.sock, []byte("0123456789abcdeX")); !errors.Is(err, ErrReattachRefused) ||
		!strings.Contains(err.Error(), "does not match") {
		t.Fatalf("re-attach with a forged token: %v", err)
	}
	if _, _, err := Reattach(context.Background(), r.sock, nil); !errors.Is(err, ErrReattachRefused) {
		t.Fatalf("re-attach without a token: %v", err)
	}
	c2, rl := reattach(t, r.sock, token)
	defer c2.Close()
	defer rl.Close()
	if !rl.Pty || rl.Master == nil {
		t.Fatalf("relay %+v", rl)
	}
	if _, _, err := Reattach(context.Background(), r.sock, token); !errors.Is(err, ErrReattachRefused) ||
		!strings.Contains(err.Error(), "attached") {
		t.Fatalf("second re-attach while attached: %v", err)
	}
	rl.Master.Write([]byte("again\r"))
	out := readUntil(t, rl.Master, "got again")
	if strings.Contains(out, "HUP") {
		t.Errorf("the job was hung up: %q", out)
	}
	// The re-attached connection receives the job's states to the end.
	for {
		ev, err := c2.Recv()
		if err != nil {
			t.Fatalf("states: %v", err)
		}
		if ev.Status != nil && ev.Status.Final {
			if ws := syscall.WaitStatus(ev.Status.ExitStatus); !ws.Exited() || ws.ExitStatus() != 5 {
				t.Errorf("final %+v, want exit 5", ev.Status)
			}
			break
		}
	}
}

// TestInteractiveReattachPipes: -I's pipes are kept the same way, and the
// end of bsub's input (frameStdinEOF) closes the shepherd's copy of
// stdin's writer, so that the job reads its end.
func TestInteractiveReattachPipes(t *testing.T) {
	j := newJob(t, `echo ready; cat; echo "eof seen"; exit 4`)
	j.launch.Spec.Interactive = true
	r := j.start(t)
	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe()
	errR, errW, _ := os.Pipe()
	token := []byte("pipes-token")
	c, err := AttachTTY(context.Background(), r.sock, false,
		[]int{int(inR.Fd()), int(outW.Fd()), int(errW.Fd())}, []int{int(inW.Fd()), int(outR.Fd()), int(errR.Fd())}, token)
	if err != nil {
		t.Fatal(err)
	}
	inR.Close()
	outW.Close()
	errW.Close()
	readUntil(t, outR, "ready")
	c.Close()
	inW.Close()
	outR.Close()
	errR.Close()
	c2, rl := reattach(t, r.sock, token)
	defer c2.Close()
	if rl.Pty || rl.Stdin == nil || rl.Stdout == nil || rl.Stderr == nil {
		t.Fatalf("relay %+v", rl)
	}
	rl.Stdin.Write([]byte("line\n"))
	readUntil(t, rl.Stdout, "line")
	rl.Stdin.Close()
	if err := c2.StdinEOF(); err != nil {
		t.Fatal(err)
	}
	readUntil(t, rl.Stdout, "eof seen")
	rl.Close()
}

// reattach re-attaches with token, again while the shepherd has not yet
// seen the previous relay's connection close.
func reattach(t *testing.T, sock string, token []byte) (*Client, *Relay) {
	t.Helper()
	var c *Client
	var rl *Relay
	testutil.Eventually(t, 10*time.Second, "a re-attach", func() bool {
		var err error
		c, rl, err = Reattach(context.Background(), sock, token)
		if err != nil && !strings.Contains(err.Error(), "is attached") {
			t.Fatal(err)
		}
		return err == nil
	})
	return c, rl
}

// readUntil reads f until what it read contains want (10 s at most).
func readUntil(t *testing.T, f *os.File, want string) string {
	t.Helper()
	var got strings.Builder
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for !strings.Contains(got.String(), want) {
			n, err := f.Read(buf)
			got.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		f.Close()
		<-done
	}
	if !strings.Contains(got.String(), want) {
		t.Fatalf("read %q, want %q in it", got.String(), want)
	}
	return got.String()
}

// TestInteractiveReattachAfterEnd: the job ends while its relay is gone
// (sbatchd down): the shepherd keeps its socket and the terminal's ends
// after the final state, until a re-attach has read the job's last output.
func TestInteractiveReattachAfterEnd(t *testing.T) {
	j := newJob(t, `echo ready; while [ ! -e go ]; do sleep 0.02; done; echo last-words; exit 4`)
	j.launch.Spec.Interactive = true
	r := j.start(t)
	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe()
	errR, errW, _ := os.Pipe()
	token := []byte("after-the-end")
	c, err := AttachTTY(context.Background(), r.sock, false,
		[]int{int(inR.Fd()), int(outW.Fd()), int(errW.Fd())}, []int{int(inW.Fd()), int(outR.Fd()), int(errR.Fd())}, token)
	if err != nil {
		t.Fatal(err)
	}
	inR.Close()
	outW.Close()
	errW.Close()
	readUntil(t, outR, "ready")
	c.Close()
	inW.Close()
	outR.Close()
	errR.Close()
	os.WriteFile(filepath.Join(j.launch.Spec.SubCwd, "go"), nil, 0o644)
	fin := r.until("final", func(st *api.JobStatusReport) bool { return st.Final })
	if ws := syscall.WaitStatus(fin.ExitStatus); ws.ExitStatus() != 4 {
		t.Errorf("final %+v", fin)
	}
	c2, rl := reattach(t, r.sock, token)
	if rl.State == nil || !rl.State.Final {
		t.Errorf("re-attached state %+v, want the final one", rl.State)
	}
	b, _ := io.ReadAll(rl.Stdout)
	if string(b) != "last-words\n" {
		t.Errorf("last output %q", b)
	}
	rl.Close()
	c2.Close()
	// Then the shepherd is done.
	for range r.events {
	}
	r.cmd.Wait()
}
