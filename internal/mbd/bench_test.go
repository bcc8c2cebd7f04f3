package mbd

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

// BenchmarkSubmit measures durable submissions through the API: every
// acknowledged job is in the fsynced log. Sub-benchmarks vary the number of
// concurrent clients and the jobs per request (bsub -pack uses batches).
// With one job per request, throughput follows the number of requests in
// flight: each fsync acknowledges those that arrived during the previous one.
//
//	go test -run '^$' -bench Submit -benchtime 20000x ./internal/mbd/
func BenchmarkSubmit(b *testing.B) {
	for _, tc := range []struct{ clients, batch int }{{1, 1}, {8, 1}, {32, 1}, {128, 1}, {256, 1}, {8, 100}} {
		b.Run(fmt.Sprintf("clients=%d/batch=%d", tc.clients, tc.batch), func(b *testing.B) {
			m := startMbd(b, writeCluster(b, 1, 1))
			submitLoad(b, m.addr, tc.clients, tc.batch)
		})
	}
}

// BenchmarkSubmitReplicated is BenchmarkSubmit against one mbatchd and
// against three replicas of a replicated master (in this process, on
// this machine's one disk: each acknowledged entry is fsynced by the
// leader and at least one follower), side by side:
//
//	go test -run '^$' -bench SubmitReplicated -benchtime 20000x ./internal/mbd/
func BenchmarkSubmitReplicated(b *testing.B) {
	for _, tc := range []struct{ clients, batch int }{{8, 1}, {32, 1}, {8, 100}} {
		for _, n := range []int{1, 3} {
			b.Run(fmt.Sprintf("clients=%d/batch=%d/replicas=%d", tc.clients, tc.batch, n), func(b *testing.B) {
				if n == 1 {
					submitLoad(b, startMbd(b, writeCluster(b, 1, 1)).addr, tc.clients, tc.batch)
					return
				}
				dir := writeReplicated(b, 3, 3)
				var rs []*replica
				for _, h := range []string{"host1", "host2", "host3"} {
					rs = append(rs, startReplica(b, dir, h))
				}
				// host1 leads once handed the role (the first leader
				// may be any): measure after that.
				submitLoad(b, waitLeaderIs(b, 30*time.Second, "host1", rs...).addr, tc.clients, tc.batch)
			})
		}
	}
}

// submitLoad submits b.N jobs to the mbatchd at addr from clients
// connections, batch jobs per request, and reports jobs/s.
func submitLoad(b *testing.B, addr string, clients, batch int) {
	conns := make([]*rpc.Client, clients)
	for i := range conns {
		c, err := rpc.Dial(context.Background(), addr, &api.ConnHello{User: "alice"})
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		conns[i] = c
	}
	spec := &api.JobSpec{Command: "/bin/true", FromHost: "host1", SubCwd: "/tmp",
		Env: []string{"PATH=/usr/bin:/bin", "HOME=/home/alice", "USER=alice", "SHELL=/bin/bash", "LANG=C.UTF-8"}}
	var left atomic.Int64
	left.Store(int64(b.N))
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Add(1)
		go func(c *rpc.Client) {
			defer wg.Done()
			req := &api.SubmitRequest{}
			for i := 0; i < batch; i++ {
				req.Jobs = append(req.Jobs, spec)
			}
			for left.Add(-int64(batch)) > -int64(batch) {
				var reply api.SubmitReply
				if err := c.Call(context.Background(), api.MBatchdSubmit, req, &reply); err != nil {
					b.Error(err)
					return
				}
				for _, r := range reply.Results {
					if r.Status != nil && r.Status.Code != 0 {
						b.Errorf("submit: %s", r.Status.Message)
						return
					}
				}
			}
		}(c)
	}
	wg.Wait()
	el := time.Since(start)
	b.ReportMetric(float64(b.N)/el.Seconds(), "jobs/s")
}

var (
	memJobs    = flag.Int("mbd.jobs", 100000, "pending jobs in BenchmarkPendingMemory")
	memProfile = flag.String("mbd.heapprofile", "", "write a heap profile after BenchmarkPendingMemory's submissions")
)

// BenchmarkPendingMemory measures mbatchd's live heap per pending job: a
// running server (scheduler passes, published pending reasons, raft, event
// log writer) holding -mbd.jobs jobs submitted by bsub with a typical
// 40-variable environment, each job with its own command.
//
//	go test -run '^$' -bench PendingMemory -benchtime 1x ./internal/mbd/
func BenchmarkPendingMemory(b *testing.B) {
	for i := 0; i < b.N; i++ {
		m := startMbd(b, writeCluster(b, 4, 8))
		c := m.client("alice")
		env := []string{"PATH=/usr/bin:/bin", "HOME=/home/alice", "USER=alice", "SHELL=/bin/bash", "LANG=C.UTF-8"}
		for k := 0; k < 35; k++ {
			env = append(env, fmt.Sprintf("VAR%d=/some/typical/value/%d", k, k))
		}
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for left, n := *memJobs, 0; left > 0; left -= n {
			n = min(left, 1000)
			req := &api.SubmitRequest{}
			for k := 0; k < n; k++ {
				req.Jobs = append(req.Jobs, &api.JobSpec{Command: fmt.Sprintf("bwa mem ref.fa sample_%d.fq", left-k),
					FromHost: "host1", SubCwd: "/home/alice/project", OutFile: "logs/%J.out", ResReq: []string{"rusage[mem=4000]"},
					Env: env})
			}
			var reply api.SubmitReply
			if err := c.Call(context.Background(), api.MBatchdSubmit, req, &reply); err != nil {
				b.Fatal(err)
			}
		}
		// Let a scheduling pass publish the pending reasons of every job.
		time.Sleep(2 * time.Second)
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(*memJobs), "heap-B/job")
		if *memProfile != "" {
			f, err := os.Create(*memProfile)
			if err != nil {
				b.Fatal(err)
			}
			pprof.WriteHeapProfile(f)
			f.Close()
		}
		c.Close()
		m.stop()
	}
}

var killJobs = flag.Int("mbd.killjobs", 10000, "held jobs killed by one request in BenchmarkKillAll")

// BenchmarkKillAll measures `bkill 0` over -mbd.killjobs held jobs: one
// Control request, answered once every job's kill is durable. Beside it,
// the floor: the same number of JOB_SIGNAL events proposed in one call,
// which is what logging the kills costs at least.
//
//	go test -run '^$' -bench KillAll -benchtime 3x ./internal/mbd/
func BenchmarkKillAll(b *testing.B) {
	n := *killJobs
	submitHeld := func(m *testMbd) {
		c := m.client("alice")
		defer c.Close()
		for left := n; left > 0; left -= 1000 {
			req := &api.SubmitRequest{}
			for k := 0; k < min(left, 1000); k++ {
				req.Jobs = append(req.Jobs, &api.JobSpec{Command: "/bin/true", FromHost: "host1", SubCwd: "/tmp", Hold: true,
					Env: []string{"PATH=/usr/bin:/bin", "USER=alice"}})
			}
			var reply api.SubmitReply
			if err := c.Call(context.Background(), api.MBatchdSubmit, req, &reply); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run(fmt.Sprintf("bkill0/jobs=%d", n), func(b *testing.B) {
		var total time.Duration
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			m := startMbd(b, writeCluster(b, 1, 1))
			submitHeld(m)
			c := m.client("alice")
			b.StartTimer()
			start := time.Now()
			var reply api.ControlReply
			if err := c.Call(context.Background(), api.MBatchdControl, &api.ControlRequest{Op: api.OpKill, AllJobs: true}, &reply); err != nil {
				b.Fatal(err)
			}
			total += time.Since(start)
			b.StopTimer()
			if len(reply.Results) != n {
				b.Fatalf("%d results, want %d", len(reply.Results), n)
			}
			for _, r := range reply.Results {
				if r.Status != nil && r.Status.Code != 0 {
					b.Fatalf("kill: %s", r.Status.Message)
				}
			}
			c.Close()
			m.stop()
		}
		b.ReportMetric(total.Seconds()/float64(b.N), "s/request")
		b.ReportMetric(float64(n*b.N)/total.Seconds(), "jobs/s")
	})
	b.Run(fmt.Sprintf("floor-one-proposal/jobs=%d", n), func(b *testing.B) {
		var total time.Duration
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			m := startMbd(b, writeCluster(b, 1, 1))
			submitHeld(m)
			evs := make([]*api.Event, n)
			for k := range evs {
				evs[k] = &api.Event{User: "alice", JobSignal: &api.EvJobSignal{JobID: int64(k + 1), Action: int32(api.ActTerminate),
					Signal: "KILL", TermReason: "TERM_OWNER"}}
			}
			b.StartTimer()
			start := time.Now()
			if _, err := m.srv.prop.Propose(context.Background(), evs...); err != nil {
				b.Fatal(err)
			}
			total += time.Since(start)
			b.StopTimer()
			m.stop()
		}
		b.ReportMetric(total.Seconds()/float64(b.N), "s/request")
		b.ReportMetric(float64(n*b.N)/total.Seconds(), "jobs/s")
	})
}
