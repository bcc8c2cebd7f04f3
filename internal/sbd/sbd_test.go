package sbd

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/resreq"
	"github.com/basalt-lsf/basalt/internal/rpc"
	"github.com/basalt-lsf/basalt/internal/sbd/procfs"
	"github.com/basalt-lsf/basalt/internal/sbd/shepherd"
)

func jobLaunch(id int64, user, sub, cmd string) *api.JobLaunch {
	return &api.JobLaunch{
		JobID: id, User: user, RunCount: 1, Cluster: "testcl", JobName: fmt.Sprintf("job%d", id),
		Spec:      &api.JobSpec{Command: cmd, SubCwd: sub, Umask: 0o022, Env: []string{"PATH=/usr/bin:/bin"}},
		ExecHosts: []*api.ExecHost{{Host: "h", Slots: 1}},
		Queue:     &api.QueueExec{Name: "normal", Priority: 30},
	}
}

func TestLaunchToFinalAck(t *testing.T) {
	state, sub := testDirs(t)
	mbd := newFakeMbd(t)
	cfg := testConfig(state, uniqueHost(t), mbd.addr)
	inProcess(t, cfg)
	s := mbd.session()
	if s.hello.Host != cfg.Host || len(s.hello.Jobs) != 0 {
		t.Fatalf("hello %+v", s.hello)
	}
	ack := s.launch(jobLaunch(11, "root", sub, "echo hello > out; exit 3"))
	if ack.Status != nil || ack.PID <= 0 {
		t.Fatalf("launch ack %+v", ack)
	}
	fin := s.final(11)
	if fin.State != api.StateExit || syscall.WaitStatus(fin.ExitStatus).ExitStatus() != 3 || fin.ExecUser != "root" {
		t.Fatalf("final %+v", fin)
	}
	if b, _ := os.ReadFile(filepath.Join(sub, "out")); string(b) != "hello\n" {
		t.Errorf("job output %q", b)
	}
	dir := newRoot(cfg).Job("11")
	if _, err := os.Stat(string(dir)); err != nil {
		t.Fatalf("spool removed before the ack: %v", err)
	}
	s.commit(fin)
	waitFor(t, "spool removed after the ack", func() bool {
		_, err := os.Stat(string(dir))
		return os.IsNotExist(err)
	})
}

func TestLaunchIsNeverDoubled(t *testing.T) {
	state, sub := testDirs(t)
	mbd := newFakeMbd(t)
	cfg := testConfig(state, uniqueHost(t), mbd.addr)
	inProcess(t, cfg)
	s := mbd.session()
	l := jobLaunch(12, "root", sub, "echo run >> runs; sleep 300")
	a1 := s.launch(l)
	a2 := s.launch(l)
	if a1.PID != a2.PID || a2.Status != nil {
		t.Errorf("second launch: %+v, first %+v", a2, a1)
	}
	s.status(12, "RUN", func(r *api.JobStatusReport) bool { return r.State == api.StateRun && r.PID > 0 })
	waitFor(t, "the job's first line", func() bool {
		b, _ := os.ReadFile(filepath.Join(sub, "runs"))
		return len(b) > 0
	})
	seq := s.send(&api.MbdMessage{Signal: &api.JobSignal{JobID: 12, Action: api.ActTerminate}})
	if a := s.ack(seq); a.Status != nil {
		t.Errorf("kill ack %+v", a)
	}
	fin := s.final(12)
	if fin.TermReason != "TERM_OWNER" {
		t.Errorf("final %+v", fin)
	}
	if b, _ := os.ReadFile(filepath.Join(sub, "runs")); string(b) != "run\n" {
		t.Errorf("the job ran %q", b)
	}
}

func TestJobControlThroughSession(t *testing.T) {
	state, sub := testDirs(t)
	mbd := newFakeMbd(t)
	cfg := testConfig(state, uniqueHost(t), mbd.addr)
	inProcess(t, cfg)
	s := mbd.session()
	s.launch(jobLaunch(13, "root", sub, "sleep 300"))
	s.status(13, "RUN", func(r *api.JobStatusReport) bool { return r.State == api.StateRun })

	// bstop: USUSP.
	seq := s.send(&api.MbdMessage{Signal: &api.JobSignal{JobID: 13, Action: api.ActSuspend, SuspReasons: 0x2}})
	if a := s.ack(seq); a.Status != nil {
		t.Fatalf("bstop ack %+v", a)
	}
	st := s.status(13, "USUSP", func(r *api.JobStatusReport) bool { return r.State == api.StateUSusp })
	if st.SuspReasons != 0x2 {
		t.Errorf("reasons %#x", st.SuspReasons)
	}
	// bresume: SSUSP (waiting for the load check), then RUN.
	s.send(&api.MbdMessage{Signal: &api.JobSignal{JobID: 13, Action: api.ActResume}})
	s.status(13, "SSUSP", func(r *api.JobStatusReport) bool { return r.State == api.StateSSusp && r.SuspReasons == 0x1 })
	s.status(13, "RUN", func(r *api.JobStatusReport) bool { return r.State == api.StateRun })
	// Errors.
	if a := s.ack(s.send(&api.MbdMessage{Signal: &api.JobSignal{JobID: 999, Action: api.ActTerminate}})); a.Status == nil || a.Status.Code != LSBENoJob {
		t.Errorf("unknown job ack %+v", a)
	}
	// bkill -s USR1 with the owner's reason.
	s.send(&api.MbdMessage{Signal: &api.JobSignal{JobID: 13, Action: api.ActSignal, Signal: int32(syscall.SIGUSR1), TermReason: "TERM_OWNER"}})
	fin := s.final(13)
	if ws := syscall.WaitStatus(fin.ExitStatus); fin.TermReason != "TERM_OWNER" || !(ws.Signaled() && ws.Signal() == syscall.SIGUSR1 || ws.ExitStatus() == 128+int(syscall.SIGUSR1)) {
		t.Errorf("final %+v", fin)
	}
	if a := s.ack(s.send(&api.MbdMessage{Signal: &api.JobSignal{JobID: 13, Action: api.ActTerminate}})); a.Status == nil || a.Status.Code != LSBEJobFinish {
		t.Errorf("finished job ack %+v", a)
	}
	// brequeue of another job.
	s.launch(jobLaunch(14, "root", sub, "sleep 300"))
	s.status(14, "RUN", func(r *api.JobStatusReport) bool { return r.State == api.StateRun })
	s.send(&api.MbdMessage{Signal: &api.JobSignal{JobID: 14, Action: api.ActRequeue, TermReason: "TERM_REQUEUE_ADMIN"}})
	if fin := s.final(14); !fin.Requeue || fin.TermReason != "TERM_REQUEUE_ADMIN" {
		t.Errorf("requeued final %+v", fin)
	}
}

func TestBadUserIsRefused(t *testing.T) {
	state, sub := testDirs(t)
	mbd := newFakeMbd(t)
	inProcess(t, testConfig(state, uniqueHost(t), mbd.addr))
	s := mbd.session()
	a := s.launch(jobLaunch(15, "no-such-user-here", sub, "true"))
	if a.Status == nil || a.Status.Code != LSBEBadUser {
		t.Errorf("ack %+v, want LSBE_BAD_USER", a)
	}
}

// TestMbatchdRestart: the session breaks, jobs go on, sbatchd reconnects,
// its hello lists the running job and the final report of the one that
// ended meanwhile; nothing is lost or doubled.
func TestMbatchdRestart(t *testing.T) {
	state, sub := testDirs(t)
	mbd := newFakeMbd(t)
	cfg := testConfig(state, uniqueHost(t), mbd.addr)
	inProcess(t, cfg)
	s := mbd.session()
	s.launch(jobLaunch(21, "root", sub, "sleep 300"))
	s.launch(jobLaunch(22, "root", sub, "touch go-22-started; while [ ! -e end-22 ]; do sleep 0.05; done; exit 4"))
	s.status(21, "RUN", func(r *api.JobStatusReport) bool { return r.State == api.StateRun })
	s.status(22, "RUN", func(r *api.JobStatusReport) bool { return r.State == api.StateRun })
	s.end()
	os.WriteFile(filepath.Join(sub, "end-22"), nil, 0o644) // job 22 ends while mbatchd is away
	s2 := mbd.session()
	// Job 22 may end after the hello: wait for its final report anyway.
	var seen21, fin22 *api.JobStatusReport
	for _, r := range s2.hello.Jobs {
		switch r.JobID {
		case 21:
			seen21 = r
		case 22:
			if r.Final {
				fin22 = r
			}
		}
	}
	if seen21 == nil || seen21.State != api.StateRun || seen21.Final {
		t.Fatalf("hello %+v: want job 21 running", s2.hello.Jobs)
	}
	if fin22 == nil {
		fin22 = s2.final(22)
	}
	if syscall.WaitStatus(fin22.ExitStatus).ExitStatus() != 4 {
		t.Errorf("job 22 final %+v", fin22)
	}
	if seen21.Seq <= 0 {
		t.Errorf("seq %d", seen21.Seq)
	}
	s2.commit(fin22)
	s2.send(&api.MbdMessage{Signal: &api.JobSignal{JobID: 21, Action: api.ActTerminate}})
	s2.commit(s2.final(21))
}

// TestUnacknowledgedFinalIsResent: a final report mbatchd did not commit is
// in the next hello.
func TestUnacknowledgedFinalIsResent(t *testing.T) {
	state, sub := testDirs(t)
	mbd := newFakeMbd(t)
	inProcess(t, testConfig(state, uniqueHost(t), mbd.addr))
	s := mbd.session()
	s.launch(jobLaunch(23, "root", sub, "exit 0"))
	f1 := s.final(23)
	s.end()
	s2 := mbd.session()
	if len(s2.hello.Jobs) != 1 || !s2.hello.Jobs[0].Final || s2.hello.Jobs[0].Seq <= f1.Seq {
		t.Fatalf("hello %+v, want job 23's final again with a higher Seq", s2.hello.Jobs)
	}
	s2.commit(s2.hello.Jobs[0])
	s2.end()
	if s3 := mbd.session(); len(s3.hello.Jobs) != 0 {
		t.Errorf("hello after the ack %+v", s3.hello.Jobs)
	}
}

// TestSIGKILLReadoption kills sbatchd with SIGKILL while jobs run, ten
// times: each restarted sbatchd re-adopts the job, which ran exactly once,
// and reports its true final status, whether the job ended while sbatchd
// was down or after it came back.
func TestSIGKILLReadoption(t *testing.T) {
	state, sub := testDirs(t)
	mbd := newFakeMbd(t)
	cfg := testConfig(state, uniqueHost(t), mbd.addr)
	cleanupCgroups(t, cfg)
	t.Cleanup(func() { killJobs(cfg) })
	p := startProc(t, cfg)
	s := mbd.session()
	for i := 1; i <= 10; i++ {
		id := int64(100 + i)
		endFile := filepath.Join(sub, fmt.Sprintf("end-%d", id))
		cmd := fmt.Sprintf("echo %d >> runs-%d; while [ ! -e %s ]; do sleep 0.02; done; exit %d", i, id, endFile, i)
		s.launch(jobLaunch(id, "root", sub, cmd))
		s.status(id, "RUN", func(r *api.JobStatusReport) bool { return r.State == api.StateRun })
		p.kill()
		endWhileDown := i%2 == 0
		if endWhileDown {
			os.WriteFile(endFile, nil, 0o644)
			waitFor(t, "the job's end", func() bool {
				st, err := newRoot(cfg).Job(strconv.FormatInt(id, 10)).ReadState()
				return err == nil && st.Final
			})
		}
		p = startProc(t, cfg)
		s = mbd.session()
		var fin *api.JobStatusReport
		for _, r := range s.hello.Jobs {
			if r.JobID == id {
				if r.Final {
					fin = r
				} else if r.State != api.StateRun {
					t.Fatalf("round %d: hello reports %+v", i, r)
				}
			}
		}
		if endWhileDown && fin == nil {
			t.Fatalf("round %d: hello %+v lacks the final report", i, s.hello.Jobs)
		}
		if !endWhileDown {
			if fin != nil {
				t.Fatalf("round %d: job final before it was told to end", i)
			}
			os.WriteFile(endFile, nil, 0o644)
			fin = s.final(id)
		}
		if fin.State != api.StateExit || syscall.WaitStatus(fin.ExitStatus).ExitStatus() != i {
			t.Fatalf("round %d: final %+v, want EXIT %d", i, fin, i)
		}
		if b, _ := os.ReadFile(filepath.Join(sub, fmt.Sprintf("runs-%d", id))); string(b) != fmt.Sprintf("%d\n", i) {
			t.Fatalf("round %d: the job ran %q", i, b)
		}
		s.commit(fin)
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	p.cmd.Wait()
}

// TestStateLossReadoption: sbatchd loses its state directory while a job
// runs; the restarted daemon finds the job by its cgroup and shepherd,
// never starts it again, and reports lost the welcome's jobs that are
// nowhere.
func TestStateLossReadoption(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs cgroups (root)")
	}
	state, sub := testDirs(t)
	mbd := newFakeMbd(t)
	cfg := testConfig(state, uniqueHost(t), mbd.addr)
	cleanupCgroups(t, cfg)
	t.Cleanup(func() { killJobs(cfg) })
	p := startProc(t, cfg)
	s := mbd.session()
	l := jobLaunch(31, "root", sub, "echo run >> runs; while [ ! -e end ]; do sleep 0.02; done; exit 9")
	s.launch(l)
	s.status(31, "RUN", func(r *api.JobStatusReport) bool { return r.State == api.StateRun })
	// The job's shell has read its job file (which goes with the state).
	waitFor(t, "the job running", func() bool {
		b, _ := os.ReadFile(filepath.Join(sub, "runs"))
		return len(b) > 0
	})
	p.kill()
	// The state directory is lost (moved away, so that its shepherd log
	// can be shown if the test fails).
	log, _ := os.Open(filepath.Join(state, "jobs", "31", "shepherd.log"))
	if err := os.RemoveAll(filepath.Join(state, "jobs")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			b, _ := io.ReadAll(log)
			t.Logf("shepherd log:\n%s", b)
		}
		log.Close()
	})
	ghost := jobLaunch(32, "root", sub, "echo never >> ghost")
	mbd.setWelcome(func(h *api.SbdHello) []*api.JobLaunch {
		var out []*api.JobLaunch
		for _, want := range []*api.JobLaunch{l, ghost} {
			found := false
			for _, r := range h.Jobs {
				found = found || r.JobID == want.JobID
			}
			if !found {
				out = append(out, want)
			}
		}
		return out
	})
	p = startProc(t, cfg)
	s = mbd.session()
	in := false
	for _, r := range s.hello.Jobs {
		in = in || r.JobID == 31 && r.State == api.StateRun
	}
	if !in {
		t.Errorf("hello %+v: the job was not re-adopted from its cgroup", s.hello.Jobs)
	}
	gone := s.final(32)
	if gone.State != api.StateExit || gone.TermReason != "TERM_UNKNOWN" {
		t.Errorf("ghost job %+v, want lost", gone)
	}
	s.commit(gone)
	os.WriteFile(filepath.Join(sub, "end"), nil, 0o644)
	fin := s.final(31)
	if syscall.WaitStatus(fin.ExitStatus).ExitStatus() != 9 {
		t.Errorf("final %+v", fin)
	}
	if b, _ := os.ReadFile(filepath.Join(sub, "runs")); string(b) != "run\n" {
		t.Errorf("the job ran %q", b)
	}
	if _, err := os.Stat(filepath.Join(sub, "ghost")); err == nil {
		t.Error("the lost job was started")
	}
}

// TestUsageReports: usage goes to mbatchd at most every SBD_SLEEP_TIME.
func TestUsageReports(t *testing.T) {
	state, sub := testDirs(t)
	mbd := newFakeMbd(t)
	cfg := testConfig(state, uniqueHost(t), mbd.addr)
	cfg.SleepTime = 500 * time.Millisecond
	inProcess(t, cfg)
	s := mbd.session()
	s.launch(jobLaunch(41, "root", sub, "while :; do :; done"))
	s.status(41, "RUN", func(r *api.JobStatusReport) bool { return r.State == api.StateRun })
	var times []time.Time
	var last *api.JobStatusReport
	for len(times) < 3 {
		r := s.status(41, "usage", func(r *api.JobStatusReport) bool { return r.Usage != nil && r.Usage.CPUTime > 0 })
		times = append(times, time.Now())
		last = r
	}
	for i := 1; i < len(times); i++ {
		if gap := times[i].Sub(times[i-1]); gap < 400*time.Millisecond {
			t.Errorf("usage reports %v apart, want >= SBD_SLEEP_TIME", gap)
		}
	}
	if last.Usage.CPUTime <= 0 || last.Usage.MaxMem <= 0 || len(last.Usage.PIDs) == 0 {
		t.Errorf("usage %+v", last.Usage)
	}
	s.send(&api.MbdMessage{Signal: &api.JobSignal{JobID: 41, Action: api.ActTerminate}})
	s.final(41)
}

// fakeLoads is a LoadSource the test sets.
type fakeLoads struct {
	mu sync.Mutex
	v  map[string]float64
}

func (f *fakeLoads) set(v map[string]float64) {
	f.mu.Lock()
	f.v = v
	f.mu.Unlock()
}

func (f *fakeLoads) Load(context.Context) (*resreq.Host, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := resreq.BuiltinTable()
	h := &resreq.Host{Num: make([]float64, t.Len())}
	for i := range h.Num {
		h.Num[i] = math.NaN()
	}
	for k, v := range f.v {
		i, _ := t.Index(k)
		h.Num[i] = v
	}
	return h, nil
}

func TestLoadSuspensionAndRunWindow(t *testing.T) {
	state, sub := testDirs(t)
	mbd := newFakeMbd(t)
	cfg := testConfig(state, uniqueHost(t), mbd.addr)
	loads := &fakeLoads{v: map[string]float64{"r1m": 0.1, "it": 0}}
	cfg.Loads = loads
	inProcess(t, cfg)
	s := mbd.session()
	thr := []*api.Threshold{{Index: "r1m", Sched: 0.7, Stop: 2, HasSched: true, HasStop: true}}
	for _, id := range []int64{51, 52} {
		l := jobLaunch(id, "root", sub, "sleep 300")
		l.Queue.Thresholds = thr
		s.launch(l)
		s.status(id, "RUN", func(r *api.JobStatusReport) bool { return r.State == api.StateRun })
	}
	loads.set(map[string]float64{"r1m": 3, "it": 0})
	// One job per SBD_SLEEP_TIME: the later one first.
	r := s.report("a suspension", func(r *api.JobStatusReport) bool { return r.State == api.StateSSusp })
	if r.JobID != 52 || r.SuspReasons != 0x40 || r.SuspSubreason != int32(resreq.IdxR1m) {
		t.Errorf("first suspension %+v, want job 52 for r1m", r)
	}
	first := time.Now()
	s.status(51, "the second suspension", func(r *api.JobStatusReport) bool { return r.State == api.StateSSusp })
	if gap := time.Since(first); gap < 150*time.Millisecond {
		t.Errorf("second suspension %v after the first, want one per SBD_SLEEP_TIME", gap)
	}
	loads.set(map[string]float64{"r1m": 0.1, "it": 0})
	r = s.report("a resumption", func(r *api.JobStatusReport) bool { return r.State == api.StateRun })
	first = time.Now()
	other := int64(51 + 52 - r.JobID)
	s.status(other, "the other resumption", func(r *api.JobStatusReport) bool { return r.State == api.StateRun })
	if gap := time.Since(first); gap < 150*time.Millisecond {
		t.Errorf("second resumption %v after the first, want one per turn", gap)
	}
	for _, id := range []int64{51, 52} {
		s.send(&api.MbdMessage{Signal: &api.JobSignal{JobID: id, Action: api.ActTerminate}})
		s.final(id)
	}
}

func closedWindow() string {
	from := time.Now().Add(2 * time.Hour)
	to := from.Add(time.Hour)
	return fmt.Sprintf("%d:%02d-%d:%02d", from.Hour(), from.Minute(), to.Hour(), to.Minute())
}

func TestRunWindow(t *testing.T) {
	state, sub := testDirs(t)
	mbd := newFakeMbd(t)
	inProcess(t, testConfig(state, uniqueHost(t), mbd.addr))
	s := mbd.session()
	l := jobLaunch(61, "root", sub, "sleep 300")
	l.Queue.RunWindow = closedWindow()
	s.launch(l)
	r := s.status(61, "SSUSP", func(r *api.JobStatusReport) bool { return r.State == api.StateSSusp })
	if r.SuspReasons != 0x8 {
		t.Errorf("reasons %#x, want SUSP_QUEUE_WINDOW", r.SuspReasons)
	}
	l2 := jobLaunch(62, "root", sub, "sleep 300")
	l2.Queue.RunWindow, l2.Queue.TerminateWhen = closedWindow(), []string{"WINDOW"}
	s.launch(l2)
	if fin := s.final(62); fin.TermReason != "TERM_WINDOW" {
		t.Errorf("TERMINATE_WHEN WINDOW: %+v", fin)
	}
	l3 := jobLaunch(63, "root", sub, "exit 0")
	l3.Queue.RunWindow, l3.Forced = closedWindow(), true
	s.launch(l3)
	if fin := s.final(63); fin.State != api.StateDone {
		t.Errorf("brun -f job: %+v", fin)
	}
	s.send(&api.MbdMessage{Signal: &api.JobSignal{JobID: 61, Action: api.ActTerminate}})
	s.final(61)
}

func TestPeek(t *testing.T) {
	state, sub := testDirs(t)
	mbd := newFakeMbd(t)
	cfg := testConfig(state, uniqueHost(t), mbd.addr)
	d := inProcess(t, cfg)
	srv := rpc.NewServer(auth.Static{User: "root"})
	d.Register(srv)
	ln, err := netListen()
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	defer srv.Shutdown(context.Background())
	s := mbd.session()
	s.launch(jobLaunch(71, "root", sub, "echo line1; echo line2; sleep 300"))
	s.status(71, "RUN", func(r *api.JobStatusReport) bool { return r.State == api.StateRun })
	cl, err := rpc.Dial(context.Background(), ln.Addr().String(), &api.ConnHello{User: "root"})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	waitFor(t, "the job's output", func() bool {
		b, _ := os.ReadFile(newRoot(cfg).Job("71").User().Output())
		return strings.Contains(string(b), "line2")
	})
	st, err := cl.Stream(context.Background(), api.SBatchdPeek, &api.PeekRequest{JobID: 71})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for {
		var c api.PeekChunk
		if err := st.Recv(&c); err != nil {
			if err != io.EOF {
				t.Fatal(err)
			}
			break
		}
		out.Write(c.Stdout)
	}
	if out.String() != "line1\nline2\n" {
		t.Errorf("peek %q", out.String())
	}
	if err := cl.Call(context.Background(), api.SBatchdPeek, &api.PeekRequest{JobID: 999}, &api.PeekChunk{}); rpc.CodeOf(err) != rpc.NotFound {
		t.Errorf("peek of an unknown job: %v", err)
	}
	s.send(&api.MbdMessage{Signal: &api.JobSignal{JobID: 71, Action: api.ActTerminate}})
	s.final(71)
}

func TestSeqAlloc(t *testing.T) {
	dir := t.TempDir()
	clk := clockAt(1000)
	a, err := newSeqAlloc(dir, clk)
	if err != nil {
		t.Fatal(err)
	}
	first := a.Next()
	if first < 1000 {
		t.Errorf("first %d below the clock floor", first)
	}
	var last uint64
	for i := 0; i < seqReserve+10; i++ {
		n := a.Next()
		if n <= last {
			t.Fatalf("%d after %d", n, last)
		}
		last = n
	}
	// A restart (clock unchanged) continues above everything handed out.
	b, err := newSeqAlloc(dir, clk)
	if err != nil {
		t.Fatal(err)
	}
	if n := b.Next(); n <= last {
		t.Errorf("after restart %d <= %d", n, last)
	}
	// A lost state directory: the clock floor.
	c, _ := newSeqAlloc(t.TempDir(), clockAt(5_000_000))
	if n := c.Next(); n < 5_000_000 {
		t.Errorf("fresh allocator %d", n)
	}
}

func TestSignificant(t *testing.T) {
	base := &api.Usage{CPUTime: 10, Mem: 1000, Swap: 2000, PIDs: []int32{1, 2}}
	tests := []struct {
		name string
		old  *api.Usage
		cur  *api.Usage
		want bool
	}{
		{"first", nil, base, true},
		{"none", base, nil, false},
		{"same", base, &api.Usage{CPUTime: 10, Mem: 1000, Swap: 2000, PIDs: []int32{2, 1}}, false},
		{"cpu +5%", base, &api.Usage{CPUTime: 10.5, Mem: 1000, Swap: 2000, PIDs: []int32{1, 2}}, false},
		{"cpu +11%", base, &api.Usage{CPUTime: 11.1, Mem: 1000, Swap: 2000, PIDs: []int32{1, 2}}, true},
		{"mem -20%", base, &api.Usage{CPUTime: 10, Mem: 800, Swap: 2000, PIDs: []int32{1, 2}}, true},
		{"swap +10% exactly", base, &api.Usage{CPUTime: 10, Mem: 1000, Swap: 2200, PIDs: []int32{1, 2}}, false},
		{"new process", base, &api.Usage{CPUTime: 10, Mem: 1000, Swap: 2000, PIDs: []int32{1, 2, 3}}, true},
		{"process gone", base, &api.Usage{CPUTime: 10, Mem: 1000, Swap: 2000, PIDs: []int32{1}}, false},
	}
	for _, tt := range tests {
		if got := significant(tt.old, tt.cur); got != tt.want {
			t.Errorf("%s: significant = %v", tt.name, got)
		}
	}
}

// BenchmarkJobLifecycle measures one job at a time through sbatchd: launch
// (Ack), the shepherd host's run of the job file ("true", a shell builtin),
// final report and its acknowledgement, with cgroups. Besides the latency
// it reports the CPU time per job of this process (sbatchd and the fake
// mbatchd), of the shepherd host, and of the job processes (the host's
// children):
//
//	go test -run '^$' -bench JobLifecycle -benchtime 200x ./internal/sbd/
func BenchmarkJobLifecycle(b *testing.B) {
	state, sub := benchDirs(b)
	t := &testing.T{}
	mbd := newFakeMbd(t)
	cfg := testConfig(state, fmt.Sprintf("bench%d", os.Getpid()), mbd.addr)
	cfg.Log = nil // discarded
	d, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { d.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	s := mbd.session()
	s.t = t
	// The first job starts the shepherd host.
	host := int(s.launch(jobLaunch(999, "root", sub, "true")).PID)
	s.commit(s.final(999))
	self0, host0, kids0 := selfCPU(), procCPU(host, false), procCPU(host, true)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		id := int64(1000 + i)
		s.launch(jobLaunch(id, "root", sub, "true"))
		s.commit(s.final(id))
	}
	b.StopTimer()
	if t.Failed() {
		b.Fatal("session failed")
	}
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(b.N) }
	b.ReportMetric(per(selfCPU()-self0), "sbd-cpu-us/job")
	b.ReportMetric(per(procCPU(host, false)-host0), "host-cpu-us/job")
	b.ReportMetric(per(procCPU(host, true)-kids0), "jobprocs-cpu-us/job")
}

// selfCPU is this process's CPU time.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procCPU is process pid's CPU time, or that of its children it waited
// for.
func procCPU(pid int, children bool) time.Duration {
	st, err := procfs.FS{}.Stat(pid)
	if err != nil {
		return 0
	}
	if children {
		return time.Duration(st.CUTime+st.CSTime) * time.Second / procfs.TicksPerSecond
	}
	return time.Duration(st.UTime+st.STime) * time.Second / procfs.TicksPerSecond
}

func benchDirs(b *testing.B) (state, sub string) {
	root, err := os.MkdirTemp("", "sbd-bench-")
	if err != nil {
		b.Fatal(err)
	}
	os.Chmod(root, 0o755)
	b.Cleanup(func() { os.RemoveAll(root) })
	state, sub = filepath.Join(root, "state"), filepath.Join(root, "sub")
	os.MkdirAll(sub, 0o777)
	return state, sub
}

// TestPrivateStateDir: with a state directory other users cannot traverse
// (a cluster under /root), a job user's files go to a directory they can
// reach; the job runs as its user and reads them.
func TestPrivateStateDir(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	if _, err := lookupTestUser("basalt1"); err != nil {
		t.Skip(err)
	}
	_, sub := testDirs(t)
	private, err := os.MkdirTemp("", "sbd-private-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(private)
	os.Chmod(private, 0o700)
	state := filepath.Join(private, "state")
	mbd := newFakeMbd(t)
	cfg := testConfig(state, uniqueHost(t), mbd.addr)
	d := inProcess(t, cfg)
	if d.userRoot == "" || !strings.HasPrefix(d.userRoot, os.TempDir()) {
		t.Fatalf("user directories in %q", d.userRoot)
	}
	defer os.RemoveAll(d.userRoot)
	s := mbd.session()
	s.launch(jobLaunch(91, "basalt1", sub, `cat "$LSB_JOBFILENAME" "$LSB_DJOB_HOSTFILE" > /dev/null && id -un > who`))
	fin := s.final(91)
	if fin.State != api.StateDone {
		t.Fatalf("final %+v", fin)
	}
	if b, _ := os.ReadFile(filepath.Join(sub, "who")); strings.TrimSpace(string(b)) != "basalt1" {
		t.Errorf("job ran as %q", b)
	}
	s.commit(fin)
	waitFor(t, "the user directory removed after the ack", func() bool {
		_, err := os.Stat(filepath.Join(d.userRoot, "91"))
		return os.IsNotExist(err)
	})
}

func lookupTestUser(name string) (*shepherd.Account, error) { return shepherd.LookupAccount(name) }
