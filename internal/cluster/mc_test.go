package cluster_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
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
	"github.com/basalt-lsf/basalt/internal/cli"
	"github.com/basalt-lsf/basalt/internal/cluster"
	"github.com/basalt-lsf/basalt/internal/mc"
	"github.com/basalt-lsf/basalt/internal/rpc"
	"github.com/basalt-lsf/basalt/internal/testutil"
)

var mcLoopback = flag.Bool("mc.loopback", false, "run TestMultiClusterForwarding and BenchmarkMCForward on loopback hosts even where namespace clusters are possible")

// mcNetns reports whether the MultiCluster test and benchmark run their
// clusters in network namespaces (root, iproute2: every host its own
// network, the clusters joined by veths and bridges), else on loopback.
func mcNetns(tb testing.TB) bool {
	tb.Helper()
	if *mcLoopback {
		tb.Log("clusters on loopback hosts (-mc.loopback)")
		return false
	}
	if err := cluster.NetnsSupport(context.Background()); err != nil {
		tb.Logf("clusters on loopback hosts: no namespace clusters here (%v)", err)
		return false
	}
	return true
}

// mcPair starts two clusters that know each other: a (one slot on host1
// for its queues, queue "send" forwarding to b's "recv"; in namespaces a
// second host, which is no master candidate) and b (one host of
// recvSlots slots, queue "recv" receiving from a). MBD_SLEEP_TIME is 2 s
// and MAX_RSCHED_TIME 2: a job pending remotely comes back after 4 s.
// In namespaces (netns) every host has a network of its own, b's hosts
// are named <b>-hostN, and the clusters reach each other over the link
// between their bridges.
func mcPair(tb testing.TB, recvSlots int, netns bool) (a, b *cluster.Cluster) {
	tb.Helper()
	n := os.Getpid() % 100000
	oa := cluster.Options{Dir: tb.TempDir(), Hosts: 1, Slots: 1, Cluster: fmt.Sprintf("mca%d", n), Netns: netns}
	ob := cluster.Options{Dir: tb.TempDir(), Hosts: 1, Slots: recvSlots, Cluster: fmt.Sprintf("mcb%d", n), Netns: netns}
	if netns {
		oa.Hosts = 2
	}
	if err := cluster.PairOptions(&oa, &ob); err != nil {
		tb.Fatal(err)
	}
	params := "Begin Parameters\nDEFAULT_QUEUE = normal\nMBD_SLEEP_TIME = 2\nSBD_SLEEP_TIME = 2\nJOB_ACCEPT_INTERVAL = 0\nEnd Parameters\n"
	oa.Files = map[string][]byte{"lsb.params": []byte(params), "lsb.queues": []byte(
		"Begin Queue\nQUEUE_NAME = normal\nHOSTS = host1\nEnd Queue\n" +
			"Begin Queue\nQUEUE_NAME = send\nPRIORITY = 40\nHOSTS = host1\nSNDJOBS_TO = recv@" + ob.Cluster + "\nMAX_RSCHED_TIME = 2\nEnd Queue\n")}
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

// lsf runs a command of the test binary against cluster c, on its first
// host (in its network namespace in a namespace cluster), and returns its
// output (stdout and stderr).
func lsf(tb testing.TB, c *cluster.Cluster, name string, args ...string) string {
	tb.Helper()
	exe, _ := os.Executable()
	cmd := exec.Command(exe, args...)
	cmd.Args[0] = name
	cmd.Env = append(os.Environ(), "LSF_ENVDIR="+c.EnvDir, "BASALT_HOST="+c.Host(1))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := c.InHost(c.Host(1), cmd.Start); err != nil {
		return err.Error()
	}
	_ = cmd.Wait()
	return out.String()
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
// accounting on both sides); bstop, bresume and bkill of a forwarded job
// act there; a cluster not configured, or presenting a wrong key, is
// refused. Where namespace clusters are possible (root) every host has a
// network of its own and the clusters talk across veths and bridges:
// there a host of the right cluster that is not its master is refused
// too, and the network between the clusters is cut: a forwarded job still
// pending in the other cluster comes back after MAX_RSCHED_TIME x
// MBD_SLEEP_TIME and is not forwarded again while the other is
// unreachable, a forwarded job running there waits (bkill of it answers
// that the cluster cannot be reached) and, the network back, goes on and
// is killed there by bkill, and the copy of the job taken back is killed
// there, though the sending master was restarted during the cut. On
// loopback (no root, or -mc.loopback) the execution cluster is stopped
// instead: the pending job comes back and is not forwarded again.
func TestMultiClusterForwarding(t *testing.T) {
	netns := mcNetns(t)
	a, b := mcPair(t, 2, netns)
	an, bn := a.Opts.Cluster, b.Opts.Cluster
	testutil.Eventually(t, 20*time.Second, "lsclusters of "+an+" shows "+bn+" ok", func() bool {
		for _, l := range strings.Split(lsf(t, a, "lsclusters"), "\n") {
			if f := strings.Fields(l); len(f) == 6 && f[0] == bn && f[1] == "ok" && f[2] == b.Host(1) {
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
	local := bsubID(t, a, "-q", "send", "-o", "/dev/null", "sleep", "600")
	testutil.Eventually(t, 20*time.Second, "job "+local+" running in "+an, func() bool { return field(t, a, local, "stat") == "RUN" })
	exit3 := bsubID(t, a, "-q", "send", "-o", "/dev/null", "sh", "-c", "sleep 2; exit 3")
	long := bsubID(t, a, "-q", "send", "-o", "/dev/null", "sleep", "60")
	testutil.Eventually(t, 30*time.Second, "job "+exit3+" forwarded to "+bn, func() bool { return field(t, a, exit3, "fwd_cluster") == bn })
	testutil.Eventually(t, 30*time.Second, "job "+long+" forwarded to "+bn+" and running", func() bool {
		return field(t, a, long, "fwd_cluster") == bn && field(t, a, long, "stat") == "RUN"
	})
	if h := field(t, a, long, "exec_host"); h != b.Host(1)+"@"+bn {
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
	// its first sending created; another key, another job. The calls come
	// from a's master host (its network namespace).
	addr := net.JoinHostPort(b.HostAddr(1).String(), strconv.Itoa(cluster.MCPort(b.Opts.PortBase)))
	var secret string
	sud, _ := os.ReadFile(filepath.Join(a.EnvDir, "lsf.sudoers"))
	for _, l := range strings.Split(string(sud), "\n") {
		if v, ok := strings.CutPrefix(l, mc.KeyVar(bn)+"="); ok {
			secret = v
		}
	}
	// dial opens a connection to b's MultiCluster port from host of a
	// with creds.
	dial := func(host string, creds *mc.Credentials) (*rpc.Client, error) {
		hello, err := creds.Hello(context.Background(), "mbatchd", b.Host(1))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var c *rpc.Client
		err = a.InHost(host, func() (err error) { c, err = rpc.Dial(ctx, addr, hello); return err })
		return c, err
	}
	submit := func(key string) int64 {
		c, err := dial(a.Host(1), &mc.Credentials{Local: an, LocalHost: a.Host(1), Peer: bn, Key: mc.PairKey(secret, an, bn)})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var r api.MCSubmitReply
		req := &api.MCSubmitRequest{Key: key, JobID: 999, Queue: "recv", User: "root", JobName: "dup",
			Spec: &api.JobSpec{Command: "true", FromHost: a.Host(1), SubCwd: "/tmp", OutFile: "/dev/null", ResReq: []string{"type==any"}}}
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
	// name, a's name with a wrong key, and (in namespaces, where each host
	// has its own address) a's right key from a's host that is not its
	// master.
	type refusal struct {
		what, host string
		creds      *mc.Credentials
	}
	refusals := []refusal{
		{"a cluster not configured", a.Host(1), &mc.Credentials{Local: "rogue", LocalHost: a.Host(1), Peer: bn, Key: mc.PairKey(strings.Repeat("k", 32), "rogue", bn)}},
		{"a wrong key", a.Host(1), &mc.Credentials{Local: an, LocalHost: a.Host(1), Peer: bn, Key: mc.PairKey(strings.Repeat("k", 32), an, bn)}},
	}
	if netns {
		key := mc.PairKey(secret, an, bn)
		refusals = append(refusals,
			refusal{"the right key from a host that is no master", a.Host(2), &mc.Credentials{Local: an, LocalHost: a.Host(2), Peer: bn, Key: key}},
			refusal{"the right key from a host claiming the master", a.Host(2), &mc.Credentials{Local: an, LocalHost: a.Host(1), Peer: bn, Key: key}})
	}
	for _, r := range refusals {
		c, err := dial(r.host, r.creds)
		if err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			var reply api.MCHelloReply
			err = c.Call(ctx, api.MBatchdMCHello, &api.MCHelloRequest{Cluster: r.creds.Local}, &reply)
			cancel()
			c.Close()
		}
		if err == nil || !strings.Contains(err.Error(), "permission denied") {
			t.Errorf("%s: %v, want a refusal", r.what, err)
		}
	}

	var runner, runnerRemote string
	if netns {
		// A job running in b across the cut.
		runner = bsubID(t, a, "-q", "send", "-o", "/dev/null", "sleep", "600")
		testutil.Eventually(t, 30*time.Second, "job "+runner+" forwarded and running", func() bool {
			return field(t, a, runner, "fwd_cluster stat") == bn+" RUN"
		})
		runnerRemote = field(t, a, runner, "dstjobid")
	}
	// A job that cannot start yet (begin time) is forwarded and pends in b.
	begin := time.Now().Add(3 * time.Minute).Format("15:04")
	waiting := bsubID(t, a, "-q", "send", "-b", begin, "-o", "/dev/null", "true")
	testutil.Eventually(t, 30*time.Second, "job "+waiting+" forwarded", func() bool {
		return field(t, a, waiting, "fwd_cluster") == bn && field(t, a, waiting, "dstjobid") != "-"
	})
	if !netns {
		// b goes down; a takes the job back after MAX_RSCHED_TIME x
		// MBD_SLEEP_TIME and does not forward it again.
		if err := b.Down(context.Background()); err != nil {
			t.Fatal(err)
		}
		mcTakenBack(t, a, bn, waiting)
		return
	}
	if err := a.LinkPeer(context.Background(), b, false); err != nil {
		t.Fatal(err)
	}
	mcTakenBack(t, a, bn, waiting)
	// The copy b still holds: a may have taken the job back and forwarded
	// it again before the cut (it comes back by itself after 4 s pending
	// there, and a loaded machine can take that long), so it is found by
	// its source job ID rather than by a's first forward.
	var waitingRemote string
	for _, l := range strings.Split(lsf(t, b, "bjobs", "-u", "all", "-noheader", "-o", "jobid stat srcjobid"), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[1] == "PEND" && f[2] == waiting {
			if waitingRemote != "" {
				t.Fatalf("two pending copies of job %s in %s: %s and %s", waiting, bn, waitingRemote, f[0])
			}
			waitingRemote = f[0]
		}
	}
	if waitingRemote == "" {
		t.Fatalf("no pending copy of job %s in %s during the cut", waiting, bn)
	}
	if got := field(t, a, runner, "stat fwd_cluster"); got != "RUN "+bn {
		t.Errorf("job %s running in the unreachable cluster: %q, want it to wait (RUN %s)", runner, got, bn)
	}
	if out := lsf(t, a, "bkill", runner); !strings.Contains(out, "cannot reach cluster <"+bn+">") {
		t.Errorf("bkill %s of a job running in an unreachable cluster: %s", runner, out)
	}
	// The sending master restarts during the cut: the copy in b it must
	// kill when b answers again is in its replicated state.
	if err := a.Restart(context.Background(), "mbatchd", a.Host(1), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if got := field(t, b, waitingRemote, "stat"); got != "PEND" {
		t.Errorf("b's copy %s of job %s during the cut: %q", waitingRemote, waiting, got)
	}
	if err := a.LinkPeer(context.Background(), b, true); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 30*time.Second, "b's copy "+waitingRemote+" of the job taken back killed", func() bool {
		return field(t, b, waitingRemote, "stat") == "EXIT"
	})
	if got := field(t, a, runner, "stat"); got != "RUN" {
		t.Errorf("job %s after the cut: %q", runner, got)
	}
	if out := lsf(t, a, "bkill", runner); !strings.Contains(out, "is being terminated") {
		t.Fatalf("bkill %s: %s", runner, out)
	}
	testutil.Eventually(t, 20*time.Second, "job "+runner+" killed on both sides", func() bool {
		return field(t, a, runner, "stat") == "EXIT" && field(t, b, runnerRemote, "stat") == "EXIT"
	})
}

// mcTakenBack checks that a job forwarded from a to bn, which became
// unreachable, comes back to a's queue and is not forwarded again.
func mcTakenBack(t *testing.T, a *cluster.Cluster, bn, id string) {
	t.Helper()
	testutil.Eventually(t, 30*time.Second, bn+" unavail in lsclusters", func() bool {
		out := lsf(t, a, "lsclusters")
		return strings.Contains(out, bn+" ") && strings.Contains(out, "unavail")
	})
	testutil.Eventually(t, 30*time.Second, "job "+id+" back in "+a.Opts.Cluster, func() bool {
		return field(t, a, id, "stat fwd_cluster") == "PEND -"
	})
	time.Sleep(5 * time.Second) // three passes and rounds: it must stay
	if got := field(t, a, id, "stat fwd_cluster"); got != "PEND -" {
		t.Errorf("job %s forwarded again to a cluster that is unreachable: %q", id, got)
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

func submitJobs(tb testing.TB, cl *rpc.Client, from, queue, cmd string, n int) []int64 {
	tb.Helper()
	req := &api.SubmitRequest{}
	for i := 0; i < n; i++ {
		req.Jobs = append(req.Jobs, &api.JobSpec{Command: cmd, Queues: []string{queue}, FromHost: from, SubCwd: "/tmp", OutFile: "/dev/null"})
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
// in another queue; b has b.N+20 slots. One job is forwarded and started
// before anything is measured. The clusters run in network
// namespaces where that is possible (each host its own network, the
// clusters joined by veths and bridges), else (or with -mc.loopback) on
// loopback hosts.
//
//	go test -run '^$' -bench MCForward -benchtime 200x ./internal/cluster/
func BenchmarkMCForward(b *testing.B) {
	a, c := mcPair(b, b.N+20, mcNetns(b))
	ca, cb := mbdClient(b, a), mbdClient(b, c)
	running := func(r *api.JobRecord) bool { return r.State == api.StateRun }
	waitAll(b, ca, submitJobs(b, ca, a.Host(1), "normal", "sleep 600", 1), running)
	testutil.Eventually(b, 20*time.Second, "the clusters connected", func() bool {
		return strings.Contains(lsf(b, a, "bclusters"), " ok")
	})
	// One forward first, not measured: until a hello of b's has shown
	// its host's free slots (its first report may come up to a second
	// after the clusters connect) nothing is forwarded.
	warm := submitJobs(b, ca, a.Host(1), "send", "sleep 600", 1)
	waitAll(b, ca, warm, func(r *api.JobRecord) bool { return r.State == api.StateRun })
	const latN = 5
	var fwd, local time.Duration
	for i := 0; i < latN; i++ {
		t0 := time.Now()
		id := submitJobs(b, ca, a.Host(1), "send", "sleep 600", 1)[0]
		waitAll(b, ca, []int64{id}, func(r *api.JobRecord) bool { return r.DstJobID != 0 })
		dst := jobRecs(b, ca, []int64{id})[id].DstJobID
		d := waitAll(b, cb, []int64{dst}, running).Sub(t0)
		b.Logf("job %d: forwarded and started in %v", id, d)
		fwd += d
		t0 = time.Now()
		lid := submitJobs(b, cb, c.Host(1), "recv", "sleep 600", 1)[0]
		local += waitAll(b, cb, []int64{lid}, running).Sub(t0)
	}
	b.ResetTimer()
	t0 := time.Now()
	ids := submitJobs(b, ca, a.Host(1), "send", "sleep 600", b.N)
	waitAll(b, ca, ids, func(r *api.JobRecord) bool { return r.DstJobID != 0 })
	fwdRate := float64(b.N) / time.Since(t0).Seconds()
	b.StopTimer()
	// Free b's slots for the peer: kill what was forwarded.
	if out := lsf(b, c, "bkill", "-u", "all", "0"); !strings.Contains(out, "terminated") {
		b.Logf("bkill 0 in %s: %s", c.Opts.Cluster, out)
	}
	waitAll(b, cb, func() []int64 {
		var all []int64
		for id := int64(1); id <= int64(1+b.N+2*latN); id++ {
			all = append(all, id)
		}
		return all
	}(), func(r *api.JobRecord) bool { return r.State != api.StateRun && r.State != api.StatePend })
	t0 = time.Now()
	waitAll(b, cb, submitJobs(b, cb, c.Host(1), "recv", "sleep 600", b.N), running)
	localRate := float64(b.N) / time.Since(t0).Seconds()
	b.ReportMetric(float64(fwd.Milliseconds())/latN, "fwd-start-ms")
	b.ReportMetric(float64(local.Milliseconds())/latN, "local-start-ms")
	b.ReportMetric(fwdRate, "fwd-jobs/s")
	b.ReportMetric(localRate, "local-jobs/s")
}
