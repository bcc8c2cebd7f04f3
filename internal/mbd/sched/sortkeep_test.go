package sched

import (
	"fmt"
	"testing"
)

// TestHostOrderFollowsLoad: the host order a pass keeps for the next ones
// (sortedBy) is dropped as soon as an order key's value changes, even when
// the host's values are changed in place.
func TestHostOrderFollowsLoad(t *testing.T) {
	h := newHarness(t, clusterSpec{hosts: 3, mxj: 4})
	tab := h.cfg.ResourceTable()
	r15s, ok := tab.Index("r15s")
	if !ok {
		t.Fatal("no r15s")
	}
	setLoad := func(loads ...float64) {
		for i, l := range loads {
			h.hosts[i].Values.Num[r15s] = l
		}
	}
	for _, c := range []struct {
		loads []float64
		want  string
	}{
		{[]float64{0.5, 0.1, 0.9}, "host2"},
		{[]float64{0.5, 0.1, 0.9}, "host2"}, // the kept order
		{[]float64{0.2, 0.6, 0.9}, "host1"},
		{[]float64{0.7, 0.6, 0.3}, "host3"},
	} {
		setLoad(c.loads...)
		id := h.submit("u1", "normal", resReq("order[r15s]"))
		plan := h.run()
		if got := dispatches(plan); got != fmt.Sprintf("%d@%s:1", id, c.want) {
			t.Fatalf("loads %v: dispatches %q, want job %d on %s", c.loads, got, id, c.want)
		}
		h.finish(id)
	}
}
