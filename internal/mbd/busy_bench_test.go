package mbd

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/mbd/sched"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
)

var (
	busyHosts = flag.Int("mbd.busy.hosts", 100, "hosts of BenchmarkBusyMaster")
	busyJobs  = flag.Int("mbd.busy.jobs", 10000, "pending jobs of BenchmarkBusyMaster")
	busyGap   = flag.Duration("mbd.busy.gap", time.Millisecond, "pause after each request of BenchmarkBusyMaster")
)

// BenchmarkBusyMaster measures what users wait for while scheduling passes
// run back to back over many pending jobs: the latency of a submission (one
// job, durable: through the submit handler, raft and the log's fsync, to
// the state) and of bjobs <id> (the jobs handler, one job by ID), b.N of
// each from two goroutines at once, each pausing -mbd.busy.gap after each
// request (so that the requests span passes), while a goroutine runs
// passes without a pause (its own Scheduler over the server's state, with
// the input schedLoop builds) besides mbatchd's own scheduling loop. Every
// host has an sbatchd session that never answers, so hosts are ok, the
// cluster fills and every pass looks at every pending job. It also reports
// the live heap and the resident set size that the pending jobs added to
// the started master (both after a GC that returns free memory to the OS).
//
//	go test -run '^$' -bench BusyMaster -benchtime 300x ./internal/mbd/ \
//	    -mbd.busy.hosts 10000 -mbd.busy.jobs 1000000 -mbd.busy.gap 10ms
func BenchmarkBusyMaster(b *testing.B) {
	dir := writeCluster(b, *busyHosts, 8)
	editBatchConf(b, dir, "lsb.params", func(c []byte) []byte { // IDs past a million
		return bytes.Replace(c, []byte("End Parameters"), []byte("MAX_JOBID = 99999999\nEnd Parameters"), 1)
	})
	m := startMbd(b, dir)
	srv := m.srv
	ctx := context.Background()
	cfg := srv.cfg.Current()
	for _, bh := range cfg.BatchHosts {
		srv.sess.add(&session{host: bh.Name, ncpus: 8, done: make(chan struct{}), welcomed: make(chan struct{})})
	}
	id, err := trustHello{}.Authenticate(ctx, nil, &api.ConnHello{User: "alice", Host: "host1"})
	if err != nil {
		b.Fatal(err)
	}
	env := []string{"PATH=/usr/bin:/bin", "HOME=/home/alice", "USER=alice", "SHELL=/bin/bash", "LANG=C.UTF-8"}
	for k := 0; k < 35; k++ {
		env = append(env, fmt.Sprintf("VAR%d=/some/typical/value/%d", k, k))
	}
	spec := func(n int) *api.JobSpec {
		return &api.JobSpec{Command: fmt.Sprintf("bwa mem ref.fa sample_%d.fq", n), FromHost: "host1",
			SubCwd: "/home/alice/project", OutFile: "logs/%J.out", ResReq: []string{"rusage[mem=4000]"}, Env: env}
	}
	submit := func(specs ...*api.JobSpec) ([]int64, error) {
		reply, err := srv.submit(ctx, id, &api.SubmitRequest{Jobs: specs})
		if err != nil {
			return nil, err
		}
		var ids []int64
		for _, r := range reply.Results {
			if r.Status != nil && r.Status.Code != 0 {
				return nil, fmt.Errorf("submit: %s", r.Status.Message)
			}
			ids = append(ids, r.JobID)
		}
		return ids, nil
	}
	debug.FreeOSMemory()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	rss0 := rssBytes()
	var ids []int64
	for left := *busyJobs; left > 0; {
		n := min(left, 1000)
		specs := make([]*api.JobSpec, n)
		for k := range specs {
			specs[k] = spec(left - k)
		}
		got, err := submit(specs...)
		if err != nil {
			b.Fatal(err)
		}
		ids = append(ids, got...)
		left -= n
	}

	// Passes back to back.
	var passes, passNanos atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		sc := sched.New()
		for {
			select {
			case <-stop:
				return
			default:
			}
			t0 := time.Now()
			cfg := srv.cfg.Current()
			srv.st.View(func(v *state.View) {
				in := &sched.Input{Now: srv.clock.Now(), Config: cfg, Table: cfg.ResourceTable(), Hosts: srv.schedHosts(cfg, v),
					View: v, Strict: cfg.Conf.StrictResReq(), Unit: resreqUnit(cfg)}
				srv.policyInput(in)
				sc.Schedule(in)
			})
			passNanos.Add(int64(time.Since(t0)))
			passes.Add(1)
		}
	}()
	defer func() {
		close(stop)
		wg.Wait()
	}()
	for passes.Load() < 2 {
		time.Sleep(10 * time.Millisecond)
	}
	debug.FreeOSMemory()
	runtime.ReadMemStats(&after)
	rss1 := rssBytes()
	var pending, running int
	srv.st.View(func(v *state.View) { pending, running = v.Count(api.StatePend), v.Count(api.StateRun) })

	sub := make([]time.Duration, 0, b.N)
	query := make([]time.Duration, 0, b.N)
	p0, pn0 := passes.Load(), passNanos.Load()
	b.ResetTimer()
	var clients sync.WaitGroup
	clients.Add(2)
	go func() {
		defer clients.Done()
		for i := 0; i < b.N; i++ {
			t0 := time.Now()
			if _, err := submit(spec(i)); err != nil {
				b.Error(err)
				return
			}
			sub = append(sub, time.Since(t0))
			time.Sleep(*busyGap)
		}
	}()
	go func() {
		defer clients.Done()
		for i := 0; i < b.N; i++ {
			k := ids[(i*7919)%len(ids)]
			t0 := time.Now()
			var got int
			err := srv.jobs(ctx, id, &api.JobsRequest{Jobs: []*api.JobRef{{JobID: k}}}, func(r *api.JobsReply) error {
				got += len(r.Jobs)
				return nil
			})
			query = append(query, time.Since(t0))
			if err != nil || got != 1 {
				b.Errorf("bjobs %d: %d records, %v", k, got, err)
				return
			}
			time.Sleep(*busyGap)
		}
	}()
	clients.Wait()
	b.StopTimer()
	np := passes.Load() - p0
	b.ReportMetric(pct(sub, 50), "submit-p50-ms")
	b.ReportMetric(pct(sub, 99), "submit-p99-ms")
	b.ReportMetric(pct(query, 50), "bjobs-p50-ms")
	b.ReportMetric(pct(query, 99), "bjobs-p99-ms")
	b.ReportMetric(float64(np), "passes")
	if np > 0 {
		b.ReportMetric(float64(passNanos.Load()-pn0)/float64(np)/1e6, "pass-ms")
	}
	b.ReportMetric(float64(pending), "pending")
	b.ReportMetric(float64(running), "running")
	n := float64(len(ids))
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/n, "heap-B/job")
	if rss0 > 0 && rss1 > 0 {
		b.ReportMetric(float64(rss1-rss0)/n, "rss-B/job")
	}
}

// pct is the p-th percentile of ds in milliseconds.
func pct(ds []time.Duration, p int) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[min(len(s)-1, len(s)*p/100)]) / 1e6
}

// rssBytes is the process's resident set size (0 where /proc is not).
func rssBytes() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
