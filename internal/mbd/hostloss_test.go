package mbd

import (
	"bytes"
	"context"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/resreq"
	"github.com/basalt-lsf/basalt/internal/testutil"
)

// fastSbdCluster writes a cluster whose SBD_SLEEP_TIME is 1 s, so that a
// silent sbatchd is out of contact after 2 s.
func fastSbdCluster(t *testing.T, hosts, slots int) string {
	t.Helper()
	dir := writeCluster(t, hosts, slots)
	editBatchConf(t, dir, "lsb.params", func(b []byte) []byte {
		b = regexp.MustCompile(`(?m)^SBD_SLEEP_TIME\s*=.*$`).ReplaceAll(b, []byte("SBD_SLEEP_TIME = 1"))
		if !bytes.Contains(b, []byte("SBD_SLEEP_TIME = 1")) {
			b = bytes.Replace(b, []byte("End Parameters"), []byte("SBD_SLEEP_TIME = 1\nEnd Parameters"), 1)
		}
		return b
	})
	return dir
}

// TestHostLossUnknownAndBack: a job whose sbatchd goes silent becomes
// UNKWN, and RUN again when the sbatchd reports it; killed while its host is
// out of contact it is ZOMBI, mbatchd kills it when the host is back, and it
// ends EXIT.
func TestHostLossUnknownAndBack(t *testing.T) {
	m := startMbd(t, fastSbdCluster(t, 1, 2))
	sbd := connectSbd(t, m, "host1", nil)
	m.submit("alice", spec("sleep 100"))
	l := sbd.waitRunning(1)
	m.waitState(1, api.StateRun)

	sbd.c.Close()
	m.waitState(1, api.StateUnkwn)
	rc := l.RunCount
	sbd = connectSbd(t, m, "host1", []*api.JobStatusReport{{JobID: 1, State: api.StateRun, RunCount: rc, PID: 1001, Seq: 1}})
	m.waitState(1, api.StateRun)

	sbd.c.Close()
	m.waitState(1, api.StateUnkwn)
	c := m.client("alice")
	defer c.Close()
	var res api.ControlReply
	if err := c.Call(context.Background(), api.MBatchdControl, &api.ControlRequest{Op: api.OpKill, Jobs: []*api.JobRef{{JobID: 1}}}, &res); err != nil {
		t.Fatal(err)
	}
	if r := res.Results[0]; r.Status != nil && r.Status.Code != 0 {
		t.Fatalf("bkill of an UNKWN job: %+v", r.Status)
	}
	m.waitState(1, api.StateZombi)

	// The host comes back, still running the job: mbatchd terminates it.
	sbd = connectSbd(t, m, "host1", []*api.JobStatusReport{{JobID: 1, State: api.StateRun, RunCount: rc, PID: 1001, Seq: 2}})
	var sig *api.JobSignal
	testutil.Eventually(t, 10*time.Second, "mbatchd to terminate the ZOMBI job when its host came back", func() bool {
		sbd.mu.Lock()
		defer sbd.mu.Unlock()
		if len(sbd.signals) > 0 {
			sig = sbd.signals[0]
		}
		return sig != nil
	})
	if sig.JobID != 1 || sig.Action != api.ActTerminate || sig.TermReason != "TERM_OWNER" {
		t.Fatalf("signal to the returning host: %+v", sig)
	}
	if r := m.job(1); r.State != api.StateZombi {
		t.Fatalf("state before the host confirms: %v, want ZOMBI", r.State)
	}
	sbd.report(&api.JobStatusReport{JobID: 1, State: api.StateExit, ExitStatus: 9, TermReason: "TERM_OWNER", RunCount: rc, Final: true})
	if r := m.waitState(1, api.StateExit); r.TermReason != "TERM_OWNER" {
		t.Errorf("term reason %q, want TERM_OWNER", r.TermReason)
	}
}

// downLoad is a LIM whose hosts can be taken down.
type downLoad struct {
	mu   sync.Mutex
	down map[string]bool
}

func (d *downLoad) Load(_ context.Context, _ *resreq.Table) (map[string]*HostLoad, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := map[string]*HostLoad{}
	for _, h := range []string{"host1", "host2"} {
		st := "ok"
		if d.down[h] {
			st = "unavail"
		}
		out[h] = &HostLoad{Status: st}
	}
	return out, nil
}

// TestHostFailureRequeuesRerunnable: when the execution host itself fails
// (its LIM too), a rerunnable job runs again on another host and a
// non-rerunnable one stays UNKWN; the old run, if the host returns with it,
// is terminated.
func TestHostFailureRequeuesRerunnable(t *testing.T) {
	ld := &downLoad{down: map[string]bool{}}
	m := startMbdWith(t, fastSbdCluster(t, 2, 1), func(o *Options) { o.Load = ld })
	sbd1 := connectSbd(t, m, "host1", nil)
	rerun := spec("sleep 100")
	rerun.Rerunnable = true
	m.submit("alice", rerun)
	l := sbd1.waitRunning(1)
	m.waitState(1, api.StateRun)

	ld.mu.Lock()
	ld.down["host1"] = true
	ld.mu.Unlock()
	sbd1.c.Close()
	sbd2 := connectSbd(t, m, "host2", nil)
	l2 := sbd2.waitRunning(1)
	if l2.RunCount <= l.RunCount {
		t.Fatalf("second run count %d, first %d", l2.RunCount, l.RunCount)
	}
	r := m.waitState(1, api.StateRun)
	if len(r.ExecHosts) == 0 || r.ExecHosts[0].Host != "host2" {
		t.Fatalf("requeued job runs on %+v, want host2", r.ExecHosts)
	}

	// host1 comes back with the first run still alive: it is terminated.
	ld.mu.Lock()
	ld.down["host1"] = false
	ld.mu.Unlock()
	sbd1 = connectSbd(t, m, "host1", []*api.JobStatusReport{{JobID: 1, State: api.StateRun, RunCount: l.RunCount, PID: 77, Seq: 1}})
	testutil.Eventually(t, 10*time.Second, "the stale run on the returning host to be terminated", func() bool {
		sbd1.mu.Lock()
		defer sbd1.mu.Unlock()
		return len(sbd1.signals) > 0
	})
	if r := m.job(1); r.State != api.StateRun || r.ExecHosts[0].Host != "host2" {
		t.Fatalf("after the stale run's report: %v on %+v", r.State, r.ExecHosts)
	}
}
