package sched

import (
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
)

// TestPreExecRetryWaitsForTheNextTurn: a job sent back by a failed
// pre-execution command keeps its reason and is dispatched again only
// MBD_SLEEP_TIME later; another job is not held.
func TestPreExecRetryWaitsForTheNextTurn(t *testing.T) {
	h := newHarness(t, clusterSpec{hosts: 1, mxj: 2, params: "MBD_SLEEP_TIME = 10\n"})
	id := h.submit("alice", "normal")
	if p := h.run(); dispatches(p) != "1@host1:1" {
		t.Fatalf("first dispatch: %q", dispatches(p))
	}
	h.apply(&api.Event{JobStatus: &api.EvJobStatus{JobID: id, State: api.StatePend, PendReason: PendJobPreExecFailed}})
	other := h.submit("bob", "normal")
	h.now = h.now.Add(9 * time.Second)
	p := h.run()
	if dispatches(p) != "2@host1:1" {
		t.Errorf("9 s later: dispatches %q, want only job %d", dispatches(p), other)
	}
	if got := reasons(p, id); got != "6:0" {
		t.Errorf("9 s later: reasons %q, want the pre-exec reason", got)
	}
	if p.NextWake.IsZero() || p.NextWake.After(h.now.Add(time.Second)) {
		t.Errorf("next wake %v, want by %v", p.NextWake, h.now.Add(time.Second))
	}
	h.now = h.now.Add(time.Second)
	if p := h.run(); dispatches(p) != "1@host1:1" {
		t.Errorf("10 s later: dispatches %q, want job %d again", dispatches(p), id)
	}
}
