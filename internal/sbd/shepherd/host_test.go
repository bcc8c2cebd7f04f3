package shepherd

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/api/wire"
	"github.com/basalt-lsf/basalt/internal/sbd/spool"
)

// hostProc is a shepherd host run by the test binary (job-shepherd -host).
type hostProc struct {
	t     *testing.T
	cmd   *exec.Cmd
	state string
	name  string
	exit  chan error
}

func startHost(t *testing.T, idle time.Duration) *hostProc {
	t.Helper()
	state := filepath.Join(testRoot(t), "state")
	os.MkdirAll(state, 0o755)
	name := HostSocketName(state)
	lst, err := net.Listen("unix", name)
	if err != nil {
		t.Fatal(err)
	}
	lf, _ := lst.(*net.UnixListener).File()
	lst.Close()
	cmd := exec.Command(os.Args[0], "job-shepherd", "-host", state, "-idle", idle.String())
	cmd.ExtraFiles = []*os.File{lf}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lf.Close()
	h := &hostProc{t: t, cmd: cmd, state: state, name: name, exit: make(chan error, 1)}
	go func() { h.exit <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		if t.Failed() {
			b, _ := os.ReadFile(filepath.Join(state, "shepherd.log"))
			t.Logf("host log:\n%s", b)
		}
	})
	return h
}

// exited waits (at most d) for the host to exit; false if it did not.
func (h *hostProc) exited(d time.Duration) bool {
	select {
	case err := <-h.exit:
		if err != nil {
			h.t.Errorf("host exited with %v", err)
		}
		return true
	case <-time.After(d):
		return false
	}
}

// follow connects to a job's socket as sbatchd does and reads it to its
// end (a shepherd whose final state found no sbatchd waits a while).
func (h *hostProc) follow(key string) {
	h.t.Helper()
	jc, err := Dial(context.Background(), SocketName(h.state, key))
	if err != nil {
		h.t.Fatal(err)
	}
	go func() {
		defer jc.Close()
		for {
			if _, err := jc.Recv(); err != nil {
				return
			}
		}
	}()
}

func (h *hostProc) dial() *HostClient {
	h.t.Helper()
	c, err := DialHost(context.Background(), h.name, time.Now().Add(5*time.Second))
	if err != nil {
		h.t.Fatalf("dial host: %v", err)
	}
	return c
}

// jobFor is a job spooled under the host's state directory, its launch and
// parameters encoded for a start request.
func (h *hostProc) jobFor(t *testing.T, id int64, command string) (dir spool.Dir, launch, params []byte) {
	j := newJob(t, command)
	j.launch.JobID = id
	dir = spool.Root(filepath.Join(h.state, "jobs")).Job(spool.Key(id, 0))
	os.MkdirAll(string(dir), 0o711)
	p := j.params
	p.SpoolDir, p.User, p.Home = string(dir), "tester", os.TempDir()
	p.ExecArgv = []string{os.Args[0], "job-shepherd"}
	p.SocketName = SocketName(h.state, spool.Key(id, 0))
	return dir, wire.Marshal(j.launch), wire.Marshal(p)
}

// TestHostServes: a shepherd host says who it is, runs the jobs it is
// given (each on its own socket), refuses a second shepherd for a job
// that has one, and exits once it has had no job and no sbatchd for its
// idle time.
func TestHostServes(t *testing.T) {
	h := startHost(t, 500*time.Millisecond)
	c := h.dial()
	if c.Hello.PID != int32(h.cmd.Process.Pid) || c.Hello.Build != Build(os.Args[0]) || c.Hello.Jobs != 0 {
		t.Errorf("hello %+v, want pid %d build %q", c.Hello, h.cmd.Process.Pid, Build(os.Args[0]))
	}
	dir, l, p := h.jobFor(t, 71, "while [ ! -e end ]; do sleep 0.02; done; exit 4")
	pid, err := c.Start(context.Background(), string(dir), l, p)
	if err != nil || pid != h.cmd.Process.Pid {
		t.Fatalf("Start = %d, %v", pid, err)
	}
	if _, err := c.Start(context.Background(), string(dir), l, p); !errors.Is(err, ErrRunning) {
		t.Errorf("second Start of the job: %v, want ErrRunning", err)
	}
	jc, err := Dial(context.Background(), SocketName(h.state, "71"))
	if err != nil {
		t.Fatal(err)
	}
	st, launch, _, err := jc.Handshake(time.Now().Add(5 * time.Second))
	if err != nil || launch.JobID != 71 || st.JobID != 71 {
		t.Fatalf("handshake: %+v %+v %v", st, launch, err)
	}
	// Connected or not, a host with a job stays.
	c.Close()
	if h.exited(time.Second) {
		t.Fatal("host exited with a job running")
	}
	var j api.JobLaunch
	j.UnmarshalWire(l)
	os.WriteFile(filepath.Join(j.Spec.SubCwd, "end"), nil, 0o644)
	for {
		ev, err := jc.Recv()
		if err != nil {
			t.Fatalf("job socket ended before a final state: %v", err)
		}
		if ev.Status != nil && ev.Status.Final {
			if ws := syscall.WaitStatus(ev.Status.ExitStatus); ws.ExitStatus() != 4 {
				t.Errorf("final %+v", ev.Status)
			}
			break
		}
	}
	jc.Close()
	if !h.exited(5 * time.Second) {
		t.Fatal("host did not exit when idle")
	}
}

// TestHostRetires: a retired host takes no more jobs (its socket closes
// at once, so a new host can take the name), finishes those it has, then
// exits.
func TestHostRetires(t *testing.T) {
	h := startHost(t, time.Hour)
	c := h.dial()
	dir, l, p := h.jobFor(t, 72, "while [ ! -e end ]; do sleep 0.02; done")
	if _, err := c.Start(context.Background(), string(dir), l, p); err != nil {
		t.Fatal(err)
	}
	h.follow("72")
	if err := c.Retire(context.Background()); err != nil {
		t.Fatal(err)
	}
	dir2, l2, p2 := h.jobFor(t, 73, "true")
	if _, err := c.Start(context.Background(), string(dir2), l2, p2); !errors.Is(err, ErrHostGone) {
		t.Errorf("Start on a retired host: %v, want ErrHostGone", err)
	}
	if _, err := DialHost(context.Background(), h.name, time.Now().Add(time.Second)); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("dialling a retired host: %v, want ECONNREFUSED (its socket closed)", err)
	}
	if h.exited(500 * time.Millisecond) {
		t.Fatal("retired host exited before its job ended")
	}
	var j api.JobLaunch
	j.UnmarshalWire(l)
	os.WriteFile(filepath.Join(j.Spec.SubCwd, "end"), nil, 0o644)
	if !h.exited(10 * time.Second) {
		t.Fatal("retired host did not exit after its last job")
	}
	if st, err := dir.ReadState(); err != nil || !st.Final || st.State != api.StateDone {
		t.Errorf("spool state %+v, %v", st, err)
	}
}

// TestHostSIGTERMRetires: SIGTERM retires a host (its jobs finish first).
func TestHostSIGTERMRetires(t *testing.T) {
	h := startHost(t, time.Hour)
	c := h.dial()
	dir, l, p := h.jobFor(t, 74, "sleep 0.3")
	if _, err := c.Start(context.Background(), string(dir), l, p); err != nil {
		t.Fatal(err)
	}
	h.follow("74")
	h.cmd.Process.Signal(syscall.SIGTERM)
	if !h.exited(10 * time.Second) {
		t.Fatal("host did not exit after SIGTERM and its job's end")
	}
	if st, err := dir.ReadState(); err != nil || st.State != api.StateDone {
		t.Errorf("the job did not finish: %+v, %v", st, err)
	}
}

// TestHostSIGUSR1ReopensLog: logrotate renames shepherd.log and sends
// SIGUSR1 (SIGHUP retires a host): the host writes to a new shepherd.log,
// its earlier lines stay in the renamed one, and it still serves.
func TestHostSIGUSR1ReopensLog(t *testing.T) {
	h := startHost(t, time.Hour)
	path := filepath.Join(h.state, "shepherd.log")
	waitLog := func(path, want string) string {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			b, _ := os.ReadFile(path)
			if strings.Contains(string(b), want) {
				return string(b)
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s has no %q:\n%s", path, want, b)
			}
		}
	}
	waitLog(path, "serving (build")
	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	h.cmd.Process.Signal(syscall.SIGUSR1)
	cur := waitLog(path, "user defined signal 1: log reopened")
	if strings.Contains(cur, "serving") {
		t.Errorf("new log has the old lines:\n%s", cur)
	}
	if old, _ := os.ReadFile(path + ".1"); strings.Contains(string(old), "reopened") {
		t.Errorf("old log has the new lines:\n%s", old)
	}
	if h.exited(100 * time.Millisecond) {
		t.Fatal("the host exited on SIGUSR1")
	}
	c := h.dial()
	dir, l, p := h.jobFor(t, 75, "true")
	if _, err := c.Start(context.Background(), string(dir), l, p); err != nil {
		t.Fatal(err)
	}
	h.follow("75")
	waitLog(path, "job 75")
}

// TestFinalWaitsForSbatchd: a job that ends before sbatchd's first
// connection still hands its final state over that connection (its
// shepherd waits a while before closing the socket).
func TestFinalWaitsForSbatchd(t *testing.T) {
	h := startHost(t, time.Hour)
	c := h.dial()
	dir, l, p := h.jobFor(t, 75, "exit 6")
	if _, err := c.Start(context.Background(), string(dir), l, p); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the final state in the spool", func() bool {
		st, err := dir.ReadState()
		return err == nil && st.Final
	})
	// A real sleep: sbatchd comes late, and lateness is real time passing
	// in the shepherd, another process (it keeps the socket a while).
	time.Sleep(200 * time.Millisecond)
	jc, err := Dial(context.Background(), SocketName(h.state, "75"))
	if err != nil {
		t.Fatalf("the job's socket closed before sbatchd came: %v", err)
	}
	defer jc.Close()
	st, _, _, err := jc.Handshake(time.Now().Add(5 * time.Second))
	if err != nil || !st.Final || syscall.WaitStatus(st.ExitStatus).ExitStatus() != 6 {
		t.Fatalf("handshake %+v, %v; want the final state, exit 6", st, err)
	}
	if _, err := jc.Recv(); err == nil {
		t.Error("the socket stays open after the final state was handed over")
	}
}

// TestNextRunTakesTheSocket: by the time sbatchd reads a run's final state,
// the job's socket is free, so mbatchd's next dispatch of the job (a
// requeue) starts its shepherd at once instead of finding the previous one
// "already running". Both ways: the run ends with sbatchd connected, and
// before sbatchd's first connection.
func TestNextRunTakesTheSocket(t *testing.T) {
	h := startHost(t, time.Hour)
	c := h.dial()
	for i := range 20 {
		connectFirst := i%2 == 0
		dir, l, p := h.jobFor(t, 76, "exit 3")
		if _, err := c.Start(context.Background(), string(dir), l, p); err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		if !connectFirst {
			waitFor(t, "the final state in the spool", func() bool {
				st, err := dir.ReadState()
				return err == nil && st.Final
			})
		}
		jc, err := Dial(context.Background(), SocketName(h.state, "76"))
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		st, _, _, err := jc.Handshake(time.Now().Add(5 * time.Second))
		for err == nil && !st.Final {
			var ev Event
			if ev, err = jc.Recv(); err == nil && ev.Status != nil {
				st = ev.Status
			}
		}
		if err != nil {
			t.Fatalf("run %d: no final state: %v", i, err)
		}
		lst, err := net.Listen("unix", SocketName(h.state, "76"))
		if err != nil {
			t.Fatalf("run %d (sbatchd connected first: %v): the job's socket is still bound after its final state: %v", i, connectFirst, err)
		}
		lst.Close()
		jc.Close()
		os.RemoveAll(string(dir))
	}
}
