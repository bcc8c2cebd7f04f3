package sched

import (
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
)

func addRsv(h *harness, id string, typ api.RsvType, begin, end time.Time, hosts ...*api.RsvHost) {
	h.apply(&api.Event{User: "root", Rsv: &api.EvRsv{Op: api.RsvAdd, ID: id, Type: typ, Users: []string{"alice"}, Creator: "root",
		Hosts: hosts, Begin: begin.Unix(), End: end.Unix()}})
}

func inRsv(id string) func(*api.EvJobNew) { return func(n *api.EvJobNew) { n.Spec.Reservation = id } }

// TestRsvHoldsSlots: during its window a reservation's slots on host1 are
// kept from other jobs, which fill host2 and then wait; the reservation's
// jobs run only on host1 and only as many as its slots; before the window
// they wait for it (85) and an unknown reservation's job waits for good
// (86).
func TestRsvHoldsSlots(t *testing.T) {
	h := newHarness(t, clusterSpec{hosts: 2, mxj: 2})
	addRsv(h, "alice#0", api.RsvUser, h.now.Add(time.Hour), h.now.Add(2*time.Hour), &api.RsvHost{Host: "host1", Slots: 2})
	early := h.submit("alice", "normal", inRsv("alice#0"))
	gone := h.submit("alice", "normal", inRsv("nope#0"))
	p := h.run()
	if got := dispatches(p); got != "" {
		t.Fatalf("before the window: dispatched %q", got)
	}
	if got := reasons(p, early); got != "85:0" {
		t.Errorf("job of an inactive reservation: reasons %q, want 85:0", got)
	}
	if got := reasons(p, gone); got != "86:0" {
		t.Errorf("job of a missing reservation: reasons %q, want 86:0", got)
	}
	if p.NextWake.IsZero() || !p.NextWake.Equal(h.now.Add(time.Hour)) {
		t.Errorf("next wake %v, want the window's begin %v", p.NextWake, h.now.Add(time.Hour))
	}

	h.now = h.now.Add(90 * time.Minute)
	other := []int64{h.submit("bob", "normal"), h.submit("bob", "normal"), h.submit("bob", "normal")}
	third := h.submit("alice", "normal", inRsv("alice#0"))
	p = h.run()
	if got, want := dispatches(p), "1@host1:1 3@host2:1 4@host2:1 6@host1:1"; got != want {
		t.Fatalf("in the window: dispatched %q, want %q", got, want)
	}
	// host1 keeps its 2 slots for the reservation: 1345 there, host2 full.
	if got, want := reasons(p, other[2]), "1305:1 1345:1"; got != want {
		t.Errorf("job kept off the reserved host: reasons %q, want %q", got, want)
	}
	_ = third
	// A fourth job of the reservation finds its slots used (87).
	fourth := h.submit("alice", "normal", inRsv("alice#0"))
	p = h.run()
	if got := dispatches(p); got != "" {
		t.Fatalf("full reservation: dispatched %q", got)
	}
	if got := reasons(p, fourth); got != "87:0" {
		t.Errorf("job of a full reservation: reasons %q, want 87:0", got)
	}
	// Once the reservation's job ends, its slot goes to its next job,
	// not to bob's.
	h.finish(early)
	p = h.run()
	if got, want := dispatches(p), "7@host1:1"; got != want {
		t.Fatalf("after a reservation job ends: dispatched %q, want %q (reasons 7: %q, 5: %q)", got, want, reasons(p, fourth), reasons(p, other[2]))
	}
}

// TestRsvSystem: a system reservation keeps every job off its host.
func TestRsvSystem(t *testing.T) {
	h := newHarness(t, clusterSpec{hosts: 2, mxj: 2})
	addRsv(h, "system#0", api.RsvSystem, h.now, h.now.Add(time.Hour), &api.RsvHost{Host: "host1", Slots: 2})
	for range 3 {
		h.submit("bob", "normal")
	}
	p := h.run()
	if got, want := dispatches(p), "1@host2:1 2@host2:1"; got != want {
		t.Fatalf("dispatched %q, want %q", got, want)
	}
	if got, want := reasons(p, 3), "1305:1 1345:1"; got != want {
		t.Errorf("job 3: reasons %q, want %q", got, want)
	}
	// After the window the host is free again.
	h.now = h.now.Add(time.Hour)
	if got, want := dispatches(h.run()), "3@host1:1"; got != want {
		t.Fatalf("after the window: dispatched %q, want %q", got, want)
	}
}

// TestRsvParallelOutside: a parallel job not of a reservation may use a
// reserved host only if all its slots fit beside the unused reserved ones.
func TestRsvParallelOutside(t *testing.T) {
	h := newHarness(t, clusterSpec{hosts: 1, mxj: 4})
	addRsv(h, "alice#0", api.RsvUser, h.now, h.now.Add(time.Hour), &api.RsvHost{Host: "host1", Slots: 1})
	big := h.submit("bob", "normal", slots(4))
	fits := h.submit("bob", "normal", slots(3))
	if got, want := dispatches(h.run()), "2@host1:3"; got != want {
		t.Fatalf("dispatched %q, want %q (job %d must wait)", got, want, big)
	}
	_ = fits
}

// TestRsvOthersSlots: a job of one reservation does not take the slot
// another reservation holds on the same host, even when a job that
// started before the windows fills the rest of the host.
func TestRsvOthersSlots(t *testing.T) {
	h := newHarness(t, clusterSpec{hosts: 1, mxj: 2})
	early := h.submit("bob", "normal")
	if got := dispatches(h.run()); got != "1@host1:1" {
		t.Fatalf("before the reservations: dispatched %q", got)
	}
	addRsv(h, "alice#0", api.RsvUser, h.now, h.now.Add(time.Hour), &api.RsvHost{Host: "host1", Slots: 1})
	addRsv(h, "alice#1", api.RsvUser, h.now, h.now.Add(time.Hour), &api.RsvHost{Host: "host1", Slots: 1})
	j := h.submit("alice", "normal", inRsv("alice#0"))
	p := h.run()
	if got := dispatches(p); got != "" {
		t.Fatalf("dispatched %q into another reservation's slot", got)
	}
	if got, want := reasons(p, j), "1345:1"; got != want {
		t.Errorf("reasons %q, want %q", got, want)
	}
	h.finish(early)
	if got, want := dispatches(h.run()), "2@host1:1"; got != want {
		t.Fatalf("after the early job: dispatched %q, want %q", got, want)
	}
}
