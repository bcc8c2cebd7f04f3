package sim

import (
	"bufio"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"hash"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/internal/mbd/sched"
)

var updateGolden = flag.Bool("sim.update-golden", false, "rewrite testdata/decisions.golden from this code's decisions")

// goldenTraces are the first 1,500 jobs of the three traces of issue 26
// (testdata/*-1500.swf.gz).
var goldenTraces = []string{"RICC-2010-2-1500", "lublin_256-1500", "NASA-iPSC-1993-3.1-cln-1500"}

// TestDecisionsGolden replays slices of the three traces under three
// policies and compares a digest of every decision to the one recorded in
// testdata/decisions.golden (computed before the scheduler's speed work):
// each pass's dispatches (job, queue, hosts and slots, backfill, run
// limit, victims), preemptions and resumptions in order with their
// virtual time, then the simulated SWF output. A change of the
// scheduler's or the driver's speed must leave it unchanged; a change
// meant to alter decisions rewrites it with -sim.update-golden and says so.
func TestDecisionsGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("replays 13,500 jobs")
	}
	want := map[string]string{}
	gp := filepath.Join("testdata", "decisions.golden")
	if b, err := os.ReadFile(gp); err == nil {
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if f := strings.Fields(l); len(f) == 2 {
				want[f[0]] = f[1]
			}
		}
	} else if !*updateGolden {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, tr := range goldenTraces {
		w := readGz(t, filepath.Join("testdata", tr+".swf.gz"))
		for _, pol := range []string{"firstfit", "backfill", "fairshare"} {
			name := tr + "/" + pol
			got[name] = decisionDigest(t, w, pol)
			if !*updateGolden && got[name] != want[name] {
				t.Errorf("%s: decisions digest %s, want %s", name, got[name], want[name])
			}
		}
	}
	if *updateGolden {
		keys := make([]string, 0, len(got))
		for k := range got {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		for _, k := range keys {
			fmt.Fprintf(&b, "%s %s\n", k, got[k])
		}
		if err := os.WriteFile(gp, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readGz(t *testing.T, path string) *Workload {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	zr, err := gzip.NewReader(fh)
	if err != nil {
		t.Fatal(err)
	}
	w, err := ReadSWF(bufio.NewReader(zr))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// decisionDigest replays w under policy on the trace's MaxNodes hosts.
func decisionDigest(t *testing.T, w *Workload, policy string) string {
	t.Helper()
	slots := 1
	if w.MaxNodes > 0 && w.MaxProcs%w.MaxNodes == 0 && w.MaxProcs > w.MaxNodes {
		slots = w.MaxProcs / w.MaxNodes
	}
	env, err := WriteDefault(t.TempDir(), w.MaxNodes, slots, policy)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(context.Background(), env, time.Unix(w.UnixStart, 0))
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	opts := Options{Config: cfg, Slots: slots, observe: func(now int64, plan *sched.Plan) { hashPlan(h, now, plan) }}
	res, err := Run(context.Background(), w, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteSWF(h, w.Header, res); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

func hashPlan(h hash.Hash, now int64, plan *sched.Plan) {
	for _, d := range plan.Dispatches {
		fmt.Fprintf(h, "%d D %v %s %v %v", now, d.Key, d.Queue, d.Backfill, d.RunLimit)
		for _, eh := range d.Hosts {
			fmt.Fprintf(h, " %s:%d", eh.Host, eh.Slots)
		}
		fmt.Fprintf(h, " %v\n", d.Preempt)
	}
	for _, p := range plan.Preemptions {
		fmt.Fprintf(h, "%d P %v %v\n", now, p.Key, p.Terminate)
	}
	for _, r := range plan.Resumes {
		fmt.Fprintf(h, "%d R %v\n", now, r.Key)
	}
}

var printDigest = flag.Bool("sim.digest", false, "TestDigestOf prints the decisions digest of -sim.trace (first -sim.jobs jobs) under -sim.policy")

// TestDigestOf prints the decisions digest of any trace slice, to compare
// two versions of the scheduler beyond the golden slices:
//
//	go test -run DigestOf ./internal/sim -sim.digest -sim.trace PATH -sim.jobs N -sim.policy P
func TestDigestOf(t *testing.T) {
	if !*printDigest {
		t.Skip("-sim.digest not set")
	}
	w := readGz(t, *benchTrace)
	if n := *benchJobs; n > 0 && n < len(w.Jobs) {
		w.Jobs = w.Jobs[:n]
	}
	t.Logf("%s %d jobs %s: %s", *benchTrace, len(w.Jobs), *benchPolicy, decisionDigest(t, w, *benchPolicy))
}
