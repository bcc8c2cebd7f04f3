package mbd

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/config/defaults"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
	"github.com/basalt-lsf/basalt/internal/rpc"
	"github.com/basalt-lsf/basalt/internal/testutil"
)

// trustHello authenticates a connection as the user its hello names: tests
// act as several users without real accounts.
type trustHello struct{}

func (trustHello) Authenticate(_ context.Context, _ net.Conn, h *api.ConnHello) (auth.Identity, error) {
	if h.User == "root" {
		return auth.Identity{User: "root", UID: 0, Host: h.Host, Daemon: h.Daemon}, nil
	}
	f := fnv.New32a()
	f.Write([]byte(h.User))
	return auth.Identity{User: h.User, UID: 1000 + int(f.Sum32()%1000), Host: h.Host}, nil
}

type testMbd struct {
	t      testing.TB
	dir    string
	srv    *Server
	addr   string
	cancel context.CancelFunc
	done   chan error
}

func writeCluster(t testing.TB, hosts, slots int) string {
	t.Helper()
	dir := t.TempDir()
	if _, err := defaults.Write(dir, defaults.Options{Hosts: hosts, Slots: slots, Admin: "root"}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// editBatchConf rewrites the cluster's batch configuration file name
// (lsb.params, lsb.queues...; "" when it does not exist) with edit.
func editBatchConf(t testing.TB, dir, name string, edit func([]byte) []byte) {
	t.Helper()
	p := filepath.Join(dir, "conf", "lsbatch", defaults.DefaultCluster, "configdir", name)
	b, err := os.ReadFile(p)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, edit(b), 0o644); err != nil {
		t.Fatal(err)
	}
}

func startMbd(t testing.TB, dir string) *testMbd {
	t.Helper()
	return startMbdWith(t, dir, nil)
}

// startMbdWith starts mbatchd with options adjusted by opt (when not nil).
func startMbdWith(t testing.TB, dir string, opt func(*Options)) *testMbd {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if testing.Verbose() {
		log = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	o := Options{EnvDir: defaults.EnvDir(dir), Host: "host1", Log: log, Auth: trustHello{}, Listener: ln,
		DataDir: filepath.Join(dir, "raft")}
	if opt != nil {
		opt(&o)
	}
	srv, err := New(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	m := &testMbd{t: t, dir: dir, srv: srv, addr: ln.Addr().String(), cancel: cancel, done: make(chan error, 1)}
	go func() { m.done <- srv.Run(ctx) }()
	// Wait until it answers.
	if !testutil.Poll(20*time.Second, func() bool {
		select {
		case rerr := <-m.done:
			m.cancel = nil
			t.Fatalf("mbatchd ended before serving: %v", rerr)
		default:
		}
		// The listener accepts before mbatchd serves: a call may wait.
		cctx, ccancel := context.WithTimeout(context.Background(), time.Second)
		defer ccancel()
		c := m.client("root")
		defer c.Close()
		err = c.Call(cctx, api.MBatchdInfo, &api.InfoRequest{}, &api.InfoReply{})
		return err == nil
	}) {
		t.Fatalf("mbatchd did not start: %v", err)
	}
	t.Cleanup(m.stop)
	return m
}

func (m *testMbd) stop() {
	if m.cancel == nil {
		return
	}
	m.cancel()
	m.cancel = nil
	select {
	case err := <-m.done:
		if err != nil {
			m.t.Errorf("mbatchd: %v", err)
		}
	case <-time.After(20 * time.Second):
		m.t.Error("mbatchd did not stop")
	}
}

func (m *testMbd) client(user string) *rpc.Client {
	c, err := rpc.Dial(context.Background(), m.addr, &api.ConnHello{User: user, Host: "host1"})
	if err != nil {
		m.t.Fatal(err)
	}
	return c
}

// sbdClient connects as the sbatchd of host.
func (m *testMbd) sbdClient(host string) *rpc.Client {
	c, err := rpc.Dial(context.Background(), m.addr, &api.ConnHello{User: "root", Host: host, Daemon: "sbatchd"})
	if err != nil {
		m.t.Fatal(err)
	}
	return c
}

func (m *testMbd) submit(user string, specs ...*api.JobSpec) []*api.SubmitResult {
	m.t.Helper()
	c := m.client(user)
	defer c.Close()
	var reply api.SubmitReply
	if err := c.Call(context.Background(), api.MBatchdSubmit, &api.SubmitRequest{Jobs: specs}, &reply); err != nil {
		m.t.Fatal(err)
	}
	return reply.Results
}

func (m *testMbd) jobs(user string, req *api.JobsRequest) *api.JobsReply {
	m.t.Helper()
	c := m.client(user)
	defer c.Close()
	st, err := c.Stream(context.Background(), api.MBatchdJobs, req)
	if err != nil {
		m.t.Fatal(err)
	}
	all := &api.JobsReply{}
	for {
		var r api.JobsReply
		err := st.Recv(&r)
		if err == io.EOF {
			return all
		}
		if err != nil {
			m.t.Fatal(err)
		}
		all.Jobs = append(all.Jobs, r.Jobs...)
		all.NotFound = append(all.NotFound, r.NotFound...)
	}
}

func (m *testMbd) job(id int64) *api.JobRecord {
	r := m.jobs("root", &api.JobsRequest{Jobs: []*api.JobRef{{JobID: id}}})
	if len(r.Jobs) == 0 {
		return nil
	}
	return r.Jobs[0]
}

// waitState waits until job id reaches state st.
func (m *testMbd) waitState(id int64, st api.JobState) *api.JobRecord {
	m.t.Helper()
	var j *api.JobRecord
	if !testutil.Poll(20*time.Second, func() bool { j = m.job(id); return j != nil && j.State == st }) {
		m.t.Fatalf("job %d: state %v, want %v", id, stateOf(j), st)
	}
	return j
}

// fakeSbd speaks the sbatchd session protocol; each launched job runs until
// finish is called.
type fakeSbd struct {
	t       *testing.T
	host    string
	st      *rpc.ClientStream
	c       *rpc.Client
	mu      sync.Mutex
	running map[int64]*api.JobLaunch
	signals []*api.JobSignal
	welcome *api.SbdWelcome
	seq     uint64
	pid     int32
}

func connectSbd(t *testing.T, m *testMbd, host string, hello []*api.JobStatusReport) *fakeSbd {
	t.Helper()
	f := &fakeSbd{t: t, host: host, c: m.sbdClient(host), running: map[int64]*api.JobLaunch{}, pid: 1000}
	st, err := f.c.Bidi(context.Background(), api.MBatchdSbdSession, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.st = st
	if err := st.Send(&api.SbdMessage{Hello: &api.SbdHello{Host: host, Jobs: hello}}); err != nil {
		t.Fatal(err)
	}
	var w api.MbdMessage
	for {
		// Final reports of the hello may be acknowledged before the welcome.
		w = api.MbdMessage{}
		if err := st.Recv(&w); err != nil || w.Welcome == nil && w.Ack == nil {
			t.Fatalf("no welcome: %v %+v", err, w)
		}
		if w.Welcome != nil {
			break
		}
	}
	f.welcome = w.Welcome
	go f.loop()
	t.Cleanup(func() { f.c.Close() })
	return f
}

func (f *fakeSbd) loop() {
	for {
		var m api.MbdMessage
		if err := f.st.Recv(&m); err != nil {
			return
		}
		switch {
		case m.Launch != nil:
			f.mu.Lock()
			f.pid++
			pid := f.pid
			f.running[m.Launch.JobID] = m.Launch
			f.mu.Unlock()
			f.st.Send(&api.SbdMessage{Ack: &api.Ack{Seq: m.Seq, PID: pid}})
			f.report(&api.JobStatusReport{JobID: m.Launch.JobID, Index: m.Launch.Index, State: api.StateRun, PID: pid, PGID: pid,
				RunCount: m.Launch.RunCount, ExecCwd: "/tmp", ExecUser: m.Launch.User})
		case m.Signal != nil:
			f.mu.Lock()
			f.signals = append(f.signals, m.Signal)
			l := f.running[m.Signal.JobID]
			f.mu.Unlock()
			f.st.Send(&api.SbdMessage{Ack: &api.Ack{Seq: m.Seq}})
			if l != nil && (m.Signal.Action == api.ActTerminate || m.Signal.Action == api.ActRequeue) {
				r := &api.JobStatusReport{JobID: l.JobID, Index: l.Index, State: api.StateExit, ExitStatus: 9,
					TermReason: m.Signal.TermReason, RunCount: l.RunCount, Final: true}
				if m.Signal.Action == api.ActRequeue {
					r.State, r.Requeue = api.StatePend, true
				}
				f.report(r)
			}
			if l != nil && m.Signal.Action == api.ActSuspend {
				f.report(&api.JobStatusReport{JobID: l.JobID, Index: l.Index, State: api.StateUSusp, SuspReasons: m.Signal.SuspReasons, RunCount: l.RunCount})
			}
		}
	}
}

func (f *fakeSbd) report(r *api.JobStatusReport) {
	f.mu.Lock()
	f.seq++
	r.Seq = f.seq
	f.mu.Unlock()
	if err := f.st.Send(&api.SbdMessage{Status: r}); err != nil {
		f.t.Logf("fake sbd send: %v", err)
	}
}

// finish reports job id finished with exit code code.
func (f *fakeSbd) finish(id int64, code int) {
	f.mu.Lock()
	l := f.running[id]
	delete(f.running, id)
	f.mu.Unlock()
	if l == nil {
		f.t.Fatalf("job %d is not running on %s", id, f.host)
	}
	st := api.StateDone
	if code != 0 {
		st = api.StateExit
	}
	f.report(&api.JobStatusReport{JobID: id, Index: l.Index, State: st, ExitStatus: int32(code << 8), RunCount: l.RunCount, Final: true,
		Usage: &api.Usage{CPUTime: 0.5}})
}

func (f *fakeSbd) waitRunning(id int64) *api.JobLaunch {
	f.t.Helper()
	var l *api.JobLaunch
	if !testutil.Poll(20*time.Second, func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		l = f.running[id]
		return l != nil
	}) {
		f.t.Fatalf("job %d never launched on %s", id, f.host)
	}
	return l
}

func spec(cmd string) *api.JobSpec {
	return &api.JobSpec{Command: cmd, FromHost: "host1", SubCwd: "/tmp", Env: []string{"PATH=/bin"}}
}

func TestSubmitRunFinish(t *testing.T) {
	m := startMbd(t, writeCluster(t, 2, 2))
	sbd := connectSbd(t, m, "host1", nil)
	res := m.submit("alice", spec("sleep 1"))
	if res[0].Status != nil && res[0].Status.Code != 0 || res[0].JobID != 1 || res[0].Queue != "normal" || !res[0].DefaultQueue {
		t.Fatalf("submit result: %+v", res[0])
	}
	l := sbd.waitRunning(1)
	if l.User != "alice" || l.Queue.Name != "normal" || len(l.ExecHosts) != 1 || l.ExecHosts[0].Host != "host1" || l.Spec.Env[0] != "PATH=/bin" {
		t.Fatalf("launch: %+v", l)
	}
	m.waitState(1, api.StateRun)
	// The RUN report with the PID arrives right after the launch.
	testutil.Eventually(t, 10*time.Second, "the running report", func() bool { return m.job(1).JobPID != 0 })
	j := m.job(1)
	sbd.finish(1, 0)
	j = m.waitState(1, api.StateDone)
	if j.EndTime == 0 || j.Usage == nil || j.Usage.CPUTime != 0.5 {
		t.Fatalf("finished record: %+v", j)
	}
	// bjobs without -a hides it; with its ID or -a it shows.
	if r := m.jobs("alice", &api.JobsRequest{}); len(r.Jobs) != 0 {
		t.Fatalf("unfinished jobs listed: %d", len(r.Jobs))
	}
	if r := m.jobs("alice", &api.JobsRequest{IncludeFinished: true}); len(r.Jobs) != 1 {
		t.Fatalf("bjobs -a: %d jobs", len(r.Jobs))
	}
	if r := m.jobs("alice", &api.JobsRequest{Jobs: []*api.JobRef{{JobID: 99}}}); len(r.NotFound) != 1 {
		t.Fatalf("unknown job not reported: %+v", r)
	}
	// The committed events are in LSF's files, and bhist/bacct read them.
	// The files are written after the state changes (the FSM applies,
	// then renders): wait for the entries to reach them.
	logdir := filepath.Join(m.dir, "work", "basalt", "logdir")
	var events, acct []byte
	recs := []string{`"MBD_START" "10.1"`, `"JOB_NEW" "10.1"`, `"JOB_START" "10.1"`, `"JOB_STATUS" "10.1"`}
	written := func() bool {
		events, _ = os.ReadFile(filepath.Join(logdir, "lsb.events"))
		acct, _ = os.ReadFile(filepath.Join(logdir, "lsb.acct"))
		for _, rec := range recs {
			if !strings.Contains(string(events), rec) {
				return false
			}
		}
		return strings.HasPrefix(string(acct), `"JOB_FINISH" "10.1"`)
	}
	for start := time.Now(); !written() && time.Since(start) < 10*time.Second; {
		time.Sleep(20 * time.Millisecond) // waiting on mbatchd's writer
	}
	for _, rec := range recs {
		if !strings.Contains(string(events), rec) {
			t.Errorf("lsb.events has no %s record:\n%s", rec, events)
		}
	}
	if !strings.HasPrefix(string(acct), `"JOB_FINISH" "10.1"`) {
		t.Errorf("lsb.acct: %q", acct)
	}
	c := m.client("alice")
	defer c.Close()
	st, err := c.Stream(context.Background(), api.MBatchdHistory, &api.JobsRequest{Jobs: []*api.JobRef{{JobID: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	var h api.HistoryReply
	if err := st.Recv(&h); err != nil || len(h.Jobs) != 1 || len(h.Jobs[0].Events) < 3 {
		t.Fatalf("bhist: %v %+v", err, h)
	}
	st, err = c.Stream(context.Background(), api.MBatchdAcct, &api.JobsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var a api.JobsReply
	if err := st.Recv(&a); err != nil || len(a.Jobs) != 1 || a.Jobs[0].JobID != 1 || a.Jobs[0].State != api.StateDone {
		t.Fatalf("bacct: %v %+v", err, a)
	}
}

func TestSubmitErrors(t *testing.T) {
	m := startMbd(t, writeCluster(t, 2, 2))
	s := func(mod func(*api.JobSpec)) *api.JobSpec { x := spec("true"); mod(x); return x }
	res := m.submit("alice",
		s(func(x *api.JobSpec) { x.Queues = []string{"nosuch"} }),
		s(func(x *api.JobSpec) { x.ResReq = []string{"select[[["} }),
		s(func(x *api.JobSpec) { x.Dependency = "done(" }),
		s(func(x *api.JobSpec) { x.Dependency = "done(4242)" }),
		s(func(x *api.JobSpec) { x.AskedHosts = []string{"nohost"} }),
		s(func(x *api.JobSpec) { x.JobName = "arr[1-2000]" }),
		s(func(x *api.JobSpec) { x.Command = "" }),
		s(func(x *api.JobSpec) { x.Queues = []string{"priority"} }),
	)
	want := []string{
		"nosuch: No such queue",
		"Bad resource requirement syntax",
		"Dependency condition syntax error",
		"4242: No matching job found",
		"nohost: Bad host name, host group name or cluster name",
		"Job array index too large",
		"Empty job",
		"",
	}
	for i, w := range want {
		got := ""
		if res[i].Status != nil {
			got = res[i].Status.Message
		}
		if got != w {
			t.Errorf("case %d: %q, want %q", i, got, w)
		}
	}
	if res[7].Queue != "priority" || res[7].DefaultQueue || res[7].JobID == 0 {
		t.Errorf("explicit queue: %+v", res[7])
	}
}

func TestControlAndPermissions(t *testing.T) {
	m := startMbd(t, writeCluster(t, 1, 1))
	sbd := connectSbd(t, m, "host1", nil)
	m.submit("alice", spec("sleep 100"), spec("sleep 100"))
	sbd.waitRunning(1)
	m.waitState(1, api.StateRun)
	control := func(user string, req *api.ControlRequest) *api.ControlReply {
		c := m.client(user)
		defer c.Close()
		var r api.ControlReply
		if err := c.Call(context.Background(), api.MBatchdControl, req, &r); err != nil {
			t.Fatal(err)
		}
		return &r
	}
	// Bob may not kill alice's job.
	r := control("bob", &api.ControlRequest{Op: api.OpKill, Jobs: []*api.JobRef{{JobID: 1}}})
	if r.Results[0].Status == nil || r.Results[0].Status.Message != "User permission denied" {
		t.Fatalf("bob killing alice's job: %+v", r.Results[0])
	}
	// Alice stops the running job (sbatchd suspends it) and kills the pending one.
	r = control("alice", &api.ControlRequest{Op: api.OpStop, Jobs: []*api.JobRef{{JobID: 1}}})
	if r.Results[0].Status != nil && r.Results[0].Status.Code != 0 {
		t.Fatalf("bstop: %+v", r.Results[0].Status)
	}
	m.waitState(1, api.StateUSusp)
	r = control("alice", &api.ControlRequest{Op: api.OpKill, Jobs: []*api.JobRef{{JobID: 2}}})
	j := m.waitState(2, api.StateExit)
	if j.TermReason != "TERM_OWNER" {
		t.Fatalf("killed pending job: %+v", j)
	}
	// root (an administrator) kills alice's running job: TERM_ADMIN.
	control("root", &api.ControlRequest{Op: api.OpKill, Jobs: []*api.JobRef{{JobID: 1}}})
	j = m.waitState(1, api.StateExit)
	if j.TermReason != "TERM_ADMIN" {
		t.Fatalf("admin kill reason %q", j.TermReason)
	}
	// Killing a finished job.
	r = control("alice", &api.ControlRequest{Op: api.OpKill, Jobs: []*api.JobRef{{JobID: 1}}})
	if r.Results[0].Status.Message != "Job has already finished" {
		t.Fatalf("kill finished: %+v", r.Results[0].Status)
	}
	// No job matches.
	r = control("carol", &api.ControlRequest{Op: api.OpKill, AllJobs: true})
	if r.Status == nil || r.Status.Message != "No matching job found" {
		t.Fatalf("bkill 0 with no jobs: %+v", r)
	}
}

func TestRestartKeepsJobsAndIDs(t *testing.T) {
	dir := writeCluster(t, 1, 1)
	m := startMbd(t, dir)
	for i := 0; i < 5; i++ {
		m.submit("alice", spec(fmt.Sprintf("echo %d", i)))
	}
	m.stop()
	m2 := startMbd(t, dir)
	r := m2.jobs("alice", &api.JobsRequest{})
	if len(r.Jobs) != 5 {
		t.Fatalf("%d jobs after restart, want 5", len(r.Jobs))
	}
	res := m2.submit("alice", spec("echo again"))
	if res[0].JobID != 6 {
		t.Fatalf("job ID after restart = %d, want 6", res[0].JobID)
	}
}

func TestSbdReconnectAndWelcome(t *testing.T) {
	m := startMbd(t, writeCluster(t, 1, 2))
	sbd := connectSbd(t, m, "host1", nil)
	m.submit("alice", spec("sleep 100"))
	sbd.waitRunning(1)
	m.waitState(1, api.StateRun)
	// sbatchd restarts and has lost its records: mbatchd tells it which jobs
	// it should hold.
	sbd.c.Close()
	sbd2 := connectSbd(t, m, "host1", nil)
	if len(sbd2.welcome.Jobs) != 1 || sbd2.welcome.Jobs[0].JobID != 1 {
		t.Fatalf("welcome: %+v", sbd2.welcome)
	}
	// It reports the job finished while it was away.
	sbd2.report(&api.JobStatusReport{JobID: 1, State: api.StateDone, RunCount: 1, Final: true})
	m.waitState(1, api.StateDone)
}

func stateOf(r *api.JobRecord) api.JobState {
	if r == nil {
		return 0
	}
	return r.State
}

// TestReportBatch sends a burst of reports in one batch (the reports of an
// sbatchd's hello are recorded together): each state change is recorded
// against the ones before it in the batch, not only against the state
// before the batch.
func TestReportBatch(t *testing.T) {
	m := startMbd(t, writeCluster(t, 1, 2))
	sbd := connectSbd(t, m, "host1", nil)
	m.submit("alice", spec("sleep 100"))
	l := sbd.waitRunning(1)
	m.waitState(1, api.StateRun)
	// The fake sbatchd's running report (JOB_EXECUTE) is in before it goes.
	testutil.Eventually(t, 10*time.Second, "the running report", func() bool { return m.job(1).JobPID != 0 })
	sbd.c.Close()
	rc := l.RunCount
	connectSbd(t, m, "host1", []*api.JobStatusReport{
		{JobID: 1, State: api.StateSSusp, SuspReasons: 0x40, RunCount: rc, Seq: 1},
		{JobID: 1, State: api.StateRun, RunCount: rc, Seq: 2},
		{JobID: 1, State: api.StateSSusp, SuspReasons: 0x40, RunCount: rc, Seq: 3},
		{JobID: 1, State: api.StateRun, RunCount: rc, Seq: 4},
		{JobID: 1, State: api.StateDone, RunCount: rc, Final: true, Seq: 5, Usage: &api.Usage{CPUTime: 2}},
		{JobID: 1, State: api.StateDone, RunCount: rc, Final: true, Seq: 6}, // repeated
	})
	m.waitState(1, api.StateDone)
	c := m.client("alice")
	defer c.Close()
	st, err := c.Stream(context.Background(), api.MBatchdHistory, &api.JobsRequest{Jobs: []*api.JobRef{{JobID: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for {
		var r api.HistoryReply
		if err := st.Recv(&r); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		for _, h := range r.Jobs {
			for _, e := range h.Events {
				kinds = append(kinds, fmt.Sprintf("%s:%d", e.Kind, e.State))
			}
		}
	}
	got := strings.Join(kinds, " ")
	want := fmt.Sprintf("JOB_NEW:1 JOB_START:4 JOB_START_ACCEPT:0 JOB_EXECUTE:0 JOB_STATUS:%d JOB_STATUS:%d JOB_STATUS:%d JOB_STATUS:%d JOB_STATUS:%d",
		api.StateSSusp, api.StateRun, api.StateSSusp, api.StateRun, api.StateDone)
	if got != want {
		t.Errorf("history:\n got %s\nwant %s", got, want)
	}
	if r := m.job(1); r.Usage == nil || r.Usage.CPUTime != 2 {
		t.Errorf("usage after the batch: %+v", r.Usage)
	}
}

// TestControlOfJobDispatchedMeanwhile: a request resolves its targets
// together (bkill of an array), so a job seen pending may have been
// dispatched before its turn. The pending job's action then changes
// nothing in the state; the running job's path must be taken, or the job
// is never killed or stopped (seen with bkill of a running array whose
// freed slots started its next elements).
func TestControlOfJobDispatchedMeanwhile(t *testing.T) {
	for name, op := range map[string]api.ControlOp{"bkill": api.OpKill, "bstop": api.OpStop} {
		t.Run(name, func(t *testing.T) {
			m := startMbd(t, writeCluster(t, 1, 1))
			sbd := connectSbd(t, m, "host1", nil)
			m.submit("alice", spec("sleep 100"))
			sbd.waitRunning(1)
			m.waitState(1, api.StateRun)
			// The target as the request saw it, before the dispatch.
			stale := target{key: state.Key{ID: 1}, state: api.StatePend, queue: "normal", user: "alice"}
			id := auth.Identity{User: "alice", UID: 1001}
			req := &api.ControlRequest{Op: op, Jobs: []*api.JobRef{{JobID: 1}}}
			res := &api.ControlResult{Job: &api.JobRef{JobID: 1}}
			if err := m.srv.controlOne(context.Background(), m.srv.cfg.Current(), id, req, stale, res); err != nil {
				t.Fatal(err)
			}
			want := api.StateExit
			if op == api.OpStop {
				want = api.StateUSusp
			}
			m.waitState(1, want)
		})
	}
}
