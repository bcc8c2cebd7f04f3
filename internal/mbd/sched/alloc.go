package sched

import (
	"strconv"
	"strings"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/resreq"
)

// view returns the view the job is being placed with.
func (jc *jobCtx) view() view { return jc.curView }

// attempt is the outcome of trying to place a job.
type attempt struct {
	hosts   []*api.ExecHost
	rusage  []resreq.Usage // alternative to reserve
	reasons []*api.PendReason
}

// placeSimple places slots of a job with simple requirement req, hosts
// already holding overlay slots (earlier terms of a compound requirement)
// counted as used.
func (p *pass) placeSimple(jc *jobCtx, req *resreq.Compiled, slots int, overlay map[int32]int) attempt {
	c := p.classFor(jc, req, jc.curView)
	if !p.s.noCache && !jc.ownRsv && !jc.backfill && overlay == nil && jc.curView == viewNormal &&
		(jc.q.preemptive && p.freeRun == 0 || !jc.q.preemptive && p.freeAll == 0) {
		return attempt{reasons: p.fullReasons(c, jc)}
	}
	if !p.s.noCache && !jc.ownRsv && overlay == nil {
		if m := c.memo[memoKey{p.memoUser(jc), slots}]; m != nil && p.memoValid(c, m, jc) {
			return attempt{reasons: m.reasons}
		}
	}
	span := req.Span
	var out []*api.ExecHost
	var usable []string
	usableN := 0
	need := slots
	groups := map[string][]*api.ExecHost{}
	groupNeed := map[string]int{}
	done := false
	skipped := p.walk(c, jc, func(h *hostCtx, capacity int) bool {
		if overlay != nil {
			capacity -= overlay[h.idx]
			if capacity <= 0 {
				return true
			}
		}
		capacity = p.rusageCapacity(req.Rusage, h, capacity)
		if capacity <= 0 {
			return true
		}
		if jc.j.Spec.Exclusive {
			capacity = min(capacity, slots)
		}
		usableN++
		if len(usable) < MaxReasonHosts {
			usable = append(usable, h.Name)
		}
		n := p.perHost(span, h, capacity, need, slots)
		if n <= 0 {
			return true
		}
		if len(req.Same) > 0 && !(span != nil && span.Hosts == 1) {
			// same[]: every host of the job has equal values; hosts are
			// grouped by value and the first group to fill wins.
			k := sameValues(req.Same, h)
			n = min(p.perHost(span, h, capacity, slots-groupNeed[k], slots), slots-groupNeed[k])
			if n <= 0 {
				return true
			}
			groups[k] = append(groups[k], &api.ExecHost{Host: h.Name, Slots: int32(n)})
			groupNeed[k] += n
			if groupNeed[k] >= slots {
				out, done = groups[k], true
				return false
			}
			return true
		}
		if span != nil && span.Hosts == 1 {
			if n >= slots {
				out = []*api.ExecHost{{Host: h.Name, Slots: int32(slots)}}
				done = true
				return false
			}
			return true
		}
		out = append(out, &api.ExecHost{Host: h.Name, Slots: int32(n)})
		need -= n
		if need <= 0 {
			done = true
			return false
		}
		return true
	})
	if done {
		return attempt{hosts: out}
	}
	if jc.noReasons {
		return attempt{}
	}
	rs := p.failReasons(c, &skipped, usable, usableN)
	if !p.s.noCache && !jc.ownRsv && overlay == nil {
		mk := memoKey{p.memoUser(jc), slots}
		if c.memo == nil {
			c.memo = map[memoKey]*memo{}
		}
		if old := c.memo[mk]; old != nil && sameReasons(old.reasons, rs) {
			rs = old.reasons
		}
		c.memo[mk] = &memo{gen: c.gen, logLen: len(p.hostLog), userDisp: p.user(jc.j.User).dispatched, shared: p.sharedGen, reasons: rs,
			allFull: c.shared && c.sp.cursor[c.fkind] == len(c.sp.cands)}
	}
	return attempt{reasons: rs}
}

func sameValues(idx []int, h *hostCtx) string {
	var b strings.Builder
	for _, i := range idx {
		if i < len(h.vals.Str) && h.vals.Str[i] != "" {
			b.WriteString(h.vals.Str[i])
		} else if i < len(h.vals.Num) {
			b.WriteString(strconv.FormatFloat(h.vals.Num[i], 'g', -1, 64))
		}
		b.WriteByte(0)
	}
	return b.String()
}

// perHost is how many slots a host gives the job under its span section.
func (p *pass) perHost(span *resreq.Span, h *hostCtx, capacity, need, total int) int {
	n := min(capacity, need)
	if span == nil {
		return n
	}
	switch {
	case span.Hosts == 1:
		return capacity
	case span.Ptile > 0 || span.PtileMax || len(span.PtileByName) > 0:
		per := span.Ptile
		if span.PtileMax || len(span.PtileByName) > 0 {
			per = h.MaxSlots
			if per < 0 {
				per = h.NCPUs
			}
		}
		for _, e := range span.PtileByName {
			if e.Name == h.Type || e.Name == h.Model {
				per = e.N
			}
		}
		if per <= 0 {
			return 0
		}
		k := min(per, need)
		if capacity < k {
			return 0
		}
		return k
	case span.Block > 0:
		return (n / span.Block) * span.Block
	}
	return n
}

// memoUser is the part of a job's identity its class's per-host checks
// depend on.
func (p *pass) memoUser(jc *jobCtx) string {
	if p.hostUsers || p.limits.hostly {
		return jc.j.User + "\x00" + jc.j.Project + "\x00" + jc.j.Spec.Reservation
	}
	return jc.j.Spec.Reservation // advance reservation (rsv.go)
}

func (p *pass) memoValid(c *class, m *memo, jc *jobCtx) bool {
	p.refresh(c, jc)
	if m.gen != c.gen || m.shared != p.sharedGen {
		return false
	}
	if c.shared {
		if m.allFull && p.advance(c.sp, c.fkind) == len(c.sp.cands) {
			return true // every host full: nothing can change that in this pass
		}
	} else if len(c.list) == 0 {
		return true // nothing left to look at: only a change of the class matters
	}
	return m.logLen == len(p.hostLog) && m.userDisp == p.user(jc.j.User).dispatched
}

// fullReasons are the reasons of a class's job when no host has a free
// slot: its statically rejected hosts, and every other one full. They are
// the same for every class sharing the static part.
func (p *pass) fullReasons(c *class, jc *jobCtx) []*api.PendReason {
	if c.full != nil {
		return c.full
	}
	sp := p.staticOf(c, jc)
	if sp.full == nil {
		var all codeCounts
		all.merge(&sp.counts)
		if len(sp.cands) > 0 {
			if all.n == nil {
				all.n, all.names = map[int32]int32{}, map[int32][]string{}
			}
			all.n[PendHostJobLimit] += int32(len(sp.cands))
			for _, h := range sp.cands {
				if len(all.names[PendHostJobLimit]) >= MaxReasonHosts {
					break
				}
				all.names[PendHostJobLimit] = append(all.names[PendHostJobLimit], p.hosts[h].Name)
			}
		}
		if len(all.n) == 0 {
			all.add(PendHostLessSlots, "")
			all.names[PendHostLessSlots] = nil
		}
		sp.full = all.reasons()
	}
	c.full = sp.full
	return c.full
}

// placeReq places a job's whole requirement: simple, compound (each term
// its slots, hosts shared between terms) or alternatives (the first that
// can be satisfied).
func (p *pass) placeReq(jc *jobCtx, req *resreq.Compiled) attempt {
	switch req.Kind {
	case resreq.KindAlternative:
		var first attempt
		for i, alt := range req.Alternatives {
			a := p.placeReq(jc, alt)
			if a.hosts != nil {
				return a
			}
			if i == 0 {
				first = a
			}
		}
		return first
	case resreq.KindCompound:
		overlay := map[int32]int{}
		var all []*api.ExecHost
		var rus []resreq.Usage
		left := jc.slots
		for i, t := range req.Terms {
			n := t.Slots
			if n <= 0 || i == len(req.Terms)-1 && n > left {
				n = left
			}
			if n <= 0 {
				continue
			}
			a := p.placeSimple(jc, t.Req, n, overlay)
			if a.hosts == nil {
				return a
			}
			for _, eh := range a.hosts {
				overlay[p.byName[eh.Host].idx] += int(eh.Slots)
			}
			all = mergeHosts(all, a.hosts)
			left -= n
			if len(t.Req.Rusage) > 0 {
				rus = append(rus, t.Req.Rusage[0]...)
			}
		}
		return attempt{hosts: all, rusage: rus}
	}
	a := p.placeSimple(jc, req, jc.slots, nil)
	if a.hosts != nil && len(req.Rusage) > 0 {
		h := p.byName[a.hosts[0].Host]
		if ai, _ := p.rusageAlternative(req.Rusage, jc, h, int(a.hosts[0].Slots)); ai >= 0 {
			a.rusage = req.Rusage[ai]
		} else {
			a.rusage = req.Rusage[0]
		}
	}
	return a
}

func mergeHosts(a, b []*api.ExecHost) []*api.ExecHost {
	for _, eh := range b {
		found := false
		for _, x := range a {
			if x.Host == eh.Host {
				x.Slots += eh.Slots
				found = true
				break
			}
		}
		if !found {
			a = append(a, &api.ExecHost{Host: eh.Host, Slots: eh.Slots})
		}
	}
	return a
}

// chargeRun charges n running slots of user's job in queue q to host h
// for the rest of the pass (a dispatch, or slots a resizable job grows
// by); preemptable says whether they count as preemptable slots.
func (p *pass) chargeRun(h *hostCtx, q *queueCtx, user string, n int, preemptable bool) {
	h.run += n
	h.queueSlots[q.idx] += int32(n)
	if h.preRun != nil && preemptable {
		h.preRun[q.idx] += int32(n)
	}
	if p.hostUsers {
		if h.userRun == nil {
			h.userRun, h.userSusp = map[string]int{}, map[string]int{}
		}
		h.userRun[user] += n
		for _, g := range p.userGroups[user] {
			gc := p.group(g)
			if gc.hostRun == nil {
				gc.hostRun, gc.hostSusp = map[int32]int{}, map[int32]int{}
			}
			gc.hostRun[h.idx] += n
		}
	}
	h.hasJobs = true
	h.touched = true
}

// commit records a dispatch and charges it for the rest of the pass.
func (p *pass) commit(jc *jobCtx, a attempt, backfill bool, victims []Preemption) {
	j := jc.j
	d := Dispatch{Key: j.Key, Queue: j.Queue, Hosts: a.hosts, Backfill: backfill, RunLimit: jc.runLimit}
	p.allocGPUs(j, a.hosts)
	if jc.req != nil {
		d.EffectiveResReq = jc.req.eff
	}
	if len(a.rusage) > 0 {
		d.ExecRusage = execRusage(a.rusage)
	}
	for _, v := range victims {
		d.Preempt = append(d.Preempt, v.Key)
	}
	p.plan.Dispatches = append(p.plan.Dispatches, d)
	p.rb.remove(j.Key)
	total := 0
	for _, eh := range a.hosts {
		h := p.byName[eh.Host]
		n := int(eh.Slots)
		total += n
		p.chargeRun(h, jc.q, j.User, n, !backfill && !j.Spec.Exclusive && p.preemptableQueue(jc.q))
		if j.Spec.Exclusive {
			h.exclusive = true
		}
		if h.rsvBy != nil && h.rsvBy[j.Key] > 0 {
			h.rsvSlots -= h.rsvBy[j.Key]
			delete(h.rsvBy, j.Key)
		}
		p.touch(h)
	}
	if len(a.rusage) > 0 {
		p.reserveAlt(a.rusage, a.hosts, 0)
	}
	jc.q.used += total
	jc.q.addUserUsed(j.User, total)
	u := p.user(j.User)
	u.run += total
	u.dispatched++
	for _, g := range p.userGroups[j.User] {
		p.group(g).run += total
	}
	p.limits.charge(j, a.hosts, a.rusage)
	if j.Array != nil && p.arrayRun != nil {
		p.arrayRun[j.Array.ID]++
	}
	p.chargeGroups(j)
	if jc.q.pool != nil {
		jc.q.pool.dispatched(jc.q, total)
	}
	p.s.releaseReservation(p, j.Key)
	if backfill {
		p.s.mem.backfill[j.Key] = true
	}
}
