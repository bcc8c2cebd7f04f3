package cluster_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/cli"
	"github.com/basalt-lsf/basalt/internal/cluster"
	"github.com/basalt-lsf/basalt/internal/mc"
	"github.com/basalt-lsf/basalt/internal/rpc"
	"github.com/basalt-lsf/basalt/internal/testutil"
)

// mcPair starts two clusters that know each other: a (sendHosts hosts of
// one slot, queue "send" forwarding to b's "recv") and b (one host of
// recvSlots slots, queue "recv" receiving from a). MBD_SLEEP_TIME is 2 s
// and MAX_RSCHED_TIME 2: a job pending remotely comes back after 4 s.
func mcPair(tb testing.TB, recvSlots int) (a, b *cluster.Cluster) {
	tb.Helper()
	n := os.Getpid() % 100000
	oa := cluster.Options{Dir: tb.TempDir(), Hosts: 1, Slots: 1, Cluster: fmt.Sprintf("mca%d", n)}
	ob := cluster.Options{Dir: tb.TempDir(), Hosts: 1, Slots: recvSlots, Cluster: fmt.Sprintf("mcb%d", n)}
	if err := cluster.PairOptions(&oa, &ob); err != nil {
		tb.Fatal(err)
	}
	params := "Begin Parameters\nDEFAULT_QUEUE = normal\nMBD_SLEEP_TIME = 2\nSBD_SLEEP_TIME = 2\nJOB_ACCEPT_INTERVAL = 0\nEnd Parameters\n"
	oa.Files = map[string][]byte{"lsb.params": []byte(params), "lsb.queues": []byte(
		"Begin Queue\nQUEUE_NAME = normal\nEnd Queue\n" +
			"Begin Queue\nQUEUE_NAME = send\nPRIORITY = 40\nSNDJOBS_TO = recv@" + ob.Cluster + "\nMAX_RSCHED_TIME = 2\nEnd Queue\n")}
	ob.Files = map[string][]byte{"lsb.params": []byte(params), "lsb.queues": []byte(
		"Begin Queue\nQUEUE_NAME = normal\nEnd Queue\n" +
			"Begin Queue\nQUEUE_NAME = recv\nRCVJOBS_FROM = " + oa.Cluster + "\nEnd Queue\n")}
	has := func(n string) bool { _, ok := cli.Lookup(n); return ok }
	oa.Has, ob.Has = has, has
	var err error
	if a, err = cluster.Up(context.Background(), oa); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { a.Down(context.Background()) })
	if b, err = cluster.Up(context.Background(), ob); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { b.Down(context.Background()) })
	tb.Cleanup(func() {
		if !tb.Failed() {
			return
		}
		for _, c := range []*cluster.Cluster{a, b} {
			logs, _ := filepath.Glob(filepath.Join(c.Opts.Dir, "log", "mbatchd.log.*"))
			for _, l := range logs {
				data, _ := os.ReadFile(l)
				tb.Logf("%s:\n%s", l, data)
			}
			accts, _ := filepath.Glob(filepath.Join(c.Opts.Dir, "*", "*", "logdir", "lsb.acct"))
			for _, l := range accts {
				data, _ := os.ReadFile(l)
				tb.Logf("%s:\n%s", l, data)
			}
			tb.Logf("bjobs -a of %s:\n%s", c.Opts.Cluster, lsf(tb, c, "bjobs", "-a", "-u", "all", "-o", "jobid stat queue fwd_cluster dstjobid srcjobid pend_reason"))
		}
	})
	return a, b
}

// lsf runs a command of the test binary against cluster c and returns its
// output (stdout and stderr).
func lsf(tb testing.TB, c *cluster.Cluster, name string, args ...string) string {
	tb.Helper()
	exe, _ := os.Executable()
	cmd := exec.Command(exe, args...)
	cmd.Args[0] = name
	cmd.Env = append(os.Environ(), "LSF_ENVDIR="+c.EnvDir, "BASALT_HOST=host1")
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// field returns a job's -o field (one field, no header).
func field(tb testing.TB, c *cluster.Cluster, id, f string) string {
	tb.Helper()
	return strings.TrimSpace(lsf(tb, c, "bjobs", "-noheader", "-o", f, id))
}

func bsubID(tb testing.TB, c *cluster.Cluster, args ...string) string {
	tb.Helper()
	out := lsf(tb, c, "bsub", args...)
	i, j := strings.Index(out, "Job <"), strings.Index(out, ">")
	if i < 0 || j < i {
		tb.Fatalf("bsub %v: %s", args, out)
	}
	return out[i+5 : j]
}

// TestMultiClusterForwarding: two clusters know each other (lsclusters,
// bclusters); jobs a send-jobs queue cannot start locally are forwarded,
// run in the other cluster and report back (state, exit status,
// accounting on both sides); bkill of a forwarded job kills it there; a
// cluster not configured, or presenting a wrong key, is refused; when the
// execution cluster goes down, a job forwarded and still pending there
// comes back after MAX_RSCHED_TIME x MBD_SLEEP_TIME and is not forwarded
// again while it is down.
func TestMultiClusterForwarding(t *testing.T) {
	a, b := mcPair(t, 2)
	an, bn := a.Opts.Cluster, b.Opts.Cluster
	testutil.Eventually(t, 20*time.Second, "lsclusters of "+an+" shows "+bn+" ok", func() bool {
		for _, l := range strings.Split(lsf(t, a, "lsclusters"), "\n") {
			if f := strings.Fields(l); len(f) == 6 && f[0] == bn && f[1] == "ok" && f[2] == "host1" {
				return true
			}
		}
		return false
	})
	if out := lsf(t, a, "bclusters"); !strings.Contains(out, "send       recv       "+bn) || !strings.Contains(out, " ok") {
		t.Errorf("bclusters of %s:\n%s", an, out)
	}
	testutil.Eventually(t, 10*time.Second, "bclusters of "+bn+" shows the recv link ok", func() bool {
		return strings.Contains(lsf(t, b, "bclusters"), "recv       -          "+an)
	})

	// a has one slot: the first job runs there, the next two go to b.
	local := bsubID(t, a, "-q", "send", "-o", "/dev/null", "sleep", "60")
	testutil.Eventually(t, 20*time.Second, "job "+local+" running in "+an, func() bool { return field(t, a, local, "stat") == "RUN" })
	exit3 := bsubID(t, a, "-q", "send", "-o", "/dev/null", "sh", "-c", "sleep 2; exit 3")
	long := bsubID(t, a, "-q", "send", "-o", "/dev/null", "sleep", "60")
	testutil.Eventually(t, 30*time.Second, "job "+exit3+" forwarded to "+bn, func() bool { return field(t, a, exit3, "fwd_cluster") == bn })
	testutil.Eventually(t, 30*time.Second, "job "+long+" forwarded to "+bn+" and running", func() bool {
		return field(t, a, long, "fwd_cluster") == bn && field(t, a, long, "stat") == "RUN"
	})
	if h := field(t, a, long, "exec_host"); h != "host1@"+bn {
		t.Errorf("exec_host of forwarded job %s: %q", long, h)
	}
	if out := lsf(t, a, "bjobs", "-fwd"); !strings.Contains(out, "CLUSTER    FORWARD_TIME") || !strings.Contains(out, "\n"+long+" ") ||
		strings.Contains(out, "\n"+local+" ") || !strings.Contains(out, bn) {
		t.Errorf("bjobs -fwd of %s:\n%s", an, out)
	}
	if out := lsf(t, a, "bjobs", "-l", long); !strings.Contains(strings.ReplaceAll(out, "\n                     ", ""), "Job <"+long+"> forwarded to cluster <"+bn+">;") {
		t.Errorf("bjobs -l %s of %s:\n%s", long, an, out)
	}
	if out := lsf(t, a, "bhist", "-l", long); !strings.Contains(strings.ReplaceAll(out, "\n                     ", ""), "Job <"+long+"> forwarded to cluster <"+bn+">;") {
		t.Errorf("bhist -l %s of %s:\n%s", long, an, out)
	}
	remote := field(t, a, long, "dstjobid")
	if _, err := strconv.Atoi(remote); err != nil {
		t.Fatalf("dstjobid of %s: %q", long, remote)
	}
	if got := field(t, b, remote, "srcjobid source_cluster queue stat"); got != long+" "+an+" recv RUN" {
		t.Errorf("job %s in %s: %q", remote, bn, got)
	}
	testutil.Eventually(t, 30*time.Second, "job "+exit3+" finished with exit code 3", func() bool {
		return field(t, a, exit3, "stat exit_code") == "EXIT 3"
	})
	// Accounting on both sides: the submission cluster's lsb.acct has the
	// job's end (as a job that ran elsewhere: no execution host here).
	if acct := lsf(t, a, "bacct", "-l", exit3); !strings.Contains(acct, "Job <"+exit3+">") || !strings.Contains(acct, "Completed <exit>") {
		t.Errorf("bacct -l %s in %s:\n%s", exit3, an, acct)
	}
	// bstop and bresume in the submission cluster reach the execution
	// cluster, and the state comes back.
	if out := lsf(t, a, "bstop", long); !strings.Contains(out, "is being stopped") {
		t.Fatalf("bstop %s: %s", long, out)
	}
	testutil.Eventually(t, 20*time.Second, "stopped forwarded job USUSP on both sides", func() bool {
		return field(t, a, long, "stat") == "USUSP" && field(t, b, remote, "stat") == "USUSP"
	})
	if out := lsf(t, a, "bresume", long); !strings.Contains(out, "is being resumed") {
		t.Fatalf("bresume %s: %s", long, out)
	}
	testutil.Eventually(t, 20*time.Second, "resumed forwarded job RUN on both sides", func() bool {
		return field(t, a, long, "stat") == "RUN" && field(t, b, remote, "stat") == "RUN"
	})
	// bkill in the submission cluster reaches the execution cluster.
	if out := lsf(t, a, "bkill", long); !strings.Contains(out, "is being terminated") {
		t.Fatalf("bkill %s: %s", long, out)
	}
	testutil.Eventually(t, 20*time.Second, "killed forwarded job EXIT on both sides", func() bool {
		return field(t, a, long, "stat") == "EXIT" && field(t, b, remote, "stat") == "EXIT"
	})
	if acct := lsf(t, b, "bacct", "-l", field(t, a, exit3, "dstjobid")); !strings.Contains(acct, "Queue <recv>") || !strings.Contains(acct, "Completed <exit>") {
		t.Errorf("bacct -l in %s of the job forwarded there:\n%s", bn, acct)
	}

	// A forward sent again under its key (its answer lost) gets the job
	// its first sending created; another key, another job.
	addr := net.JoinHostPort("127.0.1.1", strconv.Itoa(cluster.MCPort(b.Opts.PortBase)))
	var secret string
	sud, _ := os.ReadFile(filepath.Join(a.EnvDir, "lsf.sudoers"))
	for _, l := range strings.Split(string(sud), "\n") {
		if v, ok := strings.CutPrefix(l, mc.KeyVar(bn)+"="); ok {
			secret = v
		}
	}
	submit := func(key string) int64 {
		creds := &mc.Credentials{Local: an, LocalHost: "host1", Peer: bn, Key: mc.PairKey(secret, an, bn)}
		hello, err := creds.Hello(context.Background(), "mbatchd", "host1")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		c, err := rpc.Dial(ctx, addr, hello)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		var r api.MCSubmitReply
		req := &api.MCSubmitRequest{Key: key, JobID: 999, Queue: "recv", User: "root", JobName: "dup",
			Spec: &api.JobSpec{Command: "true", FromHost: "host1", SubCwd: "/tmp", OutFile: "/dev/null"}}
		if err := c.Call(ctx, api.MBatchdMCSubmit, req, &r); err != nil || r.JobID == 0 {
			t.Fatalf("MCSubmit %s: %v %v", key, err, r.Status)
		}
		return r.JobID
	}
	first := submit(an + ":999:1")
	if again := submit(an + ":999:1"); again != first {
		t.Errorf("a repeated forward created job %d beside %d", again, first)
	}
	if other := submit(an + ":999:2"); other == first {
		t.Errorf("a new forward's key got the earlier job %d", first)
	}

	// Refusals on b's MultiCluster port: a cluster lsf.shared does not
	// name, and a's name with a wrong key.
	for _, creds := range []*mc.Credentials{
		{Local: "rogue", LocalHost: "host1", Peer: bn, Key: mc.PairKey(strings.Repeat("k", 32), "rogue", bn)},
		{Local: an, LocalHost: "host1", Peer: bn, Key: mc.PairKey(strings.Repeat("k", 32), an, bn)},
	} {
		hello, err := creds.Hello(context.Background(), "mbatchd", "host1")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		c, err := rpc.Dial(ctx, addr, hello)
		if err == nil {
			var r api.MCHelloReply
			err = c.Call(ctx, api.MBatchdMCHello, &api.MCHelloRequest{Cluster: creds.Local}, &r)
			c.Close()
		}
		cancel()
		if err == nil || !strings.Contains(err.Error(), "permission denied") {
			t.Errorf("cluster %s with a wrong key: %v, want a refusal", creds.Local, err)
		}
	}
	if log, _ := os.ReadFile(filepath.Join(b.Opts.Dir, "log", "mbatchd.log.host1")); !strings.Contains(string(log), "cluster is not configured") {
		t.Logf("b's mbatchd log does not name the refusal (looked in log/mbatchd.log.host1)")
	}

	// A job that cannot start yet (begin time) is forwarded and pends in b;
	// b goes down; a takes it back after MAX_RSCHED_TIME x MBD_SLEEP_TIME
	// and does not forward it again.
	begin := time.Now().Add(3 * time.Minute).Format("15:04")
	waiting := bsubID(t, a, "-q", "send", "-b", begin, "-o", "/dev/null", "true")
	testutil.Eventually(t, 30*time.Second, "job "+waiting+" forwarded", func() bool { return field(t, a, waiting, "fwd_cluster") == bn })
	if err := b.Down(context.Background()); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 30*time.Second, bn+" unavail in lsclusters", func() bool {
		return strings.Contains(lsf(t, a, "lsclusters"), bn+" ") && strings.Contains(lsf(t, a, "lsclusters"), "unavail")
	})
	testutil.Eventually(t, 30*time.Second, "job "+waiting+" back in "+an, func() bool {
		return field(t, a, waiting, "stat fwd_cluster") == "PEND -"
	})
	time.Sleep(5 * time.Second) // three passes and rounds: it must stay
	if got := field(t, a, waiting, "stat fwd_cluster"); got != "PEND -" {
		t.Errorf("job %s forwarded again to a cluster that is down: %q", waiting, got)
	}
}

// jobRecs returns the records of jobs ids of c (through mbatchd's RPC).
func jobRecs(tb testing.TB, cl *rpc.Client, ids []int64) map[int64]*api.JobRecord {
	tb.Helper()
	req := &api.JobsRequest{User: "all", IncludeFinished: true}
	for _, id := range ids {
		req.Jobs = append(req.Jobs, &api.JobRef{JobID: id})
	}
	st, err := cl.Stream(context.Background(), api.MBatchdJobs, req)
	if err != nil {
		tb.Fatal(err)
	}
	out := map[int64]*api.JobRecord{}
	for {
		var r api.JobsReply
		if err := st.Recv(&r); err != nil {
			break
		}
		for _, j := range r.Jobs {
			out[j.JobID] = j
		}
	}
	return out
}

func submitJobs(tb testing.TB, cl *rpc.Client, queue, cmd string, n int) []int64 {
	tb.Helper()
	req := &api.SubmitRequest{}
	for i := 0; i < n; i++ {
		req.Jobs = append(req.Jobs, &api.JobSpec{Command: cmd, Queues: []string{queue}, FromHost: "host1", SubCwd: "/tmp", OutFile: "/dev/null"})
	}
	var reply api.SubmitReply
	if err := cl.Call(context.Background(), api.MBatchdSubmit, req, &reply); err != nil {
		tb.Fatal(err)
	}
	var ids []int64
	for _, r := range reply.Results {
		if r.JobID == 0 {
			tb.Fatalf("submission refused: %v", r.Status)
		}
		ids = append(ids, r.JobID)
	}
	return ids
}

// waitAll polls until every job of ids satisfies ok; it returns when.
func waitAll(tb testing.TB, cl *rpc.Client, ids []int64, ok func(*api.JobRecord) bool) time.Time {
	tb.Helper()
	deadline := time.Now().Add(120 * time.Second)
	for time.Now().Before(deadline) {
		recs := jobRecs(tb, cl, ids)
		n := 0
		for _, id := range ids {
			if r := recs[id]; r != nil && ok(r) {
				n++
			}
		}
		if n == len(ids) {
			return time.Now()
		}
		time.Sleep(10 * time.Millisecond)
	}
	tb.Fatalf("jobs %v did not get there in 120 s", ids)
	return time.Time{}
}

// BenchmarkMCForward measures job forwarding between two local clusters:
// the latency from a submission in a full cluster to the job's start in
// the other (fwd-start-ms; its peer local-start-ms is a submission's
// latency to start in that cluster itself, same run), and the rate at
// which b.N jobs submitted at once are forwarded and accepted
// (fwd-jobs/s; peer local-jobs/s: the same number of jobs submitted to the
// execution cluster itself, to start). a has one slot, held by a long job
// in another queue; b has b.N+20 slots.
//
//	go test -run '^$' -bench MCForward -benchtime 200x ./internal/cluster/
func BenchmarkMCForward(b *testing.B) {
	a, c := mcPair(b, b.N+20)
	ca, cb := mbdClient(b, a), mbdClient(b, c)
	running := func(r *api.JobRecord) bool { return r.State == api.StateRun }
	waitAll(b, ca, submitJobs(b, ca, "normal", "sleep 600", 1), running)
	testutil.Eventually(b, 20*time.Second, "the clusters connected", func() bool {
		return strings.Contains(lsf(b, a, "bclusters"), " ok")
	})
	const latN = 5
	var fwd, local time.Duration
	for i := 0; i < latN; i++ {
		t0 := time.Now()
		id := submitJobs(b, ca, "send", "sleep 600", 1)[0]
		waitAll(b, ca, []int64{id}, func(r *api.JobRecord) bool { return r.DstJobID != 0 })
		dst := jobRecs(b, ca, []int64{id})[id].DstJobID
		fwd += waitAll(b, cb, []int64{dst}, running).Sub(t0)
		t0 = time.Now()
		lid := submitJobs(b, cb, "recv", "sleep 600", 1)[0]
		local += waitAll(b, cb, []int64{lid}, running).Sub(t0)
	}
	b.ResetTimer()
	t0 := time.Now()
	ids := submitJobs(b, ca, "send", "sleep 600", b.N)
	waitAll(b, ca, ids, func(r *api.JobRecord) bool { return r.DstJobID != 0 })
	fwdRate := float64(b.N) / time.Since(t0).Seconds()
	b.StopTimer()
	// Free b's slots for the peer: kill what was forwarded.
	if out := lsf(b, c, "bkill", "-u", "all", "0"); !strings.Contains(out, "terminated") {
		b.Logf("bkill 0 in %s: %s", c.Opts.Cluster, out)
	}
	waitAll(b, cb, func() []int64 {
		var all []int64
		for id := int64(1); id <= int64(b.N+2*latN); id++ {
			all = append(all, id)
		}
		return all
	}(), func(r *api.JobRecord) bool { return r.State != api.StateRun && r.State != api.StatePend })
	t0 = time.Now()
	waitAll(b, cb, submitJobs(b, cb, "recv", "sleep 600", b.N), running)
	localRate := float64(b.N) / time.Since(t0).Seconds()
	b.ReportMetric(float64(fwd.Milliseconds())/latN, "fwd-start-ms")
	b.ReportMetric(float64(local.Milliseconds())/latN, "local-start-ms")
	b.ReportMetric(fwdRate, "fwd-jobs/s")
	b.ReportMetric(localRate, "local-jobs/s")
}
