package cluster_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/internal/mbd/eventlog"
	"github.com/basalt-lsf/basalt/internal/sim"
	"github.com/basalt-lsf/basalt/internal/testutil"
)

// fidelitySlice is jobs 1-12 of the Lublin-Feitelson model trace
// (lublin_256.swf.gz) scaled down: submit and run times in units (submit
// (s - 5094)/600, run /2000 clamped to 1-3), processors /32 clamped to 1-4,
// for a cluster of 2 hosts of 2 slots.
var fidelitySlice = [][4]int{ // job, submit, run, processors
	{1, 0, 3, 1}, {2, 0, 1, 1}, {3, 3, 3, 1}, {4, 4, 3, 4}, {5, 4, 3, 1}, {6, 5, 1, 1},
	{7, 5, 1, 1}, {8, 7, 1, 1}, {9, 9, 1, 1}, {10, 10, 3, 1}, {11, 11, 1, 1}, {12, 11, 3, 1},
}

// TestSimFidelity runs a slice of a trace on a real local cluster with
// sleep jobs and in the simulator under the same configuration: the same
// dispatch order, and start times within a second of each other (the
// simulator's and lsb.acct's resolution). A unit is 3 s: submissions are
// made half a second into their second and sleeps end 0.3 s before the
// unit, so that a real end and an arrival of the same simulated second come
// in the simulator's order (ends first).
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
	const unit = 3
	c := up(t, 2, 2)
	var b strings.Builder
	for _, j := range fidelitySlice {
		fmt.Fprintf(&b, "%d %d -1 %d %d -1 -1 %d -1 -1 1 1 1 -1 -1 -1 -1 -1\n", j[0], j[1]*unit, j[2]*unit, j[3], j[3])
	}
	w, err := sim.ReadSWF(strings.NewReader(b.String()))
	if err != nil || len(w.Problems) > 0 {
		t.Fatalf("trace: %v %v", err, w.Problems)
	}
	ctx := context.Background()
	cfg, err := sim.LoadConfig(ctx, c.EnvDir, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(ctx, w, sim.Options{Config: cfg, Slots: 2})
	if err != nil {
		t.Fatal(err)
	}
	simStart := map[int64]int64{}
	for _, r := range res.Records {
		simStart[r.Job.ID] = r.Start
	}

	exe, _ := os.Executable()
	t0 := time.Now().Truncate(time.Second).Add(2 * time.Second)
	ids := map[int64]int64{} // cluster job ID -> trace job
	for _, j := range fidelitySlice {
		time.Sleep(time.Until(t0.Add(time.Duration(j[1]*unit)*time.Second + 500*time.Millisecond))) // real time: the jobs are real
		cmd := exec.Command(exe, "-n", fmt.Sprint(j[3]), "-o", "/dev/null", "sleep", fmt.Sprintf("%.1f", float64(j[2]*unit)-0.3))
		cmd.Args[0] = "bsub"
		cmd.Env = append(os.Environ(), "LSF_ENVDIR="+c.EnvDir, "BASALT_HOST=host1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("bsub: %v: %s", err, out)
		}
		var id int64
		if _, err := fmt.Sscanf(string(out), "Job <%d>", &id); err != nil {
			t.Fatalf("bsub said %q", out)
		}
		ids[id] = int64(j[0])
	}
	logdir := filepath.Join(filepath.Dir(c.EnvDir), "work", c.Opts.Cluster, "logdir")
	var recs []*eventlog.AcctResult
	deadline := time.Now().Add(30 * time.Second)
	for {
		r, err := eventlog.ReadAcct(ctx, &eventlog.AcctQuery{Dir: logdir})
		if err == nil && len(r.Jobs) >= len(fidelitySlice) {
			recs = append(recs, r)
			break
		}
		if time.Now().After(deadline) {
			n := 0
			if r != nil {
				n = len(r.Jobs)
			}
			cmd := exec.Command(exe, "-a", "-w")
			cmd.Args[0] = "bjobs"
			cmd.Env = append(os.Environ(), "LSF_ENVDIR="+c.EnvDir, "BASALT_HOST=host1")
			out, _ := cmd.CombinedOutput()
			t.Fatalf("%d jobs finished in %s (%v):\n%s", n, logdir, err, out)
		}
		time.Sleep(500 * time.Millisecond) // the cluster's jobs run in real time
	}
	// The cluster's own lsb.acct replays too (its run times are the sleeps'
	// plus the processes' start and end).
	aw, err := sim.ReadAcct(ctx, filepath.Join(logdir, "lsb.acct"))
	if err != nil || len(aw.Problems) > 0 || len(aw.Jobs) != len(fidelitySlice) {
		t.Fatalf("lsb.acct as a workload: %v %v, %d jobs", err, aw.Problems, len(aw.Jobs))
	}
	ares, err := sim.Run(ctx, aw, sim.Options{Config: cfg, Slots: 2})
	if err != nil || len(ares.Problems) > 0 || sim.Summarize(ares, "").Jobs != len(fidelitySlice) {
		t.Fatalf("lsb.acct replay: %v %v", err, ares.Problems)
	}
	type start struct {
		job       int64
		real, sim int64
	}
	var starts []start
	for _, j := range recs[0].Jobs {
		tj, ok := ids[j.JobID]
		if !ok {
			continue
		}
		starts = append(starts, start{tj, j.StartTime - t0.Unix(), simStart[tj]})
	}
	if len(starts) != len(fidelitySlice) {
		t.Fatalf("%d jobs in lsb.acct, want %d", len(starts), len(fidelitySlice))
	}
	byReal := append([]start(nil), starts...)
	sort.SliceStable(byReal, func(i, j int) bool {
		if byReal[i].real != byReal[j].real {
			return byReal[i].real < byReal[j].real
		}
		return byReal[i].job < byReal[j].job
	})
	bySim := append([]start(nil), starts...)
	sort.SliceStable(bySim, func(i, j int) bool {
		if bySim[i].sim != bySim[j].sim {
			return bySim[i].sim < bySim[j].sim
		}
		return bySim[i].job < bySim[j].job
	})
	for i := range byReal {
		t.Logf("job %2d: real start %3d s, simulated %3d s", byReal[i].job, byReal[i].real, byReal[i].sim)
		if d := byReal[i].real - byReal[i].sim; d < -1 || d > 1 {
			t.Errorf("job %d started at %d s on the cluster, %d s in the simulator", byReal[i].job, byReal[i].real, byReal[i].sim)
		}
		if byReal[i].job != bySim[i].job {
			t.Errorf("dispatch %d: job %d on the cluster, job %d in the simulator", i+1, byReal[i].job, bySim[i].job)
		}
	}
}
