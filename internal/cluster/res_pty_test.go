package cluster_test

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

// TestLsrunPty runs `lsrun -P` on a real pseudo-terminal against a local
// cluster: the remote terminal has the local one's size and follows its
// resize (SIGWINCH), input typed reaches the task, its exit status is
// lsrun's, and ^C typed locally (raw mode keeps ISIG under -P) interrupts
// the remote task.
func TestLsrunPty(t *testing.T) {
	c := up(t, 2, 1)
	start := func(script string) (*os.File, *exec.Cmd) {
		cmd := exec.Command(os.Args[0], "-P", "-m", "host2", "sh", "-c", script)
		cmd.Args[0] = "lsrun"
		cmd.Env = append(os.Environ(), "LSF_ENVDIR="+c.EnvDir, "BASALT_HOST=host1", "TERM=xterm")
		f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 33, Cols: 111})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close(); cmd.Process.Kill(); cmd.Wait() })
		return f, cmd
	}
	// expect reads the terminal until want appears.
	expect := func(f *os.File, out *bytes.Buffer, want string) {
		t.Helper()
		deadline := time.Now().Add(15 * time.Second)
		buf := make([]byte, 4096)
		for !strings.Contains(strings.ReplaceAll(out.String(), "\r", ""), want) {
			if time.Now().After(deadline) {
				t.Fatalf("terminal shows %q, want %q", out.String(), want)
			}
			f.SetReadDeadline(time.Now().Add(time.Second))
			n, _ := f.Read(buf)
			out.Write(buf[:n])
		}
	}
	f, cmd := start(`stty size; read x; echo got $x; stty size; exit 5`)
	var out bytes.Buffer
	expect(f, &out, "33 111\n")
	if err := pty.Setsize(f, &pty.Winsize{Rows: 40, Cols: 132}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // the resize reaches the remote terminal before the input
	f.Write([]byte("hello\r"))
	expect(f, &out, "got hello\n40 132\n")
	if err := cmd.Wait(); cmd.ProcessState.ExitCode() != 5 {
		t.Errorf("lsrun -P exit %v, want 5", err)
	}

	f, cmd = start(`echo ready; sleep 30`)
	out.Reset()
	expect(f, &out, "ready\n")
	// A ^C at once can land while the remote sh forks sleep: dash then
	// waits for sleep before dying of the signal (as on a local terminal
	// it would not). Wait until sleep runs.
	time.Sleep(200 * time.Millisecond)
	f.Write([]byte{3}) // ^C
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("^C did not end lsrun -P")
	}
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("lsrun -P after ^C: exit %d, want 130", code)
	}
}
