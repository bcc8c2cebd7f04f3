package sched

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/job"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
)

// genCluster draws a small cluster: hosts, queues with random priorities,
// preemption, slot reservation, backfill, limits and fairshare; one in
// three is plain (no preemption,
// fairshare or lsb.resources limits: passes carry their count of the
// started jobs, carry.go).
func genCluster(t *rapid.T) clusterSpec {
	cs := clusterSpec{hosts: rapid.IntRange(1, 4).Draw(t, "hosts"), mxj: rapid.IntRange(1, 4).Draw(t, "mxj")}
	plain := rapid.IntRange(0, 2).Draw(t, "plain") == 0
	nq := rapid.IntRange(1, 4).Draw(t, "queues")
	var b strings.Builder
	for i := 0; i < nq; i++ {
		prio := (nq - i) * 10
		if rapid.IntRange(0, 3).Draw(t, "tie") == 0 {
			prio = 10
		}
		fmt.Fprintf(&b, "Begin Queue\nQUEUE_NAME = q%d\nPRIORITY = %d\n", i, prio)
		if !plain && rapid.IntRange(0, 2).Draw(t, "preemptive") > 0 && i < nq-1 {
			b.WriteString("PREEMPTION = PREEMPTIVE\n")
		}
		if !plain && rapid.IntRange(0, 3).Draw(t, "fs") == 0 {
			b.WriteString("FAIRSHARE = USER_SHARES[[u0, 3] [default, 1]]\n")
		}
		if n := rapid.IntRange(0, 6).Draw(t, "ujob"); n > 0 && n < 4 {
			fmt.Fprintf(&b, "UJOB_LIMIT = %d\n", n)
		}
		if n := rapid.IntRange(0, 4).Draw(t, "hjob"); n == 1 {
			b.WriteString("HJOB_LIMIT = 1\n")
		}
		if rapid.IntRange(0, 3).Draw(t, "reserve") == 0 {
			b.WriteString("SLOT_RESERVE = MAX_RESERVE_TIME[3]\n")
		}
		if rapid.IntRange(0, 3).Draw(t, "backfill") == 0 {
			b.WriteString("BACKFILL = Y\nRUNLIMIT = 30\n")
		}
		if rapid.IntRange(0, 4).Draw(t, "maxpre") == 0 {
			b.WriteString("MAX_JOB_PREEMPT = 1\n")
		}
		if rapid.IntRange(0, 4).Draw(t, "term") == 0 {
			b.WriteString("TERMINATE_WHEN = PREEMPT\n")
		}
		b.WriteString("End Queue\n")
	}
	cs.queues = b.String()
	if rapid.Bool().Draw(t, "users") {
		cs.users = "Begin User\nUSER_NAME MAX_JOBS JL/P\nu1 2 -\ndefault 5 -\nEnd User\n"
	}
	if !plain && rapid.IntRange(0, 2).Draw(t, "limits") == 0 {
		cs.resources = "Begin Limit\nPER_USER = all\nQUEUES = q0\nSLOTS = 2\nEnd Limit\n"
	}
	return cs
}

var propReqs = []string{"", "", "select[mem > 1000]", "rusage[mem=2000]", "span[hosts=1]", "span[ptile=1]",
	"order[-slots]", "select[mem > 3000] rusage[mem=1500:duration=1h]", "rusage[mem=5000] || rusage[swp=10]"}

// propStep submits, finishes and advances time at random.
func propStep(t *rapid.T, h *harness, queues int) {
	for i := rapid.IntRange(0, 6).Draw(t, "submits"); i > 0; i-- {
		q := fmt.Sprintf("q%d", rapid.IntRange(0, queues-1).Draw(t, "queue"))
		u := fmt.Sprintf("u%d", rapid.IntRange(0, 2).Draw(t, "user"))
		n := int32(rapid.IntRange(1, 3).Draw(t, "slots"))
		r := propReqs[rapid.IntRange(0, len(propReqs)-1).Draw(t, "req")]
		h.submit(u, q, func(e *api.EvJobNew) {
			e.NumProcs, e.Spec.MinProcs = n, n
			if r != "" {
				e.Spec.ResReq = []string{r}
			}
		})
	}
	var running, pending []state.Key
	h.st.View(func(v *state.View) {
		v.Jobs(func(j *state.Job) bool {
			if job.Started(j.State) {
				running = append(running, j.Key)
			}
			if job.Pending(j.State) {
				pending = append(pending, j.Key)
			}
			return true
		})
	})
	// Now and then a pending job is changed as bmod, btop, bbot and
	// bswitch change it (the pending lists and the submissions the
	// scheduler's caches were derived from).
	for _, k := range pending {
		switch rapid.IntRange(0, 15).Draw(t, "change") {
		case 0:
			n := int32(rapid.IntRange(1, 3).Draw(t, "newSlots"))
			spec := &api.JobSpec{Command: "true", FromHost: "host1", MinProcs: n}
			if r := propReqs[rapid.IntRange(0, len(propReqs)-1).Draw(t, "newReq")]; r != "" {
				spec.ResReq = []string{r}
			}
			h.apply(&api.Event{JobModify: &api.EvJobModify{JobID: k.ID, Index: k.Index, Spec: spec}})
		case 1:
			h.apply(&api.Event{JobMove: &api.EvJobMove{JobID: k.ID, Index: k.Index, Position: 1, Bottom: rapid.Bool().Draw(t, "bottom")}})
		case 2:
			q := fmt.Sprintf("q%d", rapid.IntRange(0, queues-1).Draw(t, "newQueue"))
			h.apply(&api.Event{JobSwitch: &api.EvJobSwitch{JobID: k.ID, Index: k.Index, Queue: q}})
		}
	}
	for _, k := range running {
		if rapid.IntRange(0, 4).Draw(t, "finish") == 0 {
			h.apply(&api.Event{JobStatus: &api.EvJobStatus{JobID: k.ID, Index: k.Index, State: api.StateDone}})
		}
	}
	h.now = h.now.Add(time.Duration(rapid.SampledFrom([]int{0, 10, 600, 4000}).Draw(t, "tick")) * time.Second)
}

// applyPlan applies a plan as mbatchd and sbatchd would.
func applyPlan(h *harness, plan *Plan) {
	for _, r := range plan.Resumes {
		h.apply(&api.Event{JobStatus: &api.EvJobStatus{JobID: r.Key.ID, Index: r.Key.Index, State: api.StateRun}})
	}
	for _, p := range plan.Preemptions {
		h.apply(&api.Event{JobSignal: &api.EvJobSignal{JobID: p.Key.ID, Index: p.Key.Index, Preempt: true, Action: int32(api.ActSuspend)}})
		if p.Terminate {
			h.apply(&api.Event{JobStatus: &api.EvJobStatus{JobID: p.Key.ID, Index: p.Key.Index, State: api.StateExit}})
		} else {
			h.apply(&api.Event{JobStatus: &api.EvJobStatus{JobID: p.Key.ID, Index: p.Key.Index, State: api.StateSSusp, SuspReasons: SuspReschedPreempt}})
		}
	}
	for _, d := range plan.Dispatches {
		h.apply(&api.Event{JobStart: &api.EvJobStart{JobID: d.Key.ID, Index: d.Key.Index, ExecHosts: d.Hosts, ExecRusage: d.ExecRusage,
			BackfillLimit: int64(d.RunLimit / time.Second)}})
	}
}

func decisions(p *Plan) string {
	var b strings.Builder
	for _, d := range p.Dispatches {
		fmt.Fprintf(&b, "start %s %s %s %v %v|", d.Key, hostsText(d.Hosts), d.ExecRusage, d.Backfill, d.RunLimit)
	}
	for _, x := range p.Preemptions {
		fmt.Fprintf(&b, "preempt %s %v|", x.Key, x.Terminate)
	}
	for _, x := range p.Resumes {
		fmt.Fprintf(&b, "resume %s|", x.Key)
	}
	var ks []string
	for k, hs := range p.SlotReservations {
		ks = append(ks, fmt.Sprintf("rsv %s %s|", k, hostsText(hs)))
	}
	sort.Strings(ks)
	b.WriteString(strings.Join(ks, ""))
	return b.String()
}

// TestPropertyCachesNeverDecide: the scheduler with its class caches,
// early exits and memos decides exactly as one that builds every job's
// candidates afresh, pass after pass.
func TestPropertyCachesNeverDecide(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		cs := genCluster(rt)
		h := newHarness(t, cs)
		ref := New()
		ref.noCache = true
		nq := strings.Count(cs.queues, "Begin Queue")
		noReasons := rapid.Bool().Draw(rt, "noReasons")
		for step := 0; step < 10; step++ {
			propStep(rt, h, nq)
			var fast, slow *Plan
			h.st.View(func(v *state.View) {
				// The hosts never change: the cached scheduler may keep
				// what it derived from them (SameHosts); half the time it
				// needs no reasons and passes by the jobs it may
				// (NoReasons).
				in := &Input{Now: h.now, Config: h.cfg, Table: h.cfg.ResourceTable(), Hosts: h.hosts, View: v}
				fast = h.s.Schedule(&Input{Now: in.Now, Config: in.Config, Table: in.Table, Hosts: in.Hosts, View: v,
					SameHosts: true, NoReasons: noReasons})
				slow = ref.Schedule(in)
			})
			if a, b := decisions(fast), decisions(slow); a != b {
				sc := &scenario{h: h}
				var reqs []string
				h.st.View(func(v *state.View) {
					v.Jobs(func(j *state.Job) bool {
						reqs = append(reqs, fmt.Sprintf("%s n=%d %q", j.Key, j.Slots(), j.Spec.ResReq))
						return true
					})
				})
				rt.Fatalf("step %d (hosts %d mxj %d): cached and uncached passes differ:\ncached   %s\nuncached %s\njobs before the pass:\n%s\n%s\nqueues:\n%s\n%s%s",
					step, cs.hosts, cs.mxj, a, b, sc.jobs(), strings.Join(reqs, "\n"), cs.queues, cs.users, cs.resources)
			}
			checkInvariants(rt, h, fast)
			applyPlan(h, fast)
		}
	})
}

// checkInvariants: after a plan, no host runs more slots than MXJ counting
// the jobs as the plan leaves them (preemptive queues may take the slots of
// suspended jobs, so suspended jobs are counted only when no running job of
// a preemptive queue is on the host); no queue exceeds UJOB_LIMIT; a
// preemption never hits a job of an equal or higher priority queue.
func checkInvariants(t *rapid.T, h *harness, plan *Plan) {
	prio := map[string]int{}
	for _, q := range h.cfg.Queues {
		prio[q.Name] = q.Priority
	}
	run := map[string]int{}
	h.st.View(func(v *state.View) {
		gone := map[state.Key]bool{}
		for _, p := range plan.Preemptions {
			gone[p.Key] = true
			j := v.Job(p.Key)
			by := v.Job(p.By)
			if j == nil || by == nil || prio[j.Queue] >= prio[by.Queue] {
				t.Fatalf("preemption of %s (queue %s) for %s", p.Key, j.Queue, p.By)
			}
		}
		for _, r := range plan.Resumes {
			j := v.Job(r.Key)
			if j == nil || j.State != api.StateSSusp || j.SuspReasons&SuspReschedPreempt == 0 {
				t.Fatalf("resumption of a job that was not preempted: %s", r.Key)
			}
		}
		resumed := map[state.Key]bool{}
		for _, r := range plan.Resumes {
			resumed[r.Key] = true
		}
		v.Jobs(func(j *state.Job) bool {
			if !job.Started(j.State) || gone[j.Key] {
				return true
			}
			if j.State != api.StateRun && !resumed[j.Key] {
				return true
			}
			for _, eh := range j.ExecHosts {
				run[eh.Host] += int(eh.Slots)
			}
			return true
		})
	})
	for _, d := range plan.Dispatches {
		for _, eh := range d.Hosts {
			run[eh.Host] += int(eh.Slots)
		}
	}
	for _, hst := range h.hosts {
		if hst.MaxSlots >= 0 && run[hst.Name] > hst.MaxSlots {
			t.Fatalf("host %s runs %d slots, MXJ %d", hst.Name, run[hst.Name], hst.MaxSlots)
		}
	}
}

// TestPropertyReservationsReleased: once every job has finished, nothing
// stays reserved (rusage or slots).
func TestPropertyReservationsReleased(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		cs := genCluster(rt)
		h := newHarness(t, cs)
		nq := strings.Count(cs.queues, "Begin Queue")
		for step := 0; step < 4; step++ {
			propStep(rt, h, nq)
			h.run()
		}
		// Finish or kill everything.
		var all []*state.Job
		h.st.View(func(v *state.View) {
			v.Jobs(func(j *state.Job) bool {
				if !job.Finished(j.State) {
					all = append(all, j)
				}
				return true
			})
		})
		sort.Slice(all, func(a, b int) bool { return all[a].ID < all[b].ID })
		for _, j := range all {
			st := api.StateDone
			if job.Pending(j.State) {
				st = api.StateExit
			}
			h.apply(&api.Event{JobStatus: &api.EvJobStatus{JobID: j.ID, Index: j.Index, State: st}})
		}
		p := h.run()
		if len(p.Reserved) != 0 || len(p.SlotReservations) != 0 {
			rt.Fatalf("reservations left: %v %v", p.Reserved, p.SlotReservations)
		}
	})
}
