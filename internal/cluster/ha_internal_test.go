package cluster

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/auth/authsetup"
	"github.com/basalt-lsf/basalt/internal/rpc"
	"github.com/basalt-lsf/basalt/internal/testutil"
)

var (
	haKills   = flag.Int("cluster.ha.kills", 20, "leader kills of TestMasterLeaderKill")
	haCuts    = flag.Int("cluster.ha.cuts", 10, "partition rounds of TestMasterPartition")
	haCutFor  = flag.Duration("cluster.ha.cutfor", 10*time.Second, "how long TestMasterPartition cuts the leader off")
	haReplica = []string{"host1", "host2", "host3"}
)

// raceBound bounds a round count under the race detector, whose daemons
// (this race-built binary) are several times slower: CI's plain pass runs
// every round, the race pass a few.
func raceBound(n, race int) int {
	if testutil.Race {
		return min(n, race)
	}
	return n
}

// haCluster starts a namespace cluster of hosts hosts whose first three
// run mbatchd replicas.
func haCluster(t *testing.T, hosts int) *Cluster {
	t.Helper()
	netnsOrSkip(t)
	c, err := Up(context.Background(), Options{Dir: t.TempDir(), Hosts: hosts, Masters: 3, Netns: true,
		Cluster: fmt.Sprintf("ha%d", os.Getpid()%100000), Timeout: 90 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			logTail(t, c)
		}
		c.Down(context.Background())
	})
	return c
}

func logTail(t *testing.T, c *Cluster) {
	for _, h := range haReplica {
		b, _ := os.ReadFile(filepath.Join(c.Opts.Dir, "log", "mbatchd.log."+h))
		if len(b) > 3000 {
			b = b[len(b)-3000:]
		}
		t.Logf("mbatchd.log.%s:\n%s", h, b)
	}
}

// cmdOn runs a command of the cluster on host, returning its output.
func (c *Cluster) cmdOn(ctx context.Context, host string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(c.Bin, args[0]), args[1:]...)
	cmd.Env = append(os.Environ(), "LSF_ENVDIR="+c.EnvDir, "BASALT_HOST="+host)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = time.Second
	if err := c.InHost(host, cmd.Start); err != nil {
		return "", err
	}
	err := cmd.Wait()
	return out.String(), err
}

var submitted = regexp.MustCompile(`Job <(\d+)> is submitted`)

// bsubOn submits one job from host; its ID, or an error with bsub's
// output.
func (c *Cluster) bsubOn(ctx context.Context, host string, args ...string) (int64, error) {
	out, err := c.cmdOn(ctx, host, append([]string{"bsub"}, args...)...)
	m := submitted.FindStringSubmatch(out)
	if err != nil || m == nil {
		return 0, fmt.Errorf("bsub on %s: %v: %s", host, err, out)
	}
	return strconv.ParseInt(m[1], 10, 64)
}

// leaderInfo asks the replica on host who leads, from the namespace of
// host from.
func (c *Cluster) leaderInfo(ctx context.Context, from, host string) (*api.LeaderReply, error) {
	return c.askReplica(ctx, from, host, false)
}

// askReplica is leaderInfo, with the replica's job digest when digest is
// set.
func (c *Cluster) askReplica(ctx context.Context, from, host string, digest bool) (*api.LeaderReply, error) {
	conf, err := c.lsfConf()
	if err != nil {
		return nil, err
	}
	hello, err := authsetup.Client(conf, c.EnvDir, from, auth.KindUser).Hello(ctx, auth.KindMbatchd, host)
	if err != nil {
		return nil, err
	}
	addr := net.JoinHostPort(c.HostAddr(c.hostIndex(host)).String(), strconv.Itoa(conf.MBDPort()))
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	var cl *rpc.Client
	if err := c.InHost(from, func() (err error) { cl, err = rpc.Dial(ctx, addr, hello); return err }); err != nil {
		return nil, err
	}
	defer cl.Close()
	var reply api.LeaderReply
	err = cl.Call(ctx, api.MBatchdLeader, &api.LeaderRequest{Digest: digest}, &reply)
	return &reply, err
}

// leader waits until a replica leads and every live replica of hosts
// names it (asked from host from).
func (c *Cluster) waitMaster(t *testing.T, from string, hosts []string, within time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(within)
	var last string
	for time.Now().Before(deadline) {
		lead, agree := "", true
		for _, h := range hosts {
			r, err := c.leaderInfo(context.Background(), from, h)
			if err != nil {
				agree, last = false, fmt.Sprintf("%s: %v", h, err)
				break
			}
			if r.IsLeader {
				lead = h
			}
			if r.Leader == "" || lead != "" && r.Leader != lead {
				agree, last = false, fmt.Sprintf("%s names %q", h, r.Leader)
			}
		}
		if agree && lead != "" {
			return lead
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no master agreed on within %v: %s", within, last)
	return ""
}

// submitter submits jobs from host until stopped, recording every
// acknowledged job ID with its name (unique per submission).
type submitter struct {
	mu    sync.Mutex
	acked map[int64]string
	errs  int
}

func (s *submitter) run(ctx context.Context, t *testing.T, c *Cluster, host string, wg *sync.WaitGroup) {
	defer wg.Done()
	for n := 0; ctx.Err() == nil; n++ {
		name := fmt.Sprintf("%s-%d", host, n)
		id, err := c.bsubOn(ctx, host, "-J", name, "-m", "host4 host5", "-o", "/dev/null", "true")
		s.mu.Lock()
		if err == nil {
			if prev, dup := s.acked[id]; dup {
				t.Errorf("job ID %d acknowledged twice: %s and %s", id, prev, name)
			}
			s.acked[id] = name
		} else if ctx.Err() == nil {
			s.errs++
			if s.errs <= 3 { // a submission that was not acknowledged: say how
				t.Logf("submission %s not acknowledged: %v", name, err)
			}
		}
		s.mu.Unlock()
		time.Sleep(50 * time.Millisecond)
	}
}

// jobsOf lists the cluster's jobs (bjobs -a -u all) as ID -> name and
// ID -> status, asked from host.
func (c *Cluster) jobsOf(t *testing.T, host string) (map[int64]string, map[int64]string) {
	t.Helper()
	out, err := c.cmdOn(context.Background(), host, "bjobs", "-a", "-u", "all", "-noheader", "-o", "jobid job_name stat")
	if err != nil && !strings.Contains(out, "No job found") {
		t.Fatalf("bjobs: %v: %s", err, out)
	}
	names, stats := map[int64]string{}, map[int64]string{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(l)
		if len(f) != 3 {
			continue
		}
		id, _ := strconv.ParseInt(f[0], 10, 64)
		names[id], stats[id] = f[1], f[2]
	}
	return names, stats
}

// checkAcked: every acknowledged job is there under its name, and no
// submission made two jobs.
func checkAcked(t *testing.T, c *Cluster, host string, acked map[int64]string) {
	t.Helper()
	names, _ := c.jobsOf(t, host)
	lost := 0
	for id, name := range acked {
		if names[id] != name {
			lost++
			if lost <= 5 {
				t.Errorf("acknowledged job %d (%s) is %q after the failures", id, name, names[id])
			}
		}
	}
	seen := map[string]int64{}
	for id, name := range names {
		if prev, dup := seen[name]; dup {
			t.Errorf("submission %s made jobs %d and %d", name, prev, id)
		}
		seen[name] = id
	}
	t.Logf("%d acknowledged jobs, %d lost", len(acked), lost)
}

// checkStartedOnce: no job started twice, by the master's lsb.events.
func checkStartedOnce(t *testing.T, c *Cluster, master string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(c.Opts.Dir, "state", master, "mbatchd", "logdir", "lsb.events"))
	if err != nil {
		t.Fatal(err)
	}
	// A dispatch that never reached a host is taken back at once
	// (JOB_STATUS to PEND, 1601 PEND_SBD_UNREACH: no sbatchd session with
	// the new master yet; 1608 PEND_SBD_JOB_ACCEPT: refused): it is not a
	// start.
	starts := map[string]int{}
	lines := strings.Split(string(b), "\n")
	for _, l := range lines {
		f := strings.Fields(l)
		switch {
		case len(f) > 3 && f[0] == `"JOB_START"`:
			starts[f[3]]++
		case len(f) > 5 && f[0] == `"JOB_STATUS"` && f[4] == "1" && (f[5] == "1601" || f[5] == "1608"):
			starts[f[3]]--
		}
	}
	for id, n := range starts {
		if n > 1 {
			t.Errorf("job %s started %d times", id, n)
			for _, l := range lines {
				if f := strings.Fields(l); len(f) > 3 && f[3] == id || strings.HasPrefix(l, `"LOG_SWITCH"`) || strings.HasPrefix(l, `"MBD_START"`) {
					t.Log(l)
				}
			}
		}
	}
}

func medianMax(d []time.Duration) (time.Duration, time.Duration) {
	if len(d) == 0 {
		return 0, 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2], s[len(s)-1]
}

// TestMasterLeaderKill: the master's host loses its power (every process
// of its namespace SIGKILLed) again and again while two other hosts
// submit: every acknowledged job is there afterwards, no job ID is used
// twice, no job starts twice, and jobs running on the surviving hosts
// keep running. Then every replica host loses its power at once: nothing
// acknowledged is lost either. Figure: from the kill until a submission
// on another host succeeds.
func TestMasterLeaderKill(t *testing.T) {
	if testing.Short() {
		t.Skip("kills the master's host many times")
	}
	c := haCluster(t, 5)
	ctx := context.Background()
	var long []int64
	for i := 0; i < 2; i++ {
		id, err := c.bsubOn(ctx, "host4", "-J", fmt.Sprintf("long-%d", i), "-m", "host5", "-o", "/dev/null", "sleep", "3600")
		if err != nil {
			t.Fatal(err)
		}
		long = append(long, id)
	}
	// They run before the master's host is first killed.
	deadline := time.Now().Add(60 * time.Second)
	for {
		_, stats := c.jobsOf(t, "host4")
		if stats[long[0]] == "RUN" && stats[long[1]] == "RUN" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the jobs on host5 did not start: %v", stats)
		}
		time.Sleep(100 * time.Millisecond)
	}
	sctx, stop := context.WithCancel(ctx)
	s := &submitter{acked: map[int64]string{}}
	var wg sync.WaitGroup
	wg.Add(2)
	go s.run(sctx, t, c, "host4", &wg)
	go s.run(sctx, t, c, "host5", &wg)
	var took []time.Duration
	for round := 0; round < raceBound(*haKills, 3); round++ {
		lead := c.waitMaster(t, "host4", haReplica, 60*time.Second)
		t0 := time.Now()
		if err := c.KillHost(lead); err != nil {
			t.Fatal(err)
		}
		if _, err := c.bsubOn(ctx, "host4", "-J", fmt.Sprintf("probe-%d", round), "-m", "host4 host5", "-o", "/dev/null", "true"); err != nil {
			t.Fatalf("round %d: no submission after killing %s: %v", round, lead, err)
		}
		took = append(took, time.Since(t0))
		if err := c.StartHost(ctx, lead); err != nil {
			t.Fatal(err)
		}
		// The next kill waits for the three replicas: killing a second
		// before the first is back would leave one of three.
		c.waitMaster(t, "host4", haReplica, 60*time.Second)
	}
	stop()
	wg.Wait()
	med, mx := medianMax(took)
	t.Logf("leader kills: %d; from the kill to a submission accepted on another host: median %v, max %v; %d submissions failed",
		len(took), med.Round(time.Millisecond), mx.Round(time.Millisecond), s.errs)
	master := c.waitMaster(t, "host4", haReplica, 60*time.Second)
	checkAcked(t, c, "host4", s.acked)
	checkStartedOnce(t, c, master)
	_, stats := c.jobsOf(t, "host4")
	for _, id := range long {
		if stats[id] != "RUN" {
			t.Errorf("job %d on host5 is %s after the master's failures, want RUN", id, stats[id])
		}
	}

	// Whole-cluster power loss of the master replicas.
	for _, h := range haReplica {
		if err := c.KillHost(h); err != nil {
			t.Fatal(err)
		}
	}
	for _, h := range haReplica {
		if err := c.StartHost(ctx, h); err != nil {
			t.Fatal(err)
		}
	}
	c.waitMaster(t, "host4", haReplica, 60*time.Second)
	checkAcked(t, c, "host4", s.acked)
}

// TestMasterPartition: the master's host is cut off from the others for a
// while, again and again, with submissions on both sides: the cut-off side
// never acknowledges one, the others elect a master that does, and after
// healing every replica holds the same jobs and lsb.events.
func TestMasterPartition(t *testing.T) {
	if testing.Short() {
		t.Skip("cuts the master off many times")
	}
	c := haCluster(t, 4)
	ctx := context.Background()
	acked := map[int64]string{}
	minority := 0
	cuts := raceBound(*haCuts, 2)
	for round := 0; round < cuts; round++ {
		lead := c.waitMaster(t, "host4", haReplica, 60*time.Second)
		if err := c.Cut(ctx, lead, true); err != nil {
			t.Fatal(err)
		}
		healAt := time.Now().Add(*haCutFor)
		// The cut-off side: a submission that must not be acknowledged
		// while cut off (bsub keeps trying; it is stopped at the heal).
		mctx, mcancel := context.WithDeadline(ctx, healAt)
		minorityDone := make(chan bool, 1)
		go func() {
			_, err := c.bsubOn(mctx, lead, "-J", fmt.Sprintf("minority-%d", round), "-o", "/dev/null", "true")
			minorityDone <- err == nil && time.Now().Before(healAt)
		}()
		// The majority side: submissions succeed once it elects.
		for n := 0; time.Now().Before(healAt.Add(-time.Second)); n++ {
			name := fmt.Sprintf("majority-%d-%d", round, n)
			actx, acancel := context.WithDeadline(ctx, healAt)
			id, err := c.bsubOn(actx, "host4", "-J", name, "-o", "/dev/null", "true")
			acancel()
			if err == nil {
				acked[id] = name
			}
		}
		if <-minorityDone {
			minority++
			t.Errorf("round %d: the cut-off master %s acknowledged a submission", round, lead)
		}
		mcancel()
		if err := c.Cut(ctx, lead, false); err != nil {
			t.Fatal(err)
		}
	}
	c.waitMaster(t, "host4", haReplica, 60*time.Second)
	t.Logf("partitions: %d rounds of %v; acknowledged on the majority side: %d; acknowledged on the cut-off side: %d",
		cuts, *haCutFor, len(acked), minority)
	checkAcked(t, c, "host4", acked)
	// The replicas can agree only once the cluster is idle: the jobs
	// acknowledged are still being dispatched and finished meanwhile,
	// each an entry the leader applies before its followers do (a loaded
	// machine is minutes behind).
	idle := func() bool {
		_, stats := c.jobsOf(t, "host4")
		for _, st := range stats {
			if st != "DONE" && st != "EXIT" {
				return false
			}
		}
		return true
	}
	idleFrom := time.Now()
	for end := idleFrom.Add(5 * time.Minute); !idle(); {
		if time.Now().After(end) {
			t.Fatal("jobs still unfinished 5 minutes after the last partition healed")
		}
		time.Sleep(2 * time.Second)
	}
	t.Logf("every job finished %v after the acknowledged ones were checked", time.Since(idleFrom).Round(time.Second))
	// Every replica converges on the same applied index and the same
	// jobs (their lsb.events may differ: a replica that installed a
	// snapshot starts a new file with the live jobs).
	var replies []*api.LeaderReply
	agree := func() bool {
		replies = replies[:0]
		for _, h := range haReplica {
			r, err := c.askReplica(ctx, "host4", h, true)
			if err != nil {
				return false
			}
			replies = append(replies, r)
		}
		for _, r := range replies[1:] {
			if r.DigestIndex != replies[0].DigestIndex || r.Digest != replies[0].Digest {
				return false
			}
		}
		return true
	}
	deadline := time.Now().Add(30 * time.Second)
	for !agree() && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
	}
	if !agree() {
		for i, r := range replies {
			t.Errorf("%s: applied %d, digest %x at %d; last log index %d, term %d, leader %q (leads: %v)",
				haReplica[i], r.Applied, r.Digest, r.DigestIndex, r.Commit, r.Term, r.Leader, r.IsLeader)
		}
	}
}
