package state

import (
	"bytes"
	"testing"

	"github.com/basalt-lsf/basalt/api"
)

// TestBackfillLimit: an interruptible backfill dispatch's run limit is the
// job's for that run (a regular dispatch after a requeue clears it) and
// survives a snapshot.
func TestBackfillLimit(t *testing.T) {
	l := newLogger(t)
	l.must(submit(1, "bg", "alice"), submit(2, "bg", "alice"))
	e := start(1, 0, "h1")
	e.JobStart.BackfillLimit = 540
	l.must(e, start(2, 0, "h2"))
	if got := l.job(1, 0).BackfillLimit; got != 540 {
		t.Fatalf("job 1 BackfillLimit = %d, want 540", got)
	}
	if got := l.job(2, 0).BackfillLimit; got != 0 {
		t.Fatalf("job 2 BackfillLimit = %d, want 0", got)
	}
	snap, idx := l.s.Snapshot()
	s2 := New()
	if err := s2.Restore(bytes.NewReader(snap), idx); err != nil {
		t.Fatal(err)
	}
	r := &logger{t: t, s: s2, idx: idx, now: l.now}
	if got := r.job(1, 0).BackfillLimit; got != 540 {
		t.Fatalf("restored BackfillLimit = %d, want 540", got)
	}
	// Requeued and dispatched regularly: no limit carried over.
	r.must(&api.Event{JobStatus: &api.EvJobStatus{JobID: 1, State: api.StatePend, RunCount: 1}})
	r.must(start(1, 0, "h1"))
	if got := r.job(1, 0).BackfillLimit; got != 0 {
		t.Fatalf("after a regular dispatch BackfillLimit = %d, want 0", got)
	}
}
