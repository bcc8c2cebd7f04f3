package sched

import (
	"flag"
	"fmt"
	"math"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
	"github.com/basalt-lsf/basalt/internal/resreq"
)

// Benchmark sizes: hosts and pending jobs (comma-separated lists make a
// table). The defaults are small enough for CI; the scale target is
//
//	go test -run - -bench BenchmarkPass -cpu 1 -benchtime 3x ./internal/mbd/sched \
//	    -sched.hosts 1000,10000 -sched.jobs 10000,100000,1000000
var (
	benchHosts = flag.String("sched.hosts", "1000", "host counts of BenchmarkPass")
	benchJobs  = flag.String("sched.jobs", "10000", "pending job counts of BenchmarkPass")
)

func ints(s string) []int {
	var out []int
	for _, f := range strings.Split(s, ",") {
		var n int
		fmt.Sscan(f, &n)
		if n > 0 {
			out = append(out, n)
		}
	}
	return out
}

// benchQueues are 20 queues: fairshare ones, FCFS ones with job limits.
func benchQueues() string {
	var b strings.Builder
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&b, "Begin Queue\nQUEUE_NAME = q%02d\nPRIORITY = %d\n", i, 20+i%7)
		switch i % 4 {
		case 0:
			b.WriteString("FAIRSHARE = USER_SHARES[[default, 1]]\n")
		case 1:
			b.WriteString("UJOB_LIMIT = 5000\n")
		case 2:
			b.WriteString("QJOB_LIMIT = 20000\nHJOB_LIMIT = 6\n")
		}
		b.WriteString("End Queue\n")
	}
	return b.String()
}

type benchWorld struct {
	h     *harness
	hosts []*Host
}

// newBenchWorld makes nHosts hosts (MXJ 8) and nJobs pending jobs of 1,000
// requirement classes (select on memory and CPU factor, a third with a
// memory reservation, some parallel), 200 users, 20 queues.
func newBenchWorld(b *testing.B, nHosts, nJobs int) *benchWorld {
	h := newHarness(&testing.T{}, clusterSpec{hosts: 3, mxj: 8, queues: benchQueues(),
		users: "Begin User\nUSER_NAME MAX_JOBS JL/P\ndefault 4000 -\nEnd User\n"})
	tab := h.cfg.ResourceTable()
	w := &benchWorld{h: h}
	for i := 0; i < nHosts; i++ {
		vals := &resreq.Host{Num: make([]float64, tab.Len()), Str: make([]string, tab.Len())}
		for k := range vals.Num {
			if !tab.Def(k).Builtin {
				vals.Num[k] = math.NaN()
			}
		}
		vals.Num[resreq.IdxNcpus] = 8
		vals.Num[resreq.IdxMaxmem] = 64000
		vals.Num[resreq.IdxMem] = float64(8000 + (i%16)*4000)
		vals.Num[resreq.IdxCpuf] = float64(10 + i%5)
		vals.Num[resreq.IdxR15s] = float64(i%7) / 10
		vals.Num[resreq.IdxServer] = 1
		vals.Str[resreq.IdxType] = "LINUX"
		vals.Str[resreq.IdxModel] = "PC"
		name := fmt.Sprintf("host%d", i+1)
		vals.Str[resreq.IdxHname] = name
		vals.Str[resreq.IdxStatus] = "ok"
		bh := h.cfg.BatchHosts[0]
		w.hosts = append(w.hosts, &Host{Name: name, Cfg: bh, Status: "ok", NCPUs: 8, Type: "LINUX", Model: "PC", MaxSlots: 8, Values: vals})
	}
	const batch = 10000
	var evs []*api.Event
	flush := func() {
		if len(evs) > 0 {
			h.apply(evs...)
			evs = evs[:0]
		}
	}
	for i := 0; i < nJobs; i++ {
		class := i % 1000
		req := fmt.Sprintf("select[mem > %d && cpuf >= %d]", (class%40)*500, 10+class%3)
		if class%3 == 0 {
			req += fmt.Sprintf(" rusage[mem=%d]", 100+class%10*50)
		}
		n := int32(1)
		if class%50 == 7 {
			n = 4
		}
		h.next++
		evs = append(evs, &api.Event{User: fmt.Sprintf("user%03d", i%200), UID: 1000, Time: h.now.UnixNano(),
			JobNew: &api.EvJobNew{JobID: h.next, Queue: fmt.Sprintf("q%02d", (i/7)%20), Order: h.next << 20, NumProcs: n,
				Spec: &api.JobSpec{Command: "true", FromHost: "host1", ResReq: []string{req}, MinProcs: n}}})
		if len(evs) == batch {
			flush()
		}
	}
	flush()
	return w
}

func (w *benchWorld) pass(s *Scheduler) *Plan {
	var plan *Plan
	w.h.st.View(func(v *state.View) {
		plan = s.Schedule(&Input{Now: w.h.now, Config: w.h.cfg, Table: w.h.cfg.ResourceTable(), Hosts: w.hosts, View: v})
	})
	return plan
}

// fill starts the jobs of one pass (the cluster becomes full).
func (w *benchWorld) fill(plan *Plan) {
	var evs []*api.Event
	for _, d := range plan.Dispatches {
		evs = append(evs, &api.Event{JobStart: &api.EvJobStart{JobID: d.Key.ID, Index: d.Key.Index, ExecHosts: d.Hosts, ExecRusage: d.ExecRusage}})
		if len(evs) == 10000 {
			w.h.apply(evs...)
			evs = nil
		}
	}
	if len(evs) > 0 {
		w.h.apply(evs...)
	}
}

// BenchmarkPass measures one scheduling pass: "empty" places as many jobs
// as the empty cluster takes (placement throughput: jobs/s), "full" is the
// steady state of a full cluster (every pending job examined, reasons
// built).
func BenchmarkPass(b *testing.B) {
	for _, nh := range ints(*benchHosts) {
		for _, nj := range ints(*benchJobs) {
			var before runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			w := newBenchWorld(b, nh, nj)
			runtime.GC()
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			stateMB := float64(after.HeapAlloc-before.HeapAlloc) / (1 << 20)
			b.Run(fmt.Sprintf("hosts=%d/jobs=%d/empty", nh, nj), func(b *testing.B) {
				s := New()
				w.pass(s) // warm the caches
				b.ResetTimer()
				cpu0 := cpuTime()
				var placed int
				for i := 0; i < b.N; i++ {
					placed = len(w.pass(s).Dispatches)
				}
				b.StopTimer()
				b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
				per := b.Elapsed().Seconds() / float64(b.N)
				b.ReportMetric(float64(placed), "placed")
				b.ReportMetric(float64(placed)/per, "jobs/s")
				b.ReportMetric(float64(placed)/(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N)/1e9), "jobs/cpu-s")
				b.ReportMetric(stateMB, "stateMB")
			})
			s := New()
			w.fill(w.pass(s))
			// full: passes right after a full one pass the waiting jobs
			// by (fullPassEvery); full-all: each pass is fullPassEvery
			// later than the last, so it looks at every job.
			for _, every := range []bool{false, true} {
				name := "full"
				if every {
					name = "full-all"
				}
				b.Run(fmt.Sprintf("hosts=%d/jobs=%d/%s", nh, nj, name), func(b *testing.B) {
					benchFull(b, w, s, every)
				})
			}
		}
	}
}

func benchFull(b *testing.B, w *benchWorld, s *Scheduler, every bool) {
	w.pass(s)
	b.ResetTimer()
	cpu0 := cpuTime()
	var plan *Plan
	for i := 0; i < b.N; i++ {
		if every {
			w.h.now = w.h.now.Add(fullPassEvery)
		}
		plan = w.pass(s)
	}
	b.StopTimer()
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(plan.Reasons.Len()), "pending")
	// Live memory with the state, the scheduler's caches and the last plan
	// (reasons of every pending job) held.
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	b.ReportMetric(float64(m.HeapAlloc)/(1<<20), "liveMB")
	runtime.KeepAlive(plan)
}

// cpuTime is the process's user and system CPU time: on a shared machine
// it measures the work better than the wall clock (GC workers included).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
