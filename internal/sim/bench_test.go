package sim

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"
)

var (
	benchTrace  = flag.String("sim.trace", "../../../shared/traces/lublin_256.swf.gz", "the SWF trace BenchmarkReplay replays")
	benchHosts  = flag.Int("sim.hosts", 0, "hosts (default: the trace's MaxNodes)")
	benchSlots  = flag.Int("sim.slots", 0, "slots per host (default: MaxProcs/MaxNodes, else 1)")
	benchPolicy = flag.String("sim.policy", "backfill", "policy of the default queue (see Policies)")
	benchJobs   = flag.Int("sim.jobs", 0, "replay only the first N jobs (0: all)")
	benchGap    = flag.Duration("sim.interval", 0, "least virtual time between passes (Options.Interval)")
	benchProg   = flag.Int("sim.progress", 0, "print (stderr) the jobs finished and the wall time every N jobs (0: never)")
)

// BenchmarkReplay replays a whole trace (-sim.trace) and reports the
// acceleration over real time (simulated seconds per wall second), the
// jobs per second and the peak live heap.
//
//	go test -run '^$' -bench Replay -benchtime 1x ./internal/sim -sim.trace PATH
func BenchmarkReplay(b *testing.B) {
	fh, err := os.Open(*benchTrace)
	if err != nil {
		b.Skipf("no trace: %v", err)
	}
	w, err := ReadSWF(fh)
	fh.Close()
	if err != nil {
		b.Fatal(err)
	}
	if n := *benchJobs; n > 0 && n < len(w.Jobs) {
		w.Jobs = w.Jobs[:n]
	}
	hosts, slots := *benchHosts, *benchSlots
	if hosts == 0 {
		hosts = w.MaxNodes
	}
	if slots == 0 {
		slots = 1
		if w.MaxNodes > 0 && w.MaxProcs%w.MaxNodes == 0 && w.MaxProcs > w.MaxNodes {
			slots = w.MaxProcs / w.MaxNodes
		}
	}
	env, err := WriteDefault(b.TempDir(), hosts, slots, *benchPolicy)
	if err != nil {
		b.Fatal(err)
	}
	cfg, err := LoadConfig(context.Background(), env, time.Unix(w.UnixStart, 0))
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var res *Result
	var peak uint64
	for range b.N {
		stop := make(chan struct{})
		done := make(chan uint64)
		go func() { // samples the live heap
			var m runtime.MemStats
			var p uint64
			t := time.NewTicker(200 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-stop:
					done <- p
					return
				case <-t.C:
					runtime.ReadMemStats(&m)
					p = max(p, m.HeapAlloc)
				}
			}
		}()
		opts := Options{Config: cfg, Slots: slots, Interval: *benchGap}
		if *benchProg > 0 {
			t0 := time.Now()
			opts.ProgressEvery = *benchProg
			opts.Progress = func(p Progress) {
				fmt.Fprintf(os.Stderr, "%d/%d jobs, %v simulated, %.1f s\n", p.Done, p.Total, p.Simulated, time.Since(t0).Seconds())
			}
		}
		res, err = Run(context.Background(), w, opts)
		close(stop)
		peak = max(peak, <-done)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	s := Summarize(res, "")
	per := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(float64(s.Makespan)/per, "x-realtime")
	b.ReportMetric(float64(len(res.Records))/per, "jobs/s")
	b.ReportMetric(float64(peak)/1e6, "peak-heap-MB")
	b.ReportMetric(float64(res.Passes), "passes")
}
