package mbd

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hashicorp/raft"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/clock"
)

// heldLog is an applier whose entries commit only when released; it
// records how many events each entry carried.
type heldLog struct {
	mu      sync.Mutex
	sizes   []int
	applied chan int // the size of each entry, as Apply is called
	release chan struct{}
}

func (l *heldLog) Apply(cmd []byte, _ time.Duration) raft.ApplyFuture {
	var e api.LogEntry
	if err := e.UnmarshalWire(cmd); err != nil {
		panic(err)
	}
	l.mu.Lock()
	l.sizes = append(l.sizes, len(e.Events))
	l.mu.Unlock()
	l.applied <- len(e.Events)
	return &heldFuture{release: l.release, n: len(e.Events)}
}

type heldFuture struct {
	release chan struct{}
	n       int
}

func (f *heldFuture) Error() error  { <-f.release; return nil }
func (f *heldFuture) Index() uint64 { return 1 }
func (f *heldFuture) Response() any { return applyResult{errs: make([]error, f.n)} }

// TestProposerGathersWhileFull: while every in-flight entry waits for the
// log, new proposals queue; when an entry commits, everything that queued
// goes into the next entry together (one fsync for all), not the first
// proposal alone.
func TestProposerGathersWhileFull(t *testing.T) {
	// In a bubble: in-process channels only, so synctest.Wait tells when
	// everything queued and the proposer is waiting, and time is fake.
	synctest.Test(t, func(t *testing.T) {
		l := &heldLog{applied: make(chan int, 100), release: make(chan struct{})}
		p := newProposer(l, clock.Real())
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go p.run(ctx)

		var wg sync.WaitGroup
		propose := func() {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := p.Propose(ctx, &api.Event{}); err != nil {
					t.Error(err)
				}
			}()
		}
		// Fill the pipeline: each proposal becomes its own entry.
		const inflight = 8
		for i := 0; i < inflight; i++ {
			propose()
			if n := <-l.applied; n != 1 {
				t.Fatalf("entry %d has %d events, want 1", i, n)
			}
		}
		// 20 more queue while the pipeline is full.
		const queued = 20
		for i := 0; i < queued; i++ {
			propose()
		}
		// Every goroutine of the bubble blocks: the proposals are queued, the
		// proposer holds the first, waiting for a slot.
		synctest.Wait()
		if len(p.in) != queued-1 {
			t.Fatalf("%d proposals queued, want %d (the proposer holds one)", len(p.in), queued-1)
		}
		// One entry commits: the next one carries all 20.
		l.release <- struct{}{}
		select {
		case n := <-l.applied:
			if n != queued {
				t.Fatalf("the entry after the full pipeline has %d events, want %d", n, queued)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no entry after a slot freed")
		}
		close(l.release)
		wg.Wait()
	})
}
