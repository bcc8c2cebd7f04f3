package mbd

import (
	"context"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
)

// TestReportQueueBounded: a session's report queue holds at most
// maxQueuedReports; past it put waits until the reporter takes a batch, or
// gives up when the session ends.
func TestReportQueueBounded(t *testing.T) {
	q := &reportQueue{wake: make(chan struct{}, 1), space: make(chan struct{}, 1)}
	ctx := context.Background()
	for i := 0; i < maxQueuedReports; i++ {
		if !q.put(ctx, &api.JobStatusReport{JobID: int64(i)}) {
			t.Fatalf("put %d refused below the bound", i)
		}
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if q.put(short, &api.JobStatusReport{}) {
		t.Fatal("put past the bound did not wait")
	}
	done := make(chan bool)
	go func() { done <- q.put(ctx, &api.JobStatusReport{JobID: -1}) }()
	if rs := q.take(); len(rs) != maxReportBatch {
		t.Fatalf("took %d", len(rs))
	}
	if !<-done {
		t.Fatal("put after a take failed")
	}
	n := 0
	for rs := q.take(); len(rs) > 0; rs = q.take() {
		n += len(rs)
	}
	if n != maxQueuedReports-maxReportBatch+1 {
		t.Fatalf("%d reports left, want %d", n, maxQueuedReports-maxReportBatch+1)
	}
}
