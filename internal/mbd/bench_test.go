package mbd

import (
	"context"
	"fmt"
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
//
//	go test -run '^$' -bench Submit -benchtime 20000x ./internal/mbd/
func BenchmarkSubmit(b *testing.B) {
	for _, tc := range []struct{ clients, batch int }{{1, 1}, {8, 1}, {32, 1}, {8, 100}} {
		b.Run(fmt.Sprintf("clients=%d/batch=%d", tc.clients, tc.batch), func(b *testing.B) {
			m := startMbd(b, writeCluster(b, 1, 1))
			clients := make([]*rpc.Client, tc.clients)
			for i := range clients {
				c, err := rpc.Dial(context.Background(), m.addr, &api.ConnHello{User: "alice"})
				if err != nil {
					b.Fatal(err)
				}
				defer c.Close()
				clients[i] = c
			}
			spec := &api.JobSpec{Command: "/bin/true", FromHost: "host1", SubCwd: "/tmp",
				Env: []string{"PATH=/usr/bin:/bin", "HOME=/home/alice", "USER=alice", "SHELL=/bin/bash", "LANG=C.UTF-8"}}
			var left atomic.Int64
			left.Store(int64(b.N))
			b.ResetTimer()
			start := time.Now()
			var wg sync.WaitGroup
			for _, c := range clients {
				wg.Add(1)
				go func(c *rpc.Client) {
					defer wg.Done()
					req := &api.SubmitRequest{}
					for i := 0; i < tc.batch; i++ {
						req.Jobs = append(req.Jobs, spec)
					}
					for left.Add(-int64(tc.batch)) > -int64(tc.batch) {
						var reply api.SubmitReply
						if err := c.Call(context.Background(), "MBatchd.Submit", req, &reply); err != nil {
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
		})
	}
}
