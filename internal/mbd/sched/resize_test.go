package sched

import (
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
)

// autoresizable submits -ar -n lo,hi.
func autoresizable(lo, hi int32) func(*api.EvJobNew) {
	return func(e *api.EvJobNew) {
		e.NumProcs, e.MaxProcs = lo, hi
		e.Spec.MinProcs, e.Spec.MaxProcs, e.Spec.AutoResizable = lo, hi, true
	}
}

// runResize schedules once, applies the dispatches and the resizes, and
// renders the resizes as "id+host:n,host:n ...".
func (h *harness) runResize() (*Plan, string) {
	h.t.Helper()
	plan := h.run()
	var out []string
	for _, r := range plan.Resizes {
		h.apply(&api.Event{JobResize: &api.EvJobResize{JobID: r.Key.ID, Index: r.Key.Index, Action: api.ResizeOpGrow,
			Hosts: r.Hosts, RunCount: r.RunCount}})
		var hs []string
		for _, eh := range r.Hosts {
			hs = append(hs, fmt.Sprintf("%s:%d", eh.Host, eh.Slots))
		}
		out = append(out, r.Key.String()+"+"+strings.Join(hs, ","))
	}
	return plan, strings.Join(out, " ")
}

// running records that a dispatched job's process started.
func (h *harness) running(id int64) {
	h.apply(&api.Event{JobExecute: &api.EvJobExecute{JobID: id, PID: 100, PGID: 100}})
}

func (h *harness) alloc(id int64) string {
	var hs []string
	h.st.View(func(v *state.View) {
		for _, eh := range v.Job(state.Key{ID: id}).ExecHosts {
			hs = append(hs, fmt.Sprintf("%s:%d", eh.Host, eh.Slots))
		}
	})
	return strings.Join(hs, ",")
}

// An autoresizable job starts with its minimum and grows toward its
// maximum as slots free, after the pending jobs of the pass, only on
// hosts its merged requirement selects.
func TestResizeGrowsTowardMax(t *testing.T) {
	h := newHarness(t, clusterSpec{hosts: 3, mxj: 2})
	a := h.submit("u1", "normal", autoresizable(1, 5), resReq("select[fs]"))
	b := h.submit("u1", "normal", autoresizable(1, 4))
	if p, rs := h.runResize(); dispatches(p) != "1@host3:1 2@host1:1" || rs != "" {
		t.Fatalf("first pass: %q, resizes %q", dispatches(p), rs)
	}
	// Dispatched, not yet started by sbatchd: no allocation request yet.
	if _, rs := h.runResize(); rs != "" {
		t.Fatalf("grew before the job started: %q", rs)
	}
	h.running(a)
	h.running(b)
	// A pending job comes first; then a (fs: host3 only) and b.
	c := h.submit("u2", "normal", slots(2))
	if p, rs := h.runResize(); dispatches(p) != "3@host1:1,host2:1" || rs != "1+host3:1 2+host2:1" {
		t.Fatalf("second pass: %q, resizes %q", dispatches(p), rs)
	}
	if got := h.alloc(a); got != "host3:2" {
		t.Fatalf("a holds %s", got)
	}
	if got := h.alloc(b); got != "host1:1,host2:1" {
		t.Fatalf("b holds %s", got)
	}
	// Full: nothing more. c ends: b gets its slots (a cannot use them).
	if _, rs := h.runResize(); rs != "" {
		t.Fatalf("full cluster: resizes %q", rs)
	}
	h.finish(c)
	if _, rs := h.runResize(); rs != "2+host1:1,host2:1" {
		t.Fatalf("after c: resizes %q", rs)
	}
	if got := h.alloc(b); got != "host1:2,host2:2" {
		t.Fatalf("b holds %s", got)
	}
	// A suspended job does not grow; a cancelled request neither.
	h.finish(a)
	h.apply(&api.Event{JobStatus: &api.EvJobStatus{JobID: b, State: api.StateSSusp}})
	if _, rs := h.runResize(); rs != "" {
		t.Fatalf("suspended b grew: %q", rs)
	}
	h.apply(&api.Event{JobStatus: &api.EvJobStatus{JobID: b, State: api.StateRun}})
	h.apply(&api.Event{JobResize: &api.EvJobResize{JobID: b, Action: api.ResizeOpCancel}})
	if _, rs := h.runResize(); rs != "" {
		t.Fatalf("cancelled b grew: %q", rs)
	}
	// A bresize request asks for at least min: 3 cannot be had (2 free).
	h.apply(&api.Event{JobResize: &api.EvJobResize{JobID: b, Action: api.ResizeOpRequest, Min: 3, Max: 3}})
	if _, rs := h.runResize(); rs != "" {
		t.Fatalf("request 3,3 with 2 free: %q", rs)
	}
	h.apply(&api.Event{JobResize: &api.EvJobResize{JobID: b, Action: api.ResizeOpRequest, Min: 1, Max: 3}})
	if _, rs := h.runResize(); rs != "2+host3:2" {
		t.Fatalf("request 1,3 with 2 free: %q", rs)
	}
	var lo, hi int32
	h.st.View(func(v *state.View) { lo, hi = v.Job(state.Key{ID: b}).PendingResize() })
	if lo != 1 || hi != 1 {
		t.Fatalf("left of the request: %d,%d, want 1,1", lo, hi)
	}
}

// Queue limits counted in slots hold a request to what they allow.
func TestResizeRespectsQueueSlotLimit(t *testing.T) {
	h := newHarness(t, clusterSpec{hosts: 2, mxj: 4,
		queues: "Begin Queue\nQUEUE_NAME = normal\nPRIORITY = 30\nUJOB_LIMIT = 3\nEnd Queue\n"})
	a := h.submit("u1", "normal", autoresizable(1, 8))
	h.runResize()
	h.running(a)
	if _, rs := h.runResize(); rs != "1+host1:2" {
		t.Fatalf("UJOB_LIMIT 3: resizes %q", rs)
	}
	if _, rs := h.runResize(); rs != "" {
		t.Fatalf("at UJOB_LIMIT: resizes %q", rs)
	}
}

// Slots a preemptable job grew by count as preemptable (the seeds' note:
// resizing from 2 to 4 slots makes 4 preemptable slots), and a job chosen
// as a victim is not grown in the same pass.
func TestResizePreemptionCounters(t *testing.T) {
	h := newHarness(t, clusterSpec{hosts: 1, mxj: 4, queues: "Begin Queue\nQUEUE_NAME = low\nPRIORITY = 20\nPREEMPTION = PREEMPTABLE\nEnd Queue\n" +
		"Begin Queue\nQUEUE_NAME = high\nPRIORITY = 40\nPREEMPTION = PREEMPTIVE[low]\nEnd Queue\n"})
	a := h.submit("u1", "low", autoresizable(2, 4))
	h.runResize()
	h.running(a)
	if _, rs := h.runResize(); rs != "1+host1:2" {
		t.Fatalf("grow: %q", rs)
	}
	b := h.submit("u2", "high", slots(4))
	p, rs := h.runResize()
	if len(p.Preemptions) != 1 || p.Preemptions[0].Key.ID != a || rs != "" {
		t.Fatalf("a 4-slot high job against a grown job: preemptions %v, dispatches %q, resizes %q", p.Preemptions, dispatches(p), rs)
	}
	_ = b
}

var propResizeReqs = []string{"", "select[mem > 1000]", "span[hosts=1]", "span[ptile=1]", "rusage[mem=2000]"}

// TestPropertyResize: with autoresizable jobs among the others, passes
// with and without the caches decide alike (grows included), no host runs
// more than MXJ counting the slots jobs grew by, a job grows only while
// running (its process started) and never past -n max.
func TestPropertyResize(t *testing.T) {
	grown := 0
	rapid.Check(t, func(rt *rapid.T) {
		cs := genCluster(rt)
		h := newHarness(t, cs)
		ref := New()
		ref.noCache = true
		nq := strings.Count(cs.queues, "Begin Queue")
		for step := 0; step < 8; step++ {
			propStep(rt, h, nq)
			for i := rapid.IntRange(0, 2).Draw(rt, "resizables"); i > 0; i-- {
				q := fmt.Sprintf("q%d", rapid.IntRange(0, nq-1).Draw(rt, "rqueue"))
				lo := int32(rapid.IntRange(1, 2).Draw(rt, "min"))
				hi := lo + int32(rapid.IntRange(0, 5).Draw(rt, "more"))
				r := propResizeReqs[rapid.IntRange(0, len(propResizeReqs)-1).Draw(rt, "rreq")]
				h.submit(fmt.Sprintf("u%d", rapid.IntRange(0, 2).Draw(rt, "ruser")), q, autoresizable(lo, hi), func(e *api.EvJobNew) {
					if r != "" {
						e.Spec.ResReq = []string{r}
					}
				})
			}
			// sbatchd reports the processes of some dispatched jobs.
			var starting []state.Key
			h.st.View(func(v *state.View) {
				v.Jobs(func(j *state.Job) bool {
					if j.State == api.StateRun && j.PID == 0 {
						starting = append(starting, j.Key)
					}
					return true
				})
			})
			for _, k := range starting {
				if rapid.Bool().Draw(rt, "executes") {
					h.apply(&api.Event{JobExecute: &api.EvJobExecute{JobID: k.ID, Index: k.Index, PID: 100}})
				}
			}
			var fast, slow *Plan
			h.st.View(func(v *state.View) {
				in := &Input{Now: h.now, Config: h.cfg, Table: h.cfg.ResourceTable(), Hosts: h.hosts, View: v}
				fast = h.s.Schedule(in)
				slow = ref.Schedule(in)
			})
			if a, b := decisions(fast)+resizes(fast), decisions(slow)+resizes(slow); a != b {
				rt.Fatalf("step %d: cached and uncached passes differ:\ncached   %s\nuncached %s", step, a, b)
			}
			h.st.View(func(v *state.View) {
				for _, r := range fast.Resizes {
					j := v.Job(r.Key)
					added := int32(0)
					for _, eh := range r.Hosts {
						added += eh.Slots
					}
					if j == nil || j.State != api.StateRun || j.PID == 0 || !j.Spec.AutoResizable || j.Slots()+added > j.MaxProcs {
						rt.Fatalf("grew %s by %d: %+v", r.Key, added, j)
					}
				}
			})
			withGrows := *fast
			withGrows.Dispatches = append([]Dispatch(nil), fast.Dispatches...)
			for _, r := range fast.Resizes {
				withGrows.Dispatches = append(withGrows.Dispatches, Dispatch{Key: r.Key, Hosts: r.Hosts})
			}
			checkInvariants(rt, h, &withGrows)
			grown += len(fast.Resizes)
			applyPlan(h, fast)
			for _, r := range fast.Resizes {
				h.apply(&api.Event{JobResize: &api.EvJobResize{JobID: r.Key.ID, Index: r.Key.Index, Action: api.ResizeOpGrow,
					Hosts: r.Hosts, RunCount: r.RunCount}})
			}
		}
	})
	if grown == 0 {
		t.Fatal("no job grew in any run: the property was not exercised")
	}
	t.Logf("%d grows", grown)
}

func resizes(p *Plan) string {
	var b strings.Builder
	for _, r := range p.Resizes {
		fmt.Fprintf(&b, "grow %s %s|", r.Key, hostsText(r.Hosts))
	}
	return b.String()
}

// A request stays within the queue's TASKLIMIT and lsb.resources' SLOTS,
// and a JOBS limit the running job already fills does not stop it.
func TestResizeLimits(t *testing.T) {
	h := newHarness(t, clusterSpec{hosts: 2, mxj: 4,
		queues:    "Begin Queue\nQUEUE_NAME = normal\nPRIORITY = 30\nTASKLIMIT = 6\nEnd Queue\n",
		resources: "Begin Limit\nUSERS = u1\nSLOTS = 5\nJOBS = 1\nEnd Limit\n"})
	a := h.submit("u1", "normal", autoresizable(1, 8))
	h.runResize()
	h.running(a)
	if _, rs := h.runResize(); rs != "1+host1:3,host2:1" {
		t.Fatalf("SLOTS 5: resizes %q", rs)
	}
	b := h.submit("u2", "normal", autoresizable(2, 8))
	h.runResize()
	h.running(b)
	if _, rs := h.runResize(); rs != "2+host2:1" {
		t.Fatalf("TASKLIMIT 6 and MXJ: resizes %q", rs)
	}
	h.finish(a)
	if _, rs := h.runResize(); rs != "2+host1:3" {
		t.Fatalf("TASKLIMIT 6 (b holds 3): resizes %q", rs)
	}
}
