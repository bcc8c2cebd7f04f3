package sched

import (
	"testing"

	"github.com/basalt-lsf/basalt/internal/mbd/state"
)

// The runs remembered against double counting are forgotten once their
// jobs left the state, and only once the map outgrows the state's jobs.
func TestPruneRecorded(t *testing.T) {
	s := New()
	s.mem.recorded = map[state.Key]int32{}
	v := state.New().Latest()
	for i := range 4096 {
		s.mem.recorded[state.Key{ID: int64(i + 1)}] = 1
	}
	s.pruneRecorded(v)
	if n := len(s.mem.recorded); n != 4096 {
		t.Fatalf("pruned below the threshold: %d runs left, want 4096", n)
	}
	s.mem.recorded[state.Key{ID: 5000}] = 1
	s.pruneRecorded(v)
	if n := len(s.mem.recorded); n != 0 {
		t.Fatalf("%d runs of cleaned jobs left, want 0", n)
	}
}
