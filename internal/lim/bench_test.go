package lim

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/lim/limtest"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

// benchHosts is the simulated cluster size (BASALT_BENCH_HOSTS, default
// 10000).
func benchHosts() int {
	if n, err := strconv.Atoi(os.Getenv("BASALT_BENCH_HOSTS")); err == nil && n > 0 {
		return n
	}
	return 10000
}

func benchCluster(b *testing.B, n int) *limtest.Layout {
	rows := make([]string, n)
	for i := range rows {
		rows[i] = fmt.Sprintf("host%d ! ! 1 ()", i+1)
	}
	l, err := limtest.Write(limtest.Options{Dir: b.TempDir(), Hosts: 1, HostRows: rows,
		HostColumns: "HOSTNAME model type server RESOURCES", ExInterval: 15})
	if err != nil {
		b.Fatal(err)
	}
	return l
}

func benchReport(host string, seq uint64) *api.LoadReport {
	return &api.LoadReport{Host: host, Seq: seq, BootTime: 1700000000,
		Load:   []float64{0.5, 0.7, 0.9, 0.25, 1.5, 120, 2, 0, 15000, 2048, 3500},
		Ext:    []*api.IndexValue{{Name: "usr_tmp", Value: 30}},
		Static: &api.HostStatic{NCPUs: 8, NProcs: 1, NCores: 8, NThreads: 1, NDisks: 1, MaxMem: 32000, MaxSwp: 4096, MaxTmp: 50000, Type: "X86_64", Model: "x86_64"}}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkTableApply is the master's cost of recording one report, without
// the network.
func BenchmarkTableApply(b *testing.B) {
	n := benchHosts()
	l := benchCluster(b, n)
	base, err := config.LoadBase(context.Background(), config.Options{EnvDir: l.EnvDir, LocalHost: "host1"})
	if err != nil {
		b.Fatal(err)
	}
	t := newTable(newModel(base))
	reps := make([]*api.LoadReport, n)
	for i := range reps {
		reps[i] = benchReport(fmt.Sprintf("host%d", i+1), 1)
	}
	now := time.Unix(1700000000, 0)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if !t.apply(reps[i%n], now) {
			b.Fatal("unknown host")
		}
	}
}

// BenchmarkIngestReports runs a master LIM (in process, on a loopback
// port) and BASALT_BENCH_HOSTS simulated hosts sending LIM.Report over
// RPC from 64 connections. It reports the process's CPU time per report
// (master and senders together: an upper bound for the master) and per
// 15 s round of every host, and that round's share of one core.
func BenchmarkIngestReports(b *testing.B) {
	n := benchHosts()
	l := benchCluster(b, n)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ready := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	// The connections play the LIMs of every host.
	defer func(f func(auth.Identity, string) bool) { reportFrom = f }(reportFrom)
	reportFrom = func(id auth.Identity, _ string) bool { return id.Daemon == auth.KindLIM }
	go func() {
		done <- Run(ctx, Options{EnvDir: l.EnvDir, Host: "host1", Listener: ln, Ready: ready,
			Sampler: sampler(0.5), Auth: auth.Static{User: "bench", Daemon: auth.KindLIM}})
	}()
	<-ready
	defer func() { cancel(); <-done }()

	const conns = 64
	clients := make([]*rpc.Client, conns)
	for i := range clients {
		if clients[i], err = rpc.Dial(ctx, ln.Addr().String(), &api.ConnHello{User: "bench"}); err != nil {
			b.Fatal(err)
		}
		defer clients[i].Close()
	}
	// Wait until host1 has elected itself.
	for {
		var r api.ReportReply
		if err := clients[0].Call(ctx, api.LIMReport, benchReport("host2", 0), &r); err != nil {
			b.Fatal(err)
		}
		if r.Accepted {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	reps := make([]*api.LoadReport, n)
	for i := range reps {
		reps[i] = benchReport(fmt.Sprintf("host%d", i+1), 1)
	}
	var next atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	var wg sync.WaitGroup
	for c := 0; c < conns; c++ {
		wg.Add(1)
		go func(cl *rpc.Client) {
			defer wg.Done()
			var r api.ReportReply
			for {
				i := next.Add(1) - 1
				if i >= int64(b.N) {
					return
				}
				if err := cl.Call(ctx, api.LIMReport, reps[i%int64(n)], &r); err != nil || !r.Accepted {
					b.Errorf("report %d: %v accepted=%v", i, err, r.Accepted)
					return
				}
			}
		}(clients[c])
	}
	wg.Wait()
	b.StopTimer()
	cpu := cpuTime() - cpu0
	perReport := float64(cpu.Nanoseconds()) / float64(b.N)
	round := time.Duration(perReport * float64(n))
	b.ReportMetric(perReport, "cpu-ns/report")
	b.ReportMetric(float64(round.Microseconds())/1000, "cpu-ms/round")
	b.ReportMetric(100*round.Seconds()/15, "%core@15s")
}
