package shepherd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/clock"
	"github.com/basalt-lsf/basalt/internal/sbd/cgroup"
	"github.com/basalt-lsf/basalt/internal/sbd/sbdwire"
	"github.com/basalt-lsf/basalt/internal/sbd/spool"
	"github.com/basalt-lsf/basalt/internal/testutil"
)

// TestMain makes the test binary act as "basaltd job-shepherd" when run so:
// the shepherd and its exec helper are real processes in these tests.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "job-shepherd" {
		if mark := os.Getenv("SHEPHERD_TEST_BLOCKING_REMOTE"); mark != "" {
			os.Exit(MainWith(os.Args[2:], func(*sbdwire.Params) (Remote, error) { return blockingRemote{mark}, nil }))
		}
		os.Exit(Main(os.Args[2:]))
	}
	if len(os.Args) > 3 && os.Args[1] == "squat" {
		os.Exit(squat(os.Args[2], os.Args[3]))
	}
	os.Exit(m.Run())
}

// testRoot is a directory every test user can traverse (t.TempDir is
// private to root).
func testRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "shepherd-test-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// job describes a test job.
type job struct {
	launch *api.JobLaunch
	params *sbdwire.Params
	user   string // "" runs as the test's own user
	cgroup bool
	// shellGate: without the job gate (the job file's gate instead).
	shellGate bool
	// env is added to the shepherd's environment.
	env []string
}

func newJob(t *testing.T, command string) *job {
	root := testRoot(t)
	sub := filepath.Join(root, "sub")
	os.Mkdir(sub, 0o777)
	os.Chmod(sub, 0o777) // job users write here
	return &job{
		launch: &api.JobLaunch{
			JobID: 100 + int64(len(t.Name())), User: "tester", RunCount: 1, Cluster: "testcluster",
			Spec: &api.JobSpec{Command: command, SubCwd: sub, FromHost: "subhost", Umask: 0o022,
				Env: []string{"PATH=/usr/local/bin:/usr/bin:/bin", "FROM_SUBMITTER=yes"}},
			ExecHosts: []*api.ExecHost{{Host: "hostA", Slots: 1}},
			Queue:     &api.QueueExec{Name: "normal"},
			JobName:   "testjob",
		},
		params: &sbdwire.Params{Host: "hostA", Cluster: "testcluster", SpoolDir: filepath.Join(root, "spool"),
			TerminateInterval: int64(300 * time.Millisecond), SampleInterval: int64(100 * time.Millisecond)},
	}
}

// running is a started shepherd and a connection to it.
type running struct {
	t      *testing.T
	dir    spool.Dir
	sock   string
	cmd    *exec.Cmd
	c      *Client
	events chan Event
	errs   chan error
	last   *api.JobStatusReport
	seq    uint64
}

func (j *job) start(t *testing.T) *running {
	t.Helper()
	dir := spool.Dir(j.params.SpoolDir)
	if err := os.MkdirAll(string(dir), 0o700); err != nil {
		t.Fatal(err)
	}
	p := j.params
	p.ExecArgv = []string{os.Args[0], "job-shepherd"}
	if j.user != "" {
		acct, err := LookupAccount(j.user)
		if err != nil {
			t.Skipf("test user: %v (run scripts/setup-test-env.sh as root)", err)
		}
		p.User, p.UID, p.GID, p.Groups, p.Home, p.SetCred = acct.User, acct.UID, acct.GID, acct.Groups, acct.Home, true
	} else {
		p.User, p.Home = "tester", os.TempDir()
	}
	if j.cgroup {
		if os.Geteuid() != 0 {
			t.Skip("cgroups need root")
		}
		p.CgroupParent = fmt.Sprintf("basalt-test/sh%d", os.Getpid())
		p.CgroupName = "job." + spool.Key(j.launch.JobID, j.launch.Index)
		t.Cleanup(func() {
			h, _ := cgroup.Detect()
			m := cgroup.New(h, p.CgroupParent)
			g := m.Group(p.CgroupName)
			g.Kill()
			g.WaitEmpty(clock.Real(), 5*time.Second)
			g.Remove()
			for _, mp := range append([]string{h.Unified}, values(h.V1)...) {
				if mp != "" {
					syscall.Rmdir(filepath.Join(mp, p.CgroupParent))
					syscall.Rmdir(filepath.Join(mp, "basalt-test"))
				}
			}
		})
	}
	p.SocketName = SocketName(filepath.Dir(string(dir)), spool.Key(j.launch.JobID, j.launch.Index))
	if err := dir.WriteLaunch(j.launch); err != nil {
		t.Fatal(err)
	}
	if err := dir.WriteParams(p); err != nil {
		t.Fatal(err)
	}
	lst, err := net.Listen("unix", p.SocketName)
	if err != nil {
		t.Fatal(err)
	}
	lf, err := lst.(*net.UnixListener).File()
	if err != nil {
		t.Fatal(err)
	}
	lst.Close()
	cmd := exec.Command(os.Args[0], "job-shepherd", string(dir))
	cmd.ExtraFiles = []*os.File{lf}
	cmd.Env = append(os.Environ(), j.env...)
	if j.shellGate {
		cmd.Env = append(cmd.Env, "BASALT_JOBGATE=off")
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lf.Close()
	r := &running{t: t, dir: dir, cmd: cmd, sock: p.SocketName, events: make(chan Event, 1000), errs: make(chan error, 1)}
	t.Cleanup(func() {
		if r.cmd.ProcessState == nil {
			r.cmd.Process.Kill()
			r.cmd.Wait()
		}
		if t.Failed() {
			b, _ := os.ReadFile(dir.Log())
			t.Logf("shepherd log:\n%s", b)
		}
	})
	r.connect()
	return r
}

func values(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

func (r *running) connect() {
	c, err := Dial(context.Background(), r.sock)
	if err != nil {
		r.t.Fatalf("dial: %v", err)
	}
	r.c = c
	events, errs := make(chan Event, 1000), make(chan error, 1)
	r.events, r.errs = events, errs
	go func() {
		for {
			ev, err := c.Recv()
			if err != nil {
				errs <- err
				close(events)
				return
			}
			events <- ev
		}
	}()
}

// next returns the next status the shepherd pushes (acks are checked).
func (r *running) next() *api.JobStatusReport {
	r.t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case ev, ok := <-r.events:
			if !ok {
				r.t.Fatalf("shepherd closed the socket before a final state: %v", <-r.errs)
			}
			if ev.Ack != nil && ev.Ack.Err != "" {
				r.t.Logf("command %d refused: %s", ev.Ack.Seq, ev.Ack.Err)
			}
			if ev.Status == nil {
				continue
			}
			if ev.Status.Seq <= r.seq && r.last != nil {
				r.t.Fatalf("Seq went from %d to %d", r.seq, ev.Status.Seq)
			}
			r.seq, r.last = ev.Status.Seq, ev.Status
			return ev.Status
		case <-timeout:
			r.t.Fatalf("no state after 30s; last %+v", r.last)
		}
	}
}

// until waits for a state satisfying cond.
func (r *running) until(what string, cond func(*api.JobStatusReport) bool) *api.JobStatusReport {
	r.t.Helper()
	for {
		st := r.next()
		if cond(st) {
			return st
		}
		if st.Final {
			r.t.Fatalf("final state %+v before %s", st, what)
		}
	}
}

func (r *running) final() *api.JobStatusReport {
	r.t.Helper()
	st := r.until("final", func(st *api.JobStatusReport) bool { return st.Final })
	// The socket closes once the final state is out.
	for range r.events {
	}
	if err := <-r.errs; !errors.Is(err, io.EOF) {
		r.t.Errorf("socket ended with %v, want EOF", err)
	}
	r.cmd.Wait()
	if code := r.cmd.ProcessState.ExitCode(); code != 0 {
		r.t.Errorf("shepherd exited %d", code)
	}
	// The spool holds the same final state.
	disk, err := r.dir.ReadState()
	if err != nil || disk.Seq != st.Seq || !disk.Final {
		r.t.Errorf("spool state %+v (%v), want Seq %d final", disk, err, st.Seq)
	}
	return st
}

func (r *running) running() *api.JobStatusReport {
	r.t.Helper()
	return r.until("RUN", func(st *api.JobStatusReport) bool { return st.State == api.StateRun })
}

var cmdSeq uint64

func (r *running) send(c *sbdwire.Command) {
	r.t.Helper()
	cmdSeq++
	c.Seq = cmdSeq
	if err := r.c.Send(c); err != nil {
		r.t.Fatalf("send: %v", err)
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v", err)
	}
	return string(b)
}

func mustContain(t *testing.T, what, s string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(s, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, s)
		}
	}
}

// procState returns the state letter of pid ('T' stopped), or 0 when gone.
func procState(pid int) byte {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 || i+2 >= len(b) {
		return 0
	}
	return b[i+2]
}

// jobStopped reports whether no process of the job under pid runs: each is
// stopped ('T'), or blocked ('D') like a shell waiting in vfork for a child
// stopped before it could execute.
func jobStopped(pid int) bool {
	pids := []int{pid}
	out, _ := exec.Command("ps", "-o", "pid=", "--ppid", strconv.Itoa(pid)).Output()
	for _, f := range strings.Fields(string(out)) {
		n, _ := strconv.Atoi(f)
		pids = append(pids, n)
	}
	for _, p := range pids {
		if s := procState(p); s != 'T' && s != 'D' && s != 0 {
			return false
		}
	}
	return true
}

// waitFor polls cond: process states change asynchronously in the kernel.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if !testutil.Poll(10*time.Second, cond) {
		out, _ := exec.Command("ps", "-eo", "pid,ppid,pgid,stat,cmd").Output()
		t.Fatalf("timed out waiting for %s; processes:\n%s", what, out)
	}
}
