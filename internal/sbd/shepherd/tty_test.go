package shepherd

import (
	"context"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/creack/pty"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/sbd/sbdwire"
)

// attachPipes hands the shepherd three pipes as bsub -I's streams and
// returns sbatchd's ends.
func attachPipes(t *testing.T, r *running) (stdin *os.File, stdout, stderr *os.File) {
	t.Helper()
	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe()
	errR, errW, _ := os.Pipe()
	c, err := AttachTTY(context.Background(), r.sock, false, []int{int(inR.Fd()), int(outW.Fd()), int(errW.Fd())})
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
	c, err := AttachTTY(context.Background(), r.sock, true, []int{int(slave.Fd())})
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
	if c, err := AttachTTY(context.Background(), r.sock, false, []int{int(inR.Fd()), int(inW.Fd()), int(inW.Fd())}); err == nil {
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
	c, err := AttachTTY(context.Background(), r.sock, true, []int{int(slave.Fd())})
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
