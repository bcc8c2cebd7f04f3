package cluster_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/cli"
	"github.com/basalt-lsf/basalt/internal/cluster"
	"github.com/basalt-lsf/basalt/internal/mbd/eventlog"
	"github.com/basalt-lsf/basalt/internal/sim"
	"github.com/basalt-lsf/basalt/internal/testutil"
)

// The fidelity slice: jobs 1-300 of the Lublin-Feitelson model trace
// (testdata/lublin_256_1-300.swf, the first lines of
// ../shared/traces/lublin_256.swf.gz) on fidelityHosts hosts of
// fidelitySlots slots, in units of fidelityScale trace seconds, one unit a
// second of the real cluster and of the simulator.
const (
	fidelityTrace = "testdata/lublin_256_1-300.swf"
	fidelityHosts = 3
	fidelitySlots = 8
	fidelityScale = 12000 // trace seconds in a unit (the slice's 87 hours in 27 units)
	fidelityRun   = 3     // longest run, units
	// fidelityPhase is how far into its second a unit's arrivals are
	// submitted and its ends come (the sleeps end then).
	fidelityPhase = 50 * time.Millisecond
)

// fidelityQueues is the cluster's (and so the simulator's) only queue:
// strict first come, first served (sim.Policies["fcfs"]).
var fidelityQueues = "Begin Queue\nQUEUE_NAME   = normal\nPRIORITY     = 30\n" + sim.Policies["fcfs"] + "End Queue\n"

// scaleSlice scales w's jobs to units of s trace seconds: submit times
// (from the first job's) rounded down, run times rounded to the nearest
// unit and clamped to 1..rmax, the requested processors of the trace's
// machine scaled to the cluster's slots (rounded up), no run limits.
func scaleSlice(w *sim.Workload, s, rmax int64, slots int) {
	nodes := w.MaxNodes
	if nodes <= 0 {
		nodes = 256
	}
	first := w.Jobs[0].Submit
	for _, j := range w.Jobs {
		j.Submit = (j.Submit - first) / s
		j.Run = min(max((j.Run+s/2)/s, 1), rmax)
		j.Procs = (j.Procs*slots + nodes - 1) / nodes
		j.ReqTime = -1
	}
}

// TestSimFidelity runs a slice of a real trace (300 jobs) on a real local
// cluster of 3 hosts with sleep jobs and in the simulator under the same
// configuration, and requires the same dispatch order and the same start
// second for every job.
//
// Resolution. A unit (fidelityScale trace seconds) is one second on both
// sides: the simulator's clock moves in whole seconds, and the cluster
// records start times (lsb.acct, as LSF) in whole seconds. The test's
// second 0 is a whole second of the wall clock, arrivals are submitted
// fidelityPhase into their second (each second's in one request, in the
// trace's order, so one log entry), and each sleep ends fidelityPhase into
// the second its simulated run ends: the sleep computes its start second
// from the wall clock and sleeps to that second plus its run, so that the
// real system's latencies (a report, a pass, a launch) do not add up along
// a chain of jobs. What remains must fit in the rest of the second:
// a job's real start is checked to the second, i.e. every chain of
// arrival or end, pass, dispatch and launch must take less than 0.95 s
// (the test logs the largest).
//
// Why first come, first served. Within one second mbatchd sees the
// second's events one by one (a pass runs 5 ms after any applied entry),
// the simulator sees them together (ends first, then arrivals, then one
// pass). Under a strict order (SLOT_RESERVE: a waiting job holds the free
// slots it can use, so nothing starts before it) the jobs started at the
// end of a second are the longest prefix of the queue that fits, whatever
// the order in which the second's ends and arrivals came: the check is
// exact. Under a policy that lets a job overtake a waiting one (firstfit,
// backfill, queue priorities), it is not: when two jobs end in the same
// second and a wide job waits, mbatchd may pass after the first end alone
// and start a narrow job behind the wide one in its slots, where the
// simulator, freeing both at once, starts the wide one (the old 12-job
// check under firstfit held only because its few ends never met a waiting
// wide job in the same second). The outcome then depends on the order of
// process exits a few milliseconds apart, which no simulator at a
// second's resolution can reproduce.
func TestSimFidelity(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a cluster for about 45 s")
	}
	if testutil.Race {
		// Start times on the real cluster are compared to the second:
		// under the race detector its daemons (this race-built binary)
		// fall seconds behind. CI runs it in the plain pass.
		t.Skip("compares real start times to the second: not under the race detector")
	}
	ctx := context.Background()
	f, err := os.Open(fidelityTrace)
	if err != nil {
		t.Fatal(err)
	}
	w, err := sim.ReadSWF(f)
	f.Close()
	if err != nil || len(w.Problems) > 0 || len(w.Jobs) != 300 {
		t.Fatalf("trace: %v %v, %d jobs", err, w.Problems, len(w.Jobs))
	}
	scaleSlice(w, fidelityScale, fidelityRun, fidelityHosts*fidelitySlots)

	c, err := cluster.Up(ctx, cluster.Options{Dir: t.TempDir(), Hosts: fidelityHosts, Slots: fidelitySlots,
		Cluster: fmt.Sprintf("f%d", os.Getpid()%100000), Files: map[string][]byte{"lsb.queues": []byte(fidelityQueues)},
		Has: func(n string) bool { _, ok := cli.Lookup(n); return ok }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Down(context.Background()) })

	cfg, err := sim.LoadConfig(ctx, c.EnvDir, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(ctx, w, sim.Options{Config: cfg})
	if err != nil || len(res.Problems) > 0 {
		t.Fatalf("simulation: %v %v", err, res.Problems)
	}
	simStart := map[int64]int64{}
	var makespan int64
	for _, r := range res.Records {
		simStart[r.Job.ID] = r.Start
		makespan = max(makespan, r.End)
	}

	// The real run. Each unit's arrivals go in one request at
	// fidelityPhase into their second.
	cl := mbdClient(t, c)
	marks := t.TempDir() // each sleep writes the nanosecond it started
	t0 := time.Now().Truncate(time.Second).Add(2 * time.Second)
	ids := map[int64]int64{} // cluster job ID -> trace job
	for i := 0; i < len(w.Jobs); {
		unit := w.Jobs[i].Submit
		req := &api.SubmitRequest{}
		var batch []int64
		for ; i < len(w.Jobs) && w.Jobs[i].Submit == unit; i++ {
			j := w.Jobs[i]
			req.Jobs = append(req.Jobs, &api.JobSpec{Command: sleeper(t0, j.Run, filepath.Join(marks, fmt.Sprint(j.ID))),
				FromHost: "host1", SubCwd: marks, OutFile: "/dev/null", MinProcs: int32(j.Procs), MaxProcs: int32(j.Procs)})
			batch = append(batch, j.ID)
		}
		time.Sleep(time.Until(t0.Add(time.Duration(unit)*time.Second + fidelityPhase))) // real time: the jobs are real
		var reply api.SubmitReply
		if err := cl.Call(ctx, api.MBatchdSubmit, req, &reply); err != nil {
			t.Fatalf("submission of unit %d: %v", unit, err)
		}
		for k, r := range reply.Results {
			if r.Status != nil && r.Status.Code != 0 {
				t.Fatalf("job %d refused: %v", batch[k], r.Status)
			}
			ids[r.JobID] = batch[k]
		}
	}
	logdir := filepath.Join(filepath.Dir(c.EnvDir), "work", c.Opts.Cluster, "logdir")
	var acct *eventlog.AcctResult
	deadline := t0.Add(time.Duration(makespan)*time.Second + 30*time.Second)
	for {
		r, err := eventlog.ReadAcct(ctx, &eventlog.AcctQuery{Dir: logdir})
		if err == nil && len(r.Jobs) >= len(w.Jobs) {
			acct = r
			break
		}
		if time.Now().After(deadline) {
			n := 0
			if r != nil {
				n = len(r.Jobs)
			}
			t.Fatalf("%d of %d jobs finished in %s (%v)", n, len(w.Jobs), logdir, err)
		}
		time.Sleep(500 * time.Millisecond) // the cluster's jobs run in real time
	}

	type start struct {
		job       int64
		real, sim int64
		began     time.Duration // the sleep's start after its second
	}
	var starts []start
	var late time.Duration
	for _, j := range acct.Jobs {
		tj, ok := ids[j.JobID]
		if !ok {
			continue
		}
		s := start{job: tj, real: j.StartTime - t0.Unix(), sim: simStart[tj], began: -1}
		if b, err := os.ReadFile(filepath.Join(marks, fmt.Sprint(tj))); err == nil {
			if ns, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil {
				s.began = time.Unix(0, ns).Sub(t0.Add(time.Duration(s.real) * time.Second))
				late = max(late, s.began)
			}
		}
		starts = append(starts, s)
	}
	if len(starts) != len(w.Jobs) {
		t.Fatalf("%d jobs in lsb.acct, want %d", len(starts), len(w.Jobs))
	}
	t.Logf("%d jobs, %d s; the latest sleep began %v into its start second", len(starts), makespan, late)
	sorted := func(key func(start) int64) []start {
		s := append([]start(nil), starts...)
		sort.SliceStable(s, func(i, j int) bool {
			if key(s[i]) != key(s[j]) {
				return key(s[i]) < key(s[j])
			}
			return s[i].job < s[j].job
		})
		return s
	}
	byReal := sorted(func(s start) int64 { return s.real })
	bySim := sorted(func(s start) int64 { return s.sim })
	bad := 0
	for i := range byReal {
		r := byReal[i]
		if r.real != r.sim || r.job != bySim[i].job {
			bad++
			t.Errorf("dispatch %d: job %d started at %d s on the cluster (its sleep %v later), at %d s in the simulator; the simulator's dispatch %d is job %d",
				i+1, r.job, r.real, r.began, r.sim, i+1, bySim[i].job)
		}
		if bad > 20 {
			t.Fatal("more than 20 differences")
		}
	}

	// The cluster's own lsb.acct replays too (its run times are the
	// sleeps' plus the processes' start and end).
	aw, err := sim.ReadAcct(ctx, filepath.Join(logdir, "lsb.acct"))
	if err != nil || len(aw.Problems) > 0 || len(aw.Jobs) != len(w.Jobs) {
		t.Fatalf("lsb.acct as a workload: %v %v, %d jobs", err, aw.Problems, len(aw.Jobs))
	}
	ares, err := sim.Run(ctx, aw, sim.Options{Config: cfg})
	if err != nil || len(ares.Problems) > 0 || sim.Summarize(ares, "").Jobs != len(w.Jobs) {
		t.Fatalf("lsb.acct replay: %v %v", err, ares.Problems)
	}
}

// sleeper is the command of a job that runs run units: it takes the second
// it starts in (from t0), writes the nanosecond it started to mark, and
// sleeps until fidelityPhase into the second run units later.
func sleeper(t0 time.Time, run int64, mark string) string {
	return fmt.Sprintf(`n=$(date +%%s%%N); echo $n > %s; d=$(( %d + ((n - %d) / 1000000000 + %d) * 1000000000 + %d - n )); `+
		`if [ $d -gt 0 ]; then sleep $(( d / 1000000000 )).$(printf %%09d $(( d %% 1000000000 ))); fi`,
		mark, t0.UnixNano(), t0.UnixNano(), run, fidelityPhase.Nanoseconds())
}
