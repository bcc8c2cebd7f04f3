package sbd

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/clock"
	"github.com/basalt-lsf/basalt/internal/logging"
	"github.com/basalt-lsf/basalt/internal/rpc"
	"github.com/basalt-lsf/basalt/internal/sbd/cgroup"
	"github.com/basalt-lsf/basalt/internal/sbd/sbdwire"
	"github.com/basalt-lsf/basalt/internal/sbd/shepherd"
	"github.com/basalt-lsf/basalt/internal/sbd/spool"
	"github.com/basalt-lsf/basalt/internal/testutil"
)

func newRoot(cfg Config) spool.Root { return spool.Root(filepath.Join(cfg.StateDir, "jobs")) }

var sbdwireCommandKill = sbdwire.Command{Op: sbdwire.OpTerminate, TermReason: "TERM_FORCE_ADMIN", Seq: 1}

// TestMain lets the test binary be a job shepherd ("job-shepherd ...") and
// an sbatchd process ("run-sbatchd -flags"), so tests run, kill and restart
// real processes.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "job-shepherd":
			os.Exit(shepherd.Main(os.Args[2:]))
		case "run-sbatchd":
			os.Exit(runSbatchd(os.Args[2:]))
		}
	}
	os.Exit(m.Run())
}

// testParams are the short intervals tests run with.
func testConfig(stateDir, host, master string) Config {
	return Config{
		Host: host, Cluster: "testcl", StateDir: stateDir,
		Master:       MasterFunc(func(context.Context) (string, error) { return master, nil }),
		ShepherdPath: os.Args[0], ShepherdArgv: []string{os.Args[0], "job-shepherd"}, ShepherdIdle: 3 * time.Second,
		Cgroups:   true,
		SleepTime: 200 * time.Millisecond, TerminateInterval: 200 * time.Millisecond,
		SampleInterval: 100 * time.Millisecond, RetryMin: 50 * time.Millisecond, RetryMax: 200 * time.Millisecond,
	}
}

// runSbatchd is a standalone sbatchd for the kill/restart tests.
func runSbatchd(args []string) int {
	fs := flag.NewFlagSet("run-sbatchd", flag.ExitOnError)
	state := fs.String("state", "", "state directory")
	host := fs.String("host", "", "host name")
	master := fs.String("master", "", "mbatchd address")
	shepherdPath := fs.String("shepherd", "", "program of the shepherds (default: this one)")
	fs.Parse(args)
	cfg := testConfig(*state, *host, *master)
	if *shepherdPath != "" {
		cfg.ShepherdPath, cfg.ShepherdArgv[0] = *shepherdPath, *shepherdPath
	}
	cfg.Log = slog.New(logging.NewHandler(os.Stderr, &logging.HandlerOptions{Level: slog.LevelDebug, Name: "sbatchd"}))
	d, err := New(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	d.Run(ctx)
	return 0
}

// fakeMbd is an in-process mbatchd: it accepts sbatchd sessions and lets
// the test drive them.
type fakeMbd struct {
	t        *testing.T
	srv      *rpc.Server
	addr     string
	sessions chan *fakeSession
	// welcome, when set, chooses the welcome's jobs from the hello.
	mu      sync.Mutex
	welcome func(*api.SbdHello) []*api.JobLaunch
}

type fakeSession struct {
	t     *testing.T
	st    *rpc.ServerStream
	hello *api.SbdHello
	in    chan *api.SbdMessage
	seq   uint64
	// acks sbatchd sent, by message Seq.
	acks map[uint64]*api.Ack
	quit chan struct{}
}

// end closes the session from mbatchd's side (as when it restarts).
func (s *fakeSession) end() { close(s.quit) }

func newFakeMbd(t *testing.T) *fakeMbd {
	t.Helper()
	m := &fakeMbd{t: t, sessions: make(chan *fakeSession, 16)}
	m.srv = rpc.NewServer(auth.Static{User: "root"})
	m.srv.Handle(api.MBatchdSbdSession, func(ctx context.Context, st *rpc.ServerStream) error {
		var first api.SbdMessage
		if err := st.Recv(&first); err != nil {
			return err
		}
		if first.Hello == nil {
			return rpc.Errorf(rpc.InvalidArgument, "first message is not a hello")
		}
		s := &fakeSession{t: t, st: st, hello: first.Hello, in: make(chan *api.SbdMessage, 1000), acks: map[uint64]*api.Ack{}}
		m.mu.Lock()
		w := m.welcome
		m.mu.Unlock()
		var jobs []*api.JobLaunch
		if w != nil {
			jobs = w(first.Hello)
		}
		if err := st.Send(&api.MbdMessage{Welcome: &api.SbdWelcome{Jobs: jobs}}); err != nil {
			return err
		}
		s.quit = make(chan struct{})
		m.sessions <- s
		go func() {
			for {
				msg := &api.SbdMessage{}
				if err := st.Recv(msg); err != nil {
					close(s.in)
					return
				}
				s.in <- msg
			}
		}()
		select {
		case <-s.quit:
			return rpc.Errorf(rpc.Unavailable, "mbatchd restarting")
		case <-ctx.Done():
			return nil
		}
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m.addr = ln.Addr().String()
	go m.srv.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		m.srv.Shutdown(ctx)
	})
	return m
}

func (m *fakeMbd) setWelcome(f func(*api.SbdHello) []*api.JobLaunch) {
	m.mu.Lock()
	m.welcome = f
	m.mu.Unlock()
}

// session waits for the next session sbatchd opens.
func (m *fakeMbd) session() *fakeSession {
	m.t.Helper()
	select {
	case s := <-m.sessions:
		return s
	case <-time.After(30 * time.Second):
		m.t.Fatal("no session from sbatchd within 30s")
	}
	return nil
}

func (s *fakeSession) send(m *api.MbdMessage) uint64 {
	s.t.Helper()
	s.seq++
	m.Seq = s.seq
	if err := s.st.Send(m); err != nil {
		s.t.Fatalf("sending to sbatchd: %v", err)
	}
	return m.Seq
}

// next returns sbatchd's next message (acks are also recorded).
func (s *fakeSession) next() *api.SbdMessage {
	s.t.Helper()
	select {
	case m, ok := <-s.in:
		if !ok {
			s.t.Fatal("sbatchd closed the session")
		}
		if m.Ack != nil {
			s.acks[m.Ack.Seq] = m.Ack
		}
		return m
	case <-time.After(30 * time.Second):
		s.t.Fatal("nothing from sbatchd within 30s")
	}
	return nil
}

// ack waits for sbatchd's ack of message seq.
func (s *fakeSession) ack(seq uint64) *api.Ack {
	s.t.Helper()
	for s.acks[seq] == nil {
		s.next()
	}
	return s.acks[seq]
}

// status waits for a report of job id satisfying cond.
func (s *fakeSession) status(id int64, what string, cond func(*api.JobStatusReport) bool) *api.JobStatusReport {
	s.t.Helper()
	for {
		m := s.next()
		if m.Status != nil && m.Status.JobID == id && cond(m.Status) {
			return m.Status
		}
	}
}

// report waits for a report of any job satisfying cond.
func (s *fakeSession) report(what string, cond func(*api.JobStatusReport) bool) *api.JobStatusReport {
	s.t.Helper()
	for {
		m := s.next()
		if m.Status != nil && cond(m.Status) {
			return m.Status
		}
	}
}

func (s *fakeSession) final(id int64) *api.JobStatusReport {
	s.t.Helper()
	return s.status(id, "final", func(r *api.JobStatusReport) bool { return r.Final })
}

func (s *fakeSession) launch(l *api.JobLaunch) *api.Ack {
	s.t.Helper()
	return s.ack(s.send(&api.MbdMessage{Launch: l}))
}

func (s *fakeSession) commit(r *api.JobStatusReport) {
	s.t.Helper()
	if err := s.st.Send(&api.MbdMessage{Ack: &api.Ack{Seq: r.Seq}}); err != nil {
		s.t.Fatal(err)
	}
}

// testDirs: a state directory and a submission directory every test user
// can use.
func testDirs(t *testing.T) (state, sub string) {
	t.Helper()
	root, err := os.MkdirTemp("", "sbd-test-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(root, 0o755)
	t.Cleanup(func() { os.RemoveAll(root) })
	state, sub = filepath.Join(root, "state"), filepath.Join(root, "sub")
	os.MkdirAll(sub, 0o777)
	os.Chmod(sub, 0o777)
	return state, sub
}

var hostSeq int

// uniqueHost gives each test its own host name, hence its own cgroups.
func uniqueHost(t *testing.T) string {
	hostSeq++
	return fmt.Sprintf("h%d-%d", os.Getpid(), hostSeq)
}

func cleanupCgroups(t *testing.T, cfg Config) {
	t.Cleanup(func() {
		h, err := cgroup.Detect()
		if err != nil {
			return
		}
		m := cgroup.New(h, cfg.CgroupParent())
		names, _ := m.List()
		for _, n := range names {
			g := m.Group(n)
			g.Kill()
			g.WaitEmpty(clock.Real(), 5*time.Second)
			g.Remove()
		}
		for _, mp := range append([]string{h.Unified}, mapValues(h.V1)...) {
			if mp == "" {
				continue
			}
			for p := filepath.Join(mp, cfg.CgroupParent()); strings.HasPrefix(p, filepath.Join(mp, "basalt")); p = filepath.Dir(p) {
				syscall.Rmdir(p)
			}
		}
	})
}

func mapValues(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// testLog writes log lines with t.Log.
type testLog struct{ t *testing.T }

func (w testLog) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

// inProcess runs a Daemon in the test process.
func inProcess(t *testing.T, cfg Config) *Daemon {
	t.Helper()
	cfg.Log = slog.New(logging.NewHandler(testLog{t}, &logging.HandlerOptions{Level: slog.LevelDebug, Name: "sbatchd"}))
	cleanupCgroups(t, cfg)
	d, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		d.Run(ctx)
		close(done)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		killJobs(cfg)
	})
	return d
}

// killJobs ends whatever jobs and shepherds a test left behind.
func killJobs(cfg Config) {
	keys, _ := newRoot(cfg).Keys()
	for _, k := range keys {
		c, err := shepherd.Dial(context.Background(), shepherd.SocketName(cfg.StateDir, k))
		if err != nil {
			continue
		}
		c.Send(&sbdwireCommandKill)
		for {
			if _, err := c.Recv(); err != nil {
				break
			}
		}
		c.Close()
	}
}

// sbatchdProc is sbatchd as a separate process, for SIGKILL tests.
type sbatchdProc struct {
	t   *testing.T
	cmd *exec.Cmd
	log *os.File
}

func startProc(t *testing.T, cfg Config) *sbatchdProc {
	t.Helper()
	logf, err := os.OpenFile(filepath.Join(filepath.Dir(cfg.StateDir), "sbatchd.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "run-sbatchd", "-state", cfg.StateDir, "-host", cfg.Host, "-master", masterAddr(cfg))
	if cfg.ShepherdPath != "" && cfg.ShepherdPath != os.Args[0] {
		cmd.Args = append(cmd.Args, "-shepherd", cfg.ShepherdPath)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &sbatchdProc{t: t, cmd: cmd, log: logf}
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			p.cmd.Process.Kill()
			p.cmd.Wait()
		}
		logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logf.Name())
			t.Logf("sbatchd log:\n%s", b)
		}
	})
	return p
}

func (p *sbatchdProc) kill() {
	p.cmd.Process.Signal(syscall.SIGKILL)
	p.cmd.Wait()
}

func netListen() (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") }

func clockAt(micros int64) clock.Clock { return clock.NewFake(time.UnixMicro(micros)) }

// waitFor polls cond: process and file system state changes without an
// event the test can wait on.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testutil.Eventually(t, 20*time.Second, what, cond)
}

func masterAddr(cfg Config) string {
	a, _ := cfg.Master.Master(context.Background())
	return a
}
