package sched

import (
	"math"
	"sort"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
	"github.com/basalt-lsf/basalt/internal/resreq"
)

// Resize is a grow decision for a running resizable job (bsub -ar, or a
// bresize request): Hosts are the slots added to its allocation.
type Resize struct {
	Key      state.Key
	Hosts    []*api.ExecHost
	RunCount int32
}

// noteResizable remembers a started job with a pending allocation request
// (countJob calls it for every started job: one field test for the others).
func (p *pass) noteResizable(j *state.Job) {
	if j.ResizeMax > 0 || j.Spec != nil && j.Spec.AutoResizable {
		p.resizable = append(p.resizable, j)
	}
}

// resizeGates are the gates that apply to an allocation request: the
// queue's state, -m, and the limits counted in slots. A running job has
// passed the others (hold, begin time, dependencies...).
// (lsb.resources limits are checked by slotRoom: the resource-limits gate
// would count the job as one more job.)
var resizeGates = map[string]bool{"queue": true, "asked-hosts": true, "queue-limits": true, "user-limits": true}

// growResizable schedules the pending allocation requests of running
// resizable jobs that have physically started (sbatchd reported their
// process: the notification command needs it), after every pending job
// of the pass: by queue priority,
// then in dispatch order. A request gets between its min and max slots on
// hosts that pass the job's class (the select of its merged requirement,
// the host limits, -m) or nothing. Not grown: suspended jobs (and those a
// preemption of this pass or one in flight suspends: LSF stops allocating
// to a suspended job and cancels a decision when it preempts), exclusive
// jobs, GPU jobs, compound or alternative requirements (LSF refuses them
// for resizable jobs). Slots added are charged at once, as a dispatch's,
// so the next pass counts them as any started slots (preemption included).
func (p *pass) growResizable() {
	if len(p.resizable) == 0 || p.freeAll == 0 && p.freeRun == 0 {
		return
	}
	jobs := p.resizable
	prio := func(j *state.Job) int {
		if q := p.queueOf(j.Queue); q != nil {
			return q.cfg.Priority
		}
		return 0
	}
	sort.SliceStable(jobs, func(a, b int) bool {
		if pa, pb := prio(jobs[a]), prio(jobs[b]); pa != pb {
			return pa > pb
		}
		if jobs[a].StartTime != jobs[b].StartTime {
			return jobs[a].StartTime < jobs[b].StartTime
		}
		return jobs[a].Order < jobs[b].Order
	})
	victims := map[state.Key]bool{}
	for _, v := range p.plan.Preemptions {
		victims[v.Key] = true
	}
	var gates []Gate
	for _, g := range p.s.Gates {
		if resizeGates[g.Name()] {
			gates = append(gates, g)
		}
	}
	for _, j := range jobs {
		lo, hi := j.PendingResize()
		if hi <= 0 || j.State != api.StateRun || j.PID == 0 || p.suspendedNow(j) || victims[j.Key] ||
			j.Spec.Exclusive || j.Spec.GPUReq != "" {
			continue
		}
		q := p.queueOf(j.Queue)
		if q == nil {
			continue
		}
		re := p.reqOf(j, q)
		if re.err != nil || re.c == nil || re.c.Kind != resreq.KindSimple {
			continue
		}
		// The queue's TASKLIMIT (PROCLIMIT) and lsb.resources' slot
		// limits bound the request; below its minimum it waits.
		room := p.limits.slotRoom(j)
		if pl := q.cfg.Limits.Proc; pl.Max > 0 {
			room = min(room, pl.Max-int(j.Slots()))
		}
		hi = int32(min(int(hi), room))
		if hi < max(lo, 1) {
			continue
		}
		if hosts := p.growOne(j, q, re, int(max(lo, 1)), int(hi), gates); hosts != nil {
			p.chargeResize(j, q, hosts)
			p.plan.Resizes = append(p.plan.Resizes, Resize{Key: j.Key, Hosts: hosts, RunCount: j.RunCount})
		}
	}
}

// growOne finds between lo and hi more slots for j, nil when it cannot
// have lo.
func (p *pass) growOne(j *state.Job, q *queueCtx, re *reqEntry, lo, hi int, gates []Gate) []*api.ExecHost {
	jc := &p.jc
	passes := func(n int) bool {
		*jc = jobCtx{j: j, q: q, req: re, slots: n, noReasons: true}
		for _, g := range gates {
			if g.Gate(p, jc) != nil {
				return false
			}
		}
		return true
	}
	// The slot limits pass every count up to some n: the largest one in
	// [lo, hi], by bisection (a request may be for thousands of slots).
	if !passes(lo) {
		return nil
	}
	n := lo
	for a, b := lo+1, hi; a <= b; {
		m := a + (b-a)/2
		if passes(m) {
			n, a = m, m+1
		} else {
			b = m - 1
		}
	}
	passes(n) // jc as the walk needs it
	held := map[string]bool{}
	for _, eh := range j.ExecHosts {
		held[eh.Host] = true
	}
	req := re.c
	span := req.Span
	ptile := span != nil && (span.Ptile > 0 || span.PtileMax || len(span.PtileByName) > 0)
	oneHost := span != nil && span.Hosts == 1
	var out []*api.ExecHost
	need := n
	c := p.classFor(jc, req, viewNormal)
	p.walk(c, jc, func(h *hostCtx, capacity int) bool {
		switch {
		case oneHost && h.Name != j.ExecHosts[0].Host:
			return true // span[hosts=1]: it grows only where it runs
		case ptile && held[h.Name]:
			return true // ptile: a host it holds has its tasks already
		}
		capacity = p.rusageCapacity(req.Rusage, h, capacity)
		k := p.perHost(span, h, capacity, need, n)
		if oneHost {
			k = min(capacity, need)
		}
		if k <= 0 {
			return true
		}
		out = append(out, &api.ExecHost{Host: h.Name, Slots: int32(k)})
		need -= k
		return need > 0
	})
	if n-need < lo {
		return nil
	}
	return out
}

// chargeResize accounts the slots added to j for the rest of the pass, as
// commit does a dispatch's (the job is counted once already: its job
// counts do not change).
func (p *pass) chargeResize(j *state.Job, q *queueCtx, hosts []*api.ExecHost) {
	total := 0
	preemptable := p.preemptableQueue(q) && p.preemptable(j)
	for _, eh := range hosts {
		h := p.byName[eh.Host]
		n := int(eh.Slots)
		total += n
		p.chargeRun(h, q, j.User, n, preemptable)
		p.touch(h)
	}
	q.used += total
	q.addUserUsed(j.User, total)
	p.user(j.User).run += total
	for _, g := range p.userGroups[j.User] {
		p.group(g).run += total
	}
	p.limits.chargeSlots(j, hosts, total)
	if q.pool != nil {
		q.pool.dispatched(q, total)
	}
}

// slotRoom is how many more slots j may take under the lsb.resources
// limits without host consumers it matches (its job already counted).
func (ls *limitState) slotRoom(j *state.Job) int {
	room := math.MaxInt
	for _, d := range ls.limits {
		if d.hostDep || d.slots < 0 || !d.matches(j.User, j.Queue, j.Project, "") {
			continue
		}
		used := 0.0
		if u := ls.used[d.key(j.User, j.Queue, j.Project, "")]; u != nil {
			used = u.slots
		}
		room = min(room, int(d.slots-used))
	}
	return room
}

// chargeSlots adds slots of a job already counted to the limits it
// matches (its job count unchanged).
func (ls *limitState) chargeSlots(j *state.Job, hosts []*api.ExecHost, total int) {
	for _, d := range ls.limits {
		if !d.hostDep {
			if d.matches(j.User, j.Queue, j.Project, "") {
				ls.add(d, j, "", total)
			}
			continue
		}
		for _, eh := range hosts {
			if d.matches(j.User, j.Queue, j.Project, eh.Host) {
				ls.add(d, j, eh.Host, int(eh.Slots))
			}
		}
	}
}
