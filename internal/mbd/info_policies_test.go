package mbd

import (
	"slices"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/internal/config"
)

// TestQueuePolicies: the SCHEDULING POLICIES words of bqueues -l follow the
// queue's configuration, in LSF's order.
func TestQueuePolicies(t *testing.T) {
	for _, tc := range []struct {
		name string
		q    config.Queue
		want []string
	}{
		{"none", config.Queue{}, nil},
		{"backfill", config.Queue{Backfill: true}, []string{"BACKFILL"}},
		{"interruptible", config.Queue{Backfill: true, InterruptibleBackfill: 5 * time.Minute}, []string{"BACKFILL", "INTERRUPTIBLE_BACKFILL"}},
		{"preemptive exclusive", config.Queue{Exclusive: true, Preemption: config.Preemption{Preemptive: true}}, []string{"PREEMPTIVE", "EXCLUSIVE"}},
		{"fairshare preemptable", config.Queue{Fairshare: []config.ShareAssignment{{}}, Preemption: config.Preemption{Preemptable: true}}, []string{"FAIRSHARE", "PREEMPTABLE"}},
	} {
		if got := queuePolicies(&tc.q); !slices.Equal(got, tc.want) {
			t.Errorf("%s: policies %q, want %q", tc.name, got, tc.want)
		}
	}
}
