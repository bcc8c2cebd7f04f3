package mbd

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/testutil"
)

// control sends one job control request as user and returns its result.
func (m *testMbd) control(user string, req *api.ControlRequest) *api.ControlResult {
	m.t.Helper()
	c := m.client(user)
	defer c.Close()
	var r api.ControlReply
	if err := c.Call(context.Background(), api.MBatchdControl, req, &r); err != nil {
		m.t.Fatal(err)
	}
	if len(r.Results) != 1 {
		m.t.Fatalf("control %+v: %d results", req, len(r.Results))
	}
	return r.Results[0]
}

// waitChkpntSignal waits until f has been asked for checkpoint request
// seq of job id, and returns the request.
func (f *fakeSbd) waitChkpntSignal(id, seq int64) *api.JobSignal {
	f.t.Helper()
	var sig *api.JobSignal
	if !testutil.Poll(20*time.Second, func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, s := range f.signals {
			if s.JobID == id && s.Action == api.ActChkpnt && s.ChkpntReq == seq {
				sig = s
				return true
			}
		}
		return false
	}) {
		f.t.Fatalf("%s: no checkpoint request %d for job %d", f.host, seq, id)
	}
	return sig
}

// lsbEvents stops m and returns its lsb.events.
func (m *testMbd) lsbEvents() string {
	m.t.Helper()
	p := filepath.Join(m.srv.logDir(m.srv.cfg.Current()), "lsb.events")
	m.stop()
	b, err := os.ReadFile(p)
	if err != nil {
		m.t.Fatal(err)
	}
	return string(b)
}

func chkpntSpecJob(cmd string) *api.JobSpec {
	s := spec(cmd)
	s.ChkpntDir = "/tmp/ck"
	return s
}

// TestChkpntKillAcrossMasterRestart: a bchkpnt -k is recorded when it is
// accepted; the master restarts while echkpnt runs; the new master sends
// the pending request again to sbatchd's new session (the shepherd ignores
// it: it had it), records the outcome when the job's report brings it
// (once, though two reports carry it) and the run's end the shepherd's
// kill made (TERM_CHKPNT) after it.
func TestChkpntKillAcrossMasterRestart(t *testing.T) {
	dir := writeCluster(t, 1, 2)
	m := startMbd(t, dir)
	sbd := connectSbd(t, m, "host1", nil)
	m.submit("alice", chkpntSpecJob("sleep 100"))
	l := sbd.waitRunning(1)
	m.waitState(1, api.StateRun)
	pid := sbd.lastPID()

	if r := m.control("alice", &api.ControlRequest{Op: api.OpChkpnt, ChkpntKill: true, Jobs: []*api.JobRef{{JobID: 1}}}); r.Status != nil && r.Status.Code != 0 {
		t.Fatalf("bchkpnt -k: %+v", r.Status)
	}
	sig := sbd.waitChkpntSignal(1, 1)
	if !sig.ChkpntKill || sig.ChkpntRequeue || sig.TermReason != "TERM_CHKPNT" {
		t.Fatalf("checkpoint request: %+v", sig)
	}
	// One checkpoint at a time, also for the next master.
	if r := m.control("alice", &api.ControlRequest{Op: api.OpChkpnt, Jobs: []*api.JobRef{{JobID: 1}}}); r.Status == nil || !strings.Contains(r.Status.Message, "already being checkpointed") {
		t.Fatalf("second bchkpnt while one is in progress: %+v", r.Status)
	}

	m.stop()
	sbd.c.Close()
	m = startMbd(t, dir)
	if r := m.control("alice", &api.ControlRequest{Op: api.OpChkpnt, Jobs: []*api.JobRef{{JobID: 1}}}); r.Status == nil || r.Status.Code == 0 {
		t.Fatalf("bchkpnt while the restarted master's request is pending: %+v", r.Status)
	}
	// sbatchd reconnects: echkpnt (PID 4242) still runs.
	run := &api.JobStatusReport{JobID: 1, State: api.StateRun, PID: pid, PGID: pid, RunCount: l.RunCount, ExecCwd: "/tmp",
		ExecUser: "alice", ChkpntReq: 1, ChkpntPhase: api.ChkpntInitiated, ChkpntPID: 4242}
	sbd = connectSbd(t, m, "host1", []*api.JobStatusReport{run})
	sbd.mu.Lock()
	sbd.running[1] = l
	sbd.mu.Unlock()
	if sig := sbd.waitChkpntSignal(1, 1); !sig.ChkpntKill {
		t.Fatalf("request sent again: %+v", sig)
	}
	// echkpnt succeeds, the shepherd kills the job: two reports that
	// both carry the outcome.
	ok := *run
	ok.ChkpntPhase = api.ChkpntSucceeded
	sbd.report(&ok)
	end := ok
	end.State, end.ExitStatus, end.TermReason, end.Final = api.StateExit, 9, "TERM_CHKPNT", true
	sbd.report(&end)
	if j := m.waitState(1, api.StateExit); j.TermReason != "TERM_CHKPNT" {
		t.Fatalf("job after the checkpoint: %+v", j)
	}

	ev := m.lsbEvents()
	if n := strings.Count(ev, `"JOB_SIGACT"`); n != 2 {
		t.Errorf("%d JOB_SIGACT records, want 2 (initiated, succeeded):\n%s", n, ev)
	}
	if n := strings.Count(ev, `"CHKPNT"`); n != 1+2 { // CHKPNT records, and the signal symbol of each JOB_SIGACT
		t.Errorf("%d CHKPNT strings, want 3:\n%s", n, ev)
	}
	ok1 := regexp.MustCompile(`(?m)^"JOB_SIGACT" "10\.1" \d+ 1 0 4242 4 0 1 3 "CHKPNT" 0$`).FindStringIndex(ev)
	ck := regexp.MustCompile(`(?m)^"CHKPNT" "10\.1" \d+ 1 0 4242 1 1 0$`).FindStringIndex(ev)
	st := strings.LastIndex(ev, `"JOB_STATUS"`)
	if ok1 == nil || ck == nil || st < ck[1] {
		t.Errorf("want the checkpoint's success (echkpnt PID 4242, -k) recorded before the run's end:\n%s", ev)
	}
}

// TestMigrationAcrossMasterRestart: bmig's checkpoint outcome and the
// requeue the shepherd made after it reach a master that never saw the
// bmig; the job still migrates (off the host it left).
func TestMigrationAcrossMasterRestart(t *testing.T) {
	dir := writeCluster(t, 2, 1)
	m := startMbd(t, dir)
	sbd := connectSbd(t, m, "host1", nil)
	m.submit("alice", chkpntSpecJob("sleep 100"))
	l := sbd.waitRunning(1)
	m.waitState(1, api.StateRun)
	pid := sbd.lastPID()
	if r := m.control("alice", &api.ControlRequest{Op: api.OpMigrate, Jobs: []*api.JobRef{{JobID: 1}}}); r.Status != nil && r.Status.Code != 0 {
		t.Fatalf("bmig: %+v", r.Status)
	}
	if sig := sbd.waitChkpntSignal(1, 1); !sig.ChkpntKill || !sig.ChkpntRequeue {
		t.Fatalf("migration's checkpoint request: %+v", sig)
	}
	m.stop()
	sbd.c.Close()
	m = startMbd(t, dir)
	// A second bmig meanwhile is refused and changes nothing.
	if r := m.control("alice", &api.ControlRequest{Op: api.OpMigrate, Hosts: []string{"host1"}, Jobs: []*api.JobRef{{JobID: 1}}}); r.Status == nil || r.Status.Code == 0 {
		t.Fatalf("second bmig while the first's checkpoint is in progress: %+v", r)
	}
	// The checkpoint succeeded and the run ended requeued while no master
	// listened: sbatchd's hello carries the final report.
	end := &api.JobStatusReport{JobID: 1, State: api.StatePend, Requeue: true, PID: pid, PGID: pid, RunCount: l.RunCount,
		ExitStatus: 9, TermReason: "TERM_CHKPNT", Final: true, ChkpntReq: 1, ChkpntPhase: api.ChkpntSucceeded, ChkpntPID: 4343}
	connectSbd(t, m, "host1", []*api.JobStatusReport{end})
	sbd2 := connectSbd(t, m, "host2", nil)
	sbd2.waitRunning(1)
	if j := m.waitState(1, api.StateRun); len(j.ExecHosts) == 0 || j.ExecHosts[0].Host != "host2" {
		t.Fatalf("migrated job: %+v", j.ExecHosts)
	}
	ev := m.lsbEvents()
	if !strings.Contains(ev, " 4343 ") || strings.Count(ev, `"JOB_SIGACT"`) != 2 {
		t.Errorf("migration checkpoint not recorded once:\n%s", ev)
	}
}

// TestChkpntRunEndsFirst: a run that ends without the outcome of its
// pending request fails the request.
func TestChkpntRunEndsFirst(t *testing.T) {
	dir := writeCluster(t, 1, 2)
	m := startMbd(t, dir)
	sbd := connectSbd(t, m, "host1", nil)
	m.submit("alice", chkpntSpecJob("sleep 100"))
	sbd.waitRunning(1)
	m.waitState(1, api.StateRun)
	m.control("alice", &api.ControlRequest{Op: api.OpChkpnt, Jobs: []*api.JobRef{{JobID: 1}}})
	sbd.waitChkpntSignal(1, 1)
	sbd.finish(1, 0)
	m.waitState(1, api.StateDone)
	ev := m.lsbEvents()
	if n := strings.Count(ev, `"JOB_SIGACT"`); n != 2 || !regexp.MustCompile(`(?m) 4 "CHKPNT" 0$`).MatchString(ev) ||
		!regexp.MustCompile(`(?m)^"CHKPNT" "10\.1" \d+ 1 0 0 0 `).MatchString(ev) {
		t.Errorf("failed checkpoint not recorded (JOB_SIGACT initiated and failed, CHKPNT not ok):\n%s", ev)
	}
}

// lastPID is the PID f gave the job it launched last.
func (f *fakeSbd) lastPID() int32 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pid
}

// TestBrestartCleanedJob: brestart of a job mbatchd no longer knows
// submits the submission the checkpoint saved, as the caller's own; without
// one it is refused, and a saved submission never restarts another user's
// job that mbatchd still knows.
func TestBrestartCleanedJob(t *testing.T) {
	m := startMbd(t, writeCluster(t, 1, 2))
	sbd := connectSbd(t, m, "host1", nil)
	saved := spec("./count.sh")
	saved.JobName = "counter"
	restart := func(user string, dir string, sub *api.JobSpec) *api.SubmitResult {
		s := &api.JobSpec{RestartDir: dir, AskedHosts: []string{"host1"}}
		if sub != nil {
			s.RestartSub = sub.AppendWire(nil)
		}
		return m.submit(user, s)[0]
	}
	if r := restart("alice", "/tmp/ck/7", nil); r.Status == nil || !strings.Contains(r.Status.Message, "No matching job") {
		t.Fatalf("brestart of an unknown job without a saved submission: %+v", r)
	}
	if r := m.submit("alice", &api.JobSpec{RestartDir: "/tmp/ck/7", RestartSub: []byte{0xff, 0xff}})[0]; r.Status == nil || !strings.Contains(r.Status.Message, "damaged") {
		t.Fatalf("brestart with a damaged saved submission: %+v", r)
	}
	r := restart("alice", "/tmp/ck/7", saved)
	if r.Status != nil && r.Status.Code != 0 {
		t.Fatalf("brestart of a cleaned job: %+v", r.Status)
	}
	l := sbd.waitRunning(r.JobID)
	if !strings.Contains(l.Spec.Command, "erestart") || !strings.Contains(l.Spec.Command, "/tmp/ck/7") ||
		!slices.Contains(l.Spec.Env, "LSB_ERESTART_USRCMD=./count.sh") || l.Spec.ChkpntDir != "/tmp/ck" || l.User != "alice" {
		t.Fatalf("restarted job's launch: user %s, command %q, chkpnt dir %q, env %q", l.User, l.Spec.Command, l.Spec.ChkpntDir, l.Spec.Env)
	}
	if j := m.job(r.JobID); j.User != "alice" || j.JobName != "counter" {
		t.Fatalf("restarted job: %+v", j)
	}
	// Job 1 is bob's, still known: alice's saved submission does not
	// restart it.
	b := m.submit("bob", chkpntSpecJob("sleep 100"))[0]
	if r := restart("alice", "/tmp/ck/"+strconv.FormatInt(b.JobID, 10), saved); r.Status == nil || r.Status.Message != "User permission denied" {
		t.Fatalf("alice restarting bob's job with a saved submission: %+v", r)
	}
}
