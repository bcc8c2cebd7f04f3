package lim

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/basalt-lsf/basalt/api"
)

// announceConcurrency bounds the calls of one announcement in flight.
const announceConcurrency = 32

// announce tells every other LIM of the cluster at once what this LIM's
// master now is, as LSF's new master LIM announces itself: called (loop
// goroutine) when this LIM becomes or stops being master, so the others
// look again (election.Heard) instead of waiting for their next round or
// load report. One LIM.Ping per host, concurrent, each bounded by
// PROBE_TIMEOUT; the master sent is the current one at each call, and a
// newer announcement cancels the one under way.
func (l *LIM) announce(ctx context.Context) {
	if l.announcing != nil {
		l.announcing()
	}
	var hosts []string
	for _, h := range l.m.hosts {
		if h.Server && h.Name != l.host {
			hosts = append(hosts, h.Name)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	l.announcing = cancel
	go func() {
		defer cancel()
		t0 := l.clk.Now()
		sem := make(chan struct{}, announceConcurrency)
		var wg sync.WaitGroup
		var failed atomic.Int32
		for _, h := range hosts {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
			}
			if ctx.Err() != nil {
				break
			}
			wg.Go(func() {
				defer func() { <-sem }()
				cctx, cancel := context.WithTimeout(ctx, l.probeTimeout)
				defer cancel()
				var r api.PingReply
				if err := l.peers.tell(cctx, h, api.LIMPing, &api.PingRequest{From: l.host, Master: l.elect.Master()}, &r); err != nil {
					failed.Add(1)
				}
			})
		}
		wg.Wait()
		if ctx.Err() == nil {
			l.log.Info(fmt.Sprintf("master %q announced to %d LIMs (%d did not answer) in %v",
				l.elect.Master(), len(hosts), failed.Load(), l.clk.Now().Sub(t0).Round(time.Millisecond)))
		}
	}()
}
