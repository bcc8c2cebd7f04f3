package sched

import (
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
)

func TestFCFSFillsHostsInOrder(t *testing.T) {
	h := newHarness(t, clusterSpec{hosts: 3, mxj: 2})
	for i := 0; i < 8; i++ {
		h.submit("alice", "normal")
	}
	p := h.run()
	if got, want := dispatches(p), "1@host1:1 2@host1:1 3@host2:1 4@host2:1 5@host3:1 6@host3:1"; got != want {
		t.Fatalf("dispatches = %s\nwant        %s", got, want)
	}
	if got := reasons(p, 7); got != "1305:3" {
		t.Fatalf("job 7 reasons = %s, want every host at its slot limit (1305:3)", got)
	}
	h.finish(3)
	if got := dispatches(h.run()); got != "7@host2:1" {
		t.Fatalf("after a finish: %s", got)
	}
}

func TestQueuePriorityOrder(t *testing.T) {
	h := newHarness(t, clusterSpec{hosts: 1, mxj: 2, queues: `
Begin Queue
QUEUE_NAME = normal
PRIORITY = 30
End Queue
Begin Queue
QUEUE_NAME = priority
PRIORITY = 43
End Queue
Begin Queue
QUEUE_NAME = idle
PRIORITY = 20
End Queue
`})
	h.submit("alice", "idle")
	h.submit("alice", "normal")
	h.submit("alice", "priority")
	h.submit("alice", "normal")
	if got := dispatches(h.run()); got != "3@host1:1 2@host1:1" {
		t.Fatalf("dispatches = %s", got)
	}
}

func TestBypassOnlyWhenNoHostFits(t *testing.T) {
	h := newHarness(t, clusterSpec{hosts: 2, mxj: 2})
	h.submit("alice", "normal", slots(4), resReq("span[hosts=1]")) // no host has 4 slots
	h.submit("alice", "normal")
	p := h.run()
	if got := dispatches(p); got != "2@host1:1" {
		t.Fatalf("dispatches = %s", got)
	}
	if got := reasons(p, 1); got != "1303:2" {
		t.Fatalf("parallel job reasons = %s", got)
	}
}

func TestParallelPlacement(t *testing.T) {
	h := newHarness(t, clusterSpec{hosts: 3, mxj: 4})
	h.submit("alice", "normal", slots(6))                          // spread over hosts
	h.submit("alice", "normal", slots(3), resReq("span[hosts=1]")) // one host
	h.submit("alice", "normal", slots(2), resReq("span[ptile=1]")) // one per host
	if got, want := dispatches(h.run()), "1@host1:4,host2:2 2@host3:3 3@host2:1,host3:1"; got != want {
		t.Fatalf("dispatches = %s\nwant        %s", got, want)
	}
}

func TestAskedHostsAndGroups(t *testing.T) {
	h := newHarness(t, clusterSpec{hosts: 3, mxj: 1, groups: "grpA (host2 host3)\n"})
	h.submit("alice", "normal", asked("host3"))
	h.submit("alice", "normal", asked("grpA"))
	h.submit("alice", "normal", asked("host3"))
	p := h.run()
	if got := dispatches(p); got != "1@host3:1 2@host2:1" {
		t.Fatalf("dispatches = %s", got)
	}
	if got := reasons(p, 3); got != "1305:1 1311:2" {
		t.Fatalf("reasons = %s", got)
	}
	// A preference (+n) picks the preferred host first.
	h2 := newHarness(t, clusterSpec{hosts: 3, mxj: 1})
	h2.submit("alice", "normal", asked("host1", "host3+2"))
	if got := dispatches(h2.run()); got != "1@host3:1" {
		t.Fatalf("preference ignored: %s", got)
	}
}

func TestSelectAndExclusiveResources(t *testing.T) {
	h := newHarness(t, clusterSpec{hosts: 3, mxj: 2})
	h.submit("alice", "normal", resReq("select[fs]"))
	h.submit("alice", "normal", resReq("select[maxmem > 100000]"))
	p := h.run()
	if got := dispatches(p); got != "1@host3:1" {
		t.Fatalf("dispatches = %s", got)
	}
	if got := reasons(p, 2); got != "1001:3" {
		t.Fatalf("reasons = %s", got)
	}
}

func TestTypeLocalDefault(t *testing.T) {
	h := newHarness(t, clusterSpec{hosts: 2, mxj: 1, types: []string{"LINUX", "X86_64"}})
	// Submitted from host1 (LINUX): a job without a type runs on LINUX
	// hosts only; type==any lifts that.
	h.submit("alice", "normal")
	h.submit("alice", "normal")
	h.submit("alice", "normal", resReq("type==any"))
	p := h.run()
	if got := dispatches(p); got != "1@host1:1 3@host2:1" {
		t.Fatalf("dispatches = %s", got)
	}
}

func TestDependencies(t *testing.T) {
	h := newHarness(t, clusterSpec{hosts: 1, mxj: 4})
	a := h.submit("alice", "normal")
	b := h.submit("alice", "normal", func(n *api.EvJobNew) { n.Spec.Dependency = "done(1)" })
	c := h.submit("alice", "normal", func(n *api.EvJobNew) { n.Spec.Dependency = `ended("j1") && !done(99)` })
	d := h.submit("bob", "normal", func(n *api.EvJobNew) { n.Spec.Dependency = "done(j1)" }) // bob has no job j1
	p := h.run()
	if got := dispatches(p); got != "1@host1:1" {
		t.Fatalf("first pass: %s", got)
	}
	if reasons(p, b) != "3:0" || reasons(p, c) != "3:0" || reasons(p, d) != "4:0" {
		t.Fatalf("reasons: b=%s c=%s d=%s", reasons(p, b), reasons(p, c), reasons(p, d))
	}
	h.apply(&api.Event{JobStatus: &api.EvJobStatus{JobID: a, State: api.StateExit, ExitStatus: 1 << 8}})
	p = h.run()
	if got := dispatches(p); got != "3@host1:1" {
		t.Fatalf("after job 1 exited: %s", got)
	}
	if reasons(p, b) != "4:0" {
		t.Fatalf("done(1) after an EXIT must never be satisfied: %s", reasons(p, b))
	}
}

func TestBeginTimeAndWake(t *testing.T) {
	h := newHarness(t, clusterSpec{hosts: 1, mxj: 4})
	at := h.now.Add(90 * time.Second)
	id := h.submit("alice", "normal", func(n *api.EvJobNew) { n.Spec.BeginTime = at.Unix() })
	p := h.run()
	if dispatches(p) != "" || reasons(p, id) != "2:0" || !p.NextWake.Equal(at) {
		t.Fatalf("before begin time: %q %s wake %v", dispatches(p), reasons(p, id), p.NextWake)
	}
	h.now = at
	if got := dispatches(h.run()); got != "1@host1:1" {
		t.Fatalf("at begin time: %s", got)
	}
}

func TestArrayLimit(t *testing.T) {
	h := newHarness(t, clusterSpec{hosts: 2, mxj: 4})
	h.submit("alice", "normal", func(n *api.EvJobNew) { n.ArrayIndices = []int32{1, 2, 3, 4, 5}; n.ArrayLimit = 2 })
	p := h.run()
	if got := dispatches(p); got != "1[1]@host1:1 1[2]@host1:1" {
		t.Fatalf("dispatches = %s", got)
	}
}

func TestSlotLimits(t *testing.T) {
	h := newHarness(t, clusterSpec{hosts: 2, mxj: 4, lhosts: "host2 4 1\n", queues: `
Begin Queue
QUEUE_NAME = normal
PRIORITY = 30
QJOB_LIMIT = 5
UJOB_LIMIT = 3
HJOB_LIMIT = 2
End Queue
`})
	for i := 0; i < 4; i++ {
		h.submit("alice", "normal")
	}
	for i := 0; i < 3; i++ {
		h.submit("bob", "normal")
	}
	p := h.run()
	// HJOB_LIMIT 2 per host; JL/U 1 on host2; UJOB_LIMIT 3 per user; QJOB_LIMIT 5.
	if got, want := dispatches(p), "1@host1:1 2@host1:1 3@host2:1 5@host2:1"; got != want {
		t.Fatalf("dispatches = %s\nwant        %s", got, want)
	}
	if got := reasons(p, 4); got != "304:0" { // UJOB_LIMIT before any host
		t.Fatalf("alice's 4th job reasons = %s", got)
	}
}

func TestExclusiveJobs(t *testing.T) {
	h := newHarness(t, clusterSpec{hosts: 2, mxj: 4, queues: "Begin Queue\nQUEUE_NAME = normal\nEXCLUSIVE = Y\nEnd Queue\n"})
	h.submit("alice", "normal")
	h.submit("alice", "normal", func(n *api.EvJobNew) { n.Spec.Exclusive = true })
	h.submit("alice", "normal")
	p := h.run()
	if got := dispatches(p); got != "1@host1:1 2@host2:1 3@host1:1" {
		t.Fatalf("dispatches = %s", got)
	}
}

func TestUnusableHosts(t *testing.T) {
	h := newHarness(t, clusterSpec{hosts: 3, mxj: 4})
	h.host("host1").Status = "closed_Adm"
	h.host("host2").Status = "unavail"
	h.submit("alice", "normal", asked("host1", "host2"))
	p := h.run()
	if got := reasons(p, 1); got != "1301:1 1311:1 1315:1" {
		t.Fatalf("reasons = %s", got)
	}
}

func TestQueueInactiveAndWindows(t *testing.T) {
	h := newHarness(t, clusterSpec{hosts: 1, mxj: 4, queues: `
Begin Queue
QUEUE_NAME = normal
End Queue
Begin Queue
QUEUE_NAME = night
RUN_WINDOW = 20:00-8:00
End Queue
`})
	h.submit("alice", "night")
	h.apply(&api.Event{QueueCtrl: &api.EvQueueCtrl{Queue: "normal", Op: api.QueueInactivate}})
	h.submit("alice", "normal")
	p := h.run()
	if dispatches(p) != "" || reasons(p, 1) != "302:0" || reasons(p, 2) != "301:0" {
		t.Fatalf("dispatches %q reasons %s %s", dispatches(p), reasons(p, 1), reasons(p, 2))
	}
	if want := time.Date(2026, 11, 23, 20, 0, 0, 0, time.UTC); !p.NextWake.Equal(want) {
		t.Fatalf("wake = %v, want %v", p.NextWake, want)
	}
}

func TestJobAcceptInterval(t *testing.T) {
	h := newHarness(t, clusterSpec{hosts: 2, mxj: 4, params: "JOB_ACCEPT_INTERVAL = 1\n"})
	for i := 0; i < 3; i++ {
		h.submit("alice", "normal")
	}
	p := h.run()
	if got := dispatches(p); got != "1@host1:1 2@host2:1" {
		t.Fatalf("one job per host per turn: %s", got)
	}
	if reasons(p, 3) != "1314:2" {
		t.Fatalf("reasons = %s", reasons(p, 3))
	}
}

// TestDispatchCarriesEffectiveResReq: a dispatch carries the job's
// requirement as scheduled: merged with the queue's RES_REQ (select ANDed,
// the job's rusage), the default type rule and order written out.
func TestDispatchCarriesEffectiveResReq(t *testing.T) {
	h := newHarness(t, clusterSpec{hosts: 1, mxj: 2,
		queues: "Begin Queue\nQUEUE_NAME = normal\nPRIORITY = 30\nRES_REQ = select[mem > 10] rusage[mem=10]\nEnd Queue\n"})
	h.submit("alice", "normal", resReq("rusage[mem=5]"))
	h.submit("alice", "normal")
	plan := h.run()
	if len(plan.Dispatches) != 2 {
		t.Fatalf("dispatches %q", dispatches(plan))
	}
	for i, want := range []string{
		"select[(mem > 10) && (type == local)] order[r15s:pg] rusage[mem=5.00]",
		"select[(mem > 10) && (type == local)] order[r15s:pg] rusage[mem=10.00]",
	} {
		if got := plan.Dispatches[i].EffectiveResReq; got != want {
			t.Errorf("job %s: effective requirement %q, want %q", plan.Dispatches[i].Key, got, want)
		}
	}
}
