package sched

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
)

// dump renders every entry of r in Each order as "key=codes".
func dump(r *Reasons) string {
	var out []string
	r.Each(func(k state.Key, rs []*api.PendReason) bool {
		var codes []string
		for _, x := range rs {
			codes = append(codes, fmt.Sprint(x.Code))
		}
		out = append(out, k.String()+"="+strings.Join(codes, ","))
		return true
	})
	return strings.Join(out, " ")
}

func TestReasons(t *testing.T) {
	a := []*api.PendReason{{Code: 1305, NumHosts: 3}}
	b := []*api.PendReason{{Code: 1305, NumHosts: 3}, {Code: 1306}}
	empty := []*api.PendReason{}
	key := func(id int64, idx int32) state.Key { return state.Key{ID: id, Index: idx} }
	type op struct {
		k   state.Key
		rs  []*api.PendReason
		del bool
	}
	for _, tc := range []struct {
		name    string
		maxID   int64
		ops     []op
		want    string // Each order
		n       int
		lists   int // distinct lists interned (lists[0] excluded)
		absent  []state.Key
		present map[state.Key]int // key -> len(Get)
	}{
		{name: "dense ids in order", maxID: 10,
			ops:  []op{{k: key(7, 0), rs: a}, {k: key(3, 0), rs: b}, {k: key(5, 0), rs: a}},
			want: "3=1305,1306 5=1305 7=1305", n: 3, lists: 2,
			absent: []state.Key{key(4, 0), key(0, 0), key(11, 0), key(7, 1)}},
		{name: "ids beyond the presized pages grow them", maxID: 1,
			ops:  []op{{k: key(1, 0), rs: a}, {k: key(3*reasonPageLen+5, 0), rs: a}},
			want: fmt.Sprintf("1=1305 %d=1305", 3*reasonPageLen+5), n: 2, lists: 1,
			absent: []state.Key{key(2*reasonPageLen, 0), key(1<<40, 0)}},
		{name: "array elements, negative and huge ids in the map, after pages", maxID: 100,
			ops: []op{{k: key(9, 2), rs: b}, {k: key(9, 1), rs: a}, {k: key(reasonDenseIDs, 0), rs: a},
				{k: key(-1, 0), rs: a}, {k: key(9, 0), rs: b}},
			want: fmt.Sprintf("9=1305,1306 -1=1305 9[1]=1305 9[2]=1305,1306 %d=1305", reasonDenseIDs), n: 5, lists: 2,
			absent: []state.Key{key(9, 3), key(-2, 0)}},
		{name: "overwrite counts once", maxID: 10,
			ops:  []op{{k: key(2, 0), rs: a}, {k: key(2, 0), rs: b}, {k: key(2, 4), rs: a}, {k: key(2, 4), rs: b}},
			want: "2=1305,1306 2[4]=1305,1306", n: 2, lists: 2},
		{name: "removal", maxID: 10,
			ops: []op{{k: key(2, 0), rs: a}, {k: key(3, 0), rs: a}, {k: key(3, 1), rs: a},
				{k: key(2, 0), del: true}, {k: key(3, 1), del: true}, {k: key(4, 0), del: true}, {k: key(5, 5), del: true},
				{k: key(1<<40, 0), del: true}},
			want: "3=1305", n: 1, lists: 1, absent: []state.Key{key(2, 0), key(3, 1)}},
		{name: "an empty list is held", maxID: 10,
			ops:  []op{{k: key(1, 0), rs: empty}, {k: key(2, 0), rs: nil}, {k: key(1, 1), rs: empty}},
			want: "1= 2= 1[1]=", n: 3, lists: 1,
			present: map[state.Key]int{key(1, 0): 0, key(2, 0): 0, key(1, 1): 0}},
		{name: "prefix of a shared slice is another list", maxID: 10,
			ops:  []op{{k: key(1, 0), rs: b}, {k: key(2, 0), rs: b[:1]}},
			want: "1=1305,1306 2=1305", n: 2, lists: 2},
		{name: "no pages", maxID: -1,
			ops:  []op{{k: key(4, 0), rs: a}},
			want: "4=1305", n: 1, lists: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bld := newReasonsBuilder(tc.maxID, 0)
			for _, o := range tc.ops {
				if o.del {
					bld.remove(o.k)
				} else {
					bld.set(o.k, o.rs)
				}
			}
			r := bld.r
			if got := dump(r); got != tc.want {
				t.Errorf("Each: %q, want %q", got, tc.want)
			}
			if r.Len() != tc.n {
				t.Errorf("Len %d, want %d", r.Len(), tc.n)
			}
			if got := len(r.lists) - 1; got != tc.lists {
				t.Errorf("%d lists interned, want %d", got, tc.lists)
			}
			for _, k := range tc.absent {
				if r.Has(k) || r.Get(k) != nil {
					t.Errorf("%s present", k)
				}
			}
			for k, n := range tc.present {
				if !r.Has(k) || len(r.Get(k)) != n {
					t.Errorf("%s: Has %v, %d reasons, want %d", k, r.Has(k), len(r.Get(k)), n)
				}
			}
			// The last operation on each key decides; Get returns the very
			// slice stored (shared, never copied).
			last := map[state.Key][]*api.PendReason{}
			for _, o := range tc.ops {
				if o.del {
					delete(last, o.k)
				} else {
					last[o.k] = o.rs
				}
			}
			for k, rs := range last {
				if got := r.Get(k); len(got) != len(rs) || len(rs) > 0 && &got[0] != &rs[0] {
					t.Errorf("%s: Get is not the stored slice", k)
				}
			}
		})
	}
}

func TestReasonsNilAndStop(t *testing.T) {
	var r *Reasons
	if r.Len() != 0 || r.Get(state.Key{ID: 1}) != nil || r.Has(state.Key{ID: 1}) {
		t.Fatal("nil Reasons holds something")
	}
	r.Each(func(state.Key, []*api.PendReason) bool { t.Fatal("nil Reasons iterated"); return false })
	var zero Reasons
	if zero.Len() != 0 || zero.Get(state.Key{ID: 1, Index: 2}) != nil {
		t.Fatal("zero Reasons holds something")
	}
	bld := newReasonsBuilder(10, 0)
	rs := []*api.PendReason{{Code: 1}}
	for _, k := range []state.Key{{ID: 1}, {ID: 2}, {ID: 3, Index: 1}, {ID: 3, Index: 2}} {
		bld.set(k, rs)
	}
	for _, stop := range []int{1, 3} {
		calls := 0
		bld.r.Each(func(state.Key, []*api.PendReason) bool { calls++; return calls < stop })
		if calls != stop {
			t.Errorf("Each went on after false: %d calls, want %d", calls, stop)
		}
	}
}

// TestPlanReasonsImmutable: a published plan's reasons do not change when
// later passes run (queries read them concurrently).
func TestPlanReasonsImmutable(t *testing.T) {
	h := newHarness(t, clusterSpec{hosts: 2, mxj: 1})
	for i := 0; i < 5; i++ {
		h.submit("alice", "normal")
	}
	h.submit("bob", "normal", func(n *api.EvJobNew) { n.ArrayIndices = []int32{1, 2}; n.ArrayLimit = 1 })
	p1 := h.run()
	before := dump(p1.Reasons)
	if p1.Reasons.Len() != 5 || !strings.Contains(before, "6[1]=") || !strings.Contains(before, "6[2]=") {
		t.Fatalf("first pass reasons %q (%d)", before, p1.Reasons.Len())
	}
	h.finish(1)
	h.finish(2)
	p2 := h.run()
	if got := dispatches(p2); got != "3@host1:1 4@host2:1" {
		t.Fatalf("second pass dispatches %s", got)
	}
	if got := dump(p1.Reasons); got != before {
		t.Fatalf("first plan's reasons changed:\n%s\nnow\n%s", before, got)
	}
	if p2.Reasons.Has(state.Key{ID: 3}) || !p2.Reasons.Has(state.Key{ID: 5}) {
		t.Fatalf("second plan's reasons %q", dump(p2.Reasons))
	}
}

// TestPrescanReusesLastLists: a pass takes each pending job's requirement
// from the last pass's lists, also after a pass started many jobs in a row
// and when jobs were submitted in between; only new jobs are resolved. A
// queue whose list has not changed is taken whole; a bmod'ed job is
// resolved again, its new requirement deciding.
func TestPrescanReusesLastLists(t *testing.T) {
	h := newHarness(t, clusterSpec{hosts: 1, mxj: 6})
	for i := 0; i < 20; i++ {
		h.submit("alice", "normal")
	}
	var resolved, taken []int
	run := func(want string) {
		t.Helper()
		if got := dispatches(h.run()); got != want {
			t.Fatalf("dispatches %q, want %q", got, want)
		}
		resolved = append(resolved, h.s.mem.resolved)
		taken = append(taken, h.s.mem.taken)
	}
	run("1@host1:1 2@host1:1 3@host1:1 4@host1:1 5@host1:1 6@host1:1") // 20 new jobs
	run("")                                                            // 7..20 after six departures in a row
	h.submit("bob", "normal")
	h.finish(1)
	h.finish(2)
	run("7@host1:1 8@host1:1") // one new job at the end
	run("")                    // two more departures
	run("")                    // nothing changed: the list is taken whole
	// Job 9 asks for more memory than the host has: bmod makes it wait
	// and job 10 starts in the slot job 3 frees.
	h.apply(&api.Event{JobModify: &api.EvJobModify{JobID: 9, Spec: &api.JobSpec{Command: "true", FromHost: "host1",
		ResReq: []string{"select[maxmem > 1000000000]"}}}})
	h.finish(3)
	run("10@host1:1")
	if got, want := fmt.Sprint(resolved, taken), "[20 0 1 0 0 1] [0 0 0 0 1 0]"; got != want {
		t.Fatalf("requirements resolved per pass, lists taken whole: %s, want %s", got, want)
	}
}

// TestPassByWhenFull: once no host has a free slot, a pass starts what the
// freed slots allow and passes the other jobs by, their reasons carried
// from the last full pass; jobs new since that pass, and jobs of queues
// that preempt, are looked at. A pass fullPassEvery after the last full
// one is full; none is asked for (the plan's NextWake stays zero).
func TestPassByWhenFull(t *testing.T) {
	queues := "Begin Queue\nQUEUE_NAME = normal\nPRIORITY = 30\nEnd Queue\n" +
		"Begin Queue\nQUEUE_NAME = urgent\nPRIORITY = 40\nPREEMPTION = PREEMPTIVE[normal]\nEnd Queue\n"
	h := newHarness(t, clusterSpec{hosts: 2, mxj: 1, queues: queues})
	for i := 0; i < 50; i++ {
		h.submit("alice", "normal")
	}
	p1 := h.run()
	if got := dispatches(p1); got != "1@host1:1 2@host2:1" || p1.Examined != 50 {
		t.Fatalf("first pass: %s, %d examined", got, p1.Examined)
	}
	full := dump(p1.Reasons)

	// A slot frees: job 3 takes it; the 47 others are passed by, with the
	// same reasons. A job new since the full pass is looked at.
	h.finish(1)
	h.now = h.now.Add(100 * time.Millisecond)
	late := h.submit("alice", "normal")
	p2 := h.run()
	if got := dispatches(p2); got != "3@host1:1" {
		t.Fatalf("second pass dispatches %s", got)
	}
	if p2.Examined != 2 { // job 3, and the new job
		t.Errorf("second pass examined %d jobs, want 2", p2.Examined)
	}
	if reasons(p2, late) == "" {
		t.Error("the new job has no reasons")
	}
	for id := int64(4); id <= 50; id++ {
		if got, want := reasons(p2, id), reasons(p1, id); got != want || got == "" {
			t.Errorf("job %d: reasons %q, want %q carried", id, got, want)
		}
	}
	if !p2.NextWake.IsZero() {
		t.Errorf("NextWake %v: a pass that passed jobs by asks for another", p2.NextWake)
	}
	if dump(p1.Reasons) != full {
		t.Error("the full pass's reasons changed")
	}

	// A preemptive queue's job is looked at (and preempts).
	urgent := h.submit("bob", "urgent")
	p3 := h.run()
	if len(p3.Preemptions) != 1 || p3.Preemptions[0].By != (state.Key{ID: urgent}) || p3.Examined != 2 {
		t.Errorf("third pass: preemptions %+v, %d examined (want one by the urgent job; 2: it and the new job)", p3.Preemptions, p3.Examined)
	}

	// fullPassEvery after the full pass, every job is looked at again.
	h.now = h.now.Add(fullPassEvery)
	p4 := h.run()
	if p4.Examined < 47 {
		t.Errorf("pass after %v examined %d jobs, want all pending", fullPassEvery, p4.Examined)
	}

	// Without caches (the property tests' reference), never.
	ref := New()
	ref.noCache = true
	for i := 0; i < 2; i++ {
		var p *Plan
		h.st.View(func(v *state.View) {
			p = ref.Schedule(&Input{Now: h.now, Config: h.cfg, Table: h.cfg.ResourceTable(), Hosts: h.hosts, View: v})
		})
		if p.Examined < 47 {
			t.Errorf("uncached pass %d examined %d jobs", i, p.Examined)
		}
	}
}

// TestStartedJobOnSeveralHostsCountedOnce: a running job on two hosts
// (its first host listed last among the pass's hosts) holds one slot on
// each: of the three jobs that follow, two start.
func TestStartedJobOnSeveralHostsCountedOnce(t *testing.T) {
	h := newHarness(t, clusterSpec{hosts: 2, mxj: 2})
	id := h.submit("alice", "normal", slots(2))
	h.apply(&api.Event{JobStart: &api.EvJobStart{JobID: id, ExecHosts: []*api.ExecHost{{Host: "host2", Slots: 1}, {Host: "host1", Slots: 1}}}})
	for i := 0; i < 3; i++ {
		h.submit("alice", "normal")
	}
	if got := dispatches(h.run()); got != "2@host1:1 3@host2:1" {
		t.Errorf("dispatches %q, want one job on each host", got)
	}
}
