package sched

import (
	"slices"
	"unsafe"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
)

// carried is the count of the started jobs that a pass made, kept for the
// next one: that pass corrects it by the jobs that started, ended or
// changed since (state.View.StartedChanges) instead of counting every
// started job again. It holds only what the count is made of when the
// pass may carry it (carryable): slots per host, queue, user and user
// group. A pass that may not drops it and counts afresh.
type carried struct {
	view   *state.View // the view counted
	hosts  []carriedHost
	queues []carriedQueue
	users  map[string]runSusp
	groups map[string]runSusp
	// special are the started records whose count is more than slots
	// (rusage reserved, resizable): each pass does that part again.
	special map[*state.Job]struct{}
	// preempted are the records of the jobs suspended by preemption
	// (collectPreempted).
	preempted map[*state.Job]struct{}
}

type carriedHost struct {
	run, susp  int
	jobs, excl int // started jobs, exclusive ones among them
	queueSlots []int32
	// With preemption: running slots that may be preempted, per queue,
	// and the started records.
	preRun []int32
	list   []*state.Job
}

type carriedQueue struct {
	used     int
	userUsed map[string]int
}

type runSusp struct{ run, susp int }

// carryable reports whether a started job's count depends on its record
// alone: its slots by host, queue, user and group, its preemptable slots
// and its place in its hosts' lists (and, for a few, rusage reserved or a
// resizable job listed, done again every pass). A count carried from an
// earlier pass and corrected is then this pass's count (whether a record
// counted as suspended and preemptable is kept with it: a backfilled job
// is marked apart, and its mark goes before its record leaves). While
// preemptions or resumptions are in flight (a job counts as suspended or
// running by them), and with per-host user limits,
// lsb.resources limits or fairshare accounts (time-dependent), every pass
// counts every started job.
func (p *pass) carryable() bool {
	m := &p.s.mem
	if p.s.noCache || !p.uniqueNames || p.hostUsers || len(p.limits.limits) > 0 ||
		len(m.resuming) > 0 || len(m.preempting) > 0 || len(p.fs.hpart) > 0 {
		return false
	}
	for _, q := range p.queues {
		if q.fairshare {
			return false
		}
	}
	return true
}

// countCarried makes the pass's count from the one carried (or from every
// started job when none is) and keeps it for the next pass.
func (p *pass) countCarried() {
	s := p.s
	c := s.carry
	v := p.in.View
	if s.startedInfo == nil {
		s.startedInfo = make(map[*state.Job]startedInfo, v.NumStarted())
	}
	if c == nil || len(c.hosts) != len(p.hosts) || len(c.queues) != len(p.queues) {
		p.unfast() // every host is counted
		c = &carried{hosts: make([]carriedHost, len(p.hosts)), queues: make([]carriedQueue, len(p.queues)),
			users: map[string]runSusp{}, groups: map[string]runSusp{}, special: map[*state.Job]struct{}{},
			preempted: map[*state.Job]struct{}{}}
		for i := range c.queues {
			c.queues[i].userUsed = map[string]int{}
		}
		clear(s.startedInfo)
		v.Started(func(j *state.Job) bool {
			p.carry(c, j, 1)
			return true
		})
	} else {
		v.StartedChanges(c.view, func(j *state.Job) { p.carry(c, j, -1) }, func(j *state.Job) { p.carry(c, j, 1) })
	}
	c.view = v
	s.carry = c
	p.carried = c
	if p.fast {
		// The other hosts hold the count the last pass installed.
		for _, i := range p.recount {
			p.install(p.hosts[i], &c.hosts[i])
		}
	} else {
		for i, h := range p.hosts {
			p.install(h, &c.hosts[i])
		}
	}
	for i, q := range p.queues {
		cq := &c.queues[i]
		q.used = cq.used
		q.userUsed, q.userUsedShared = cq.userUsed, true
	}
	// Users and groups are made when first asked for (pass.user, group);
	// those made already get their count now.
	p.carriedUsers, p.carriedGroups = c.users, c.groups
	for name, u := range p.users {
		rs := c.users[name]
		u.run, u.susp = u.run+rs.run, u.susp+rs.susp
	}
	for name, g := range p.groups {
		rs := c.groups[name]
		g.run, g.susp = g.run+rs.run, g.susp+rs.susp
	}
	for j := range c.special {
		if si := s.startedInfo[j]; si.rusage {
			p.reserveRunning(j)
		}
		p.noteResizable(j)
	}
}

// install gives a host view its carried count.
func (p *pass) install(h *hostCtx, ch *carriedHost) {
	h.run, h.susp = ch.run, ch.susp
	h.hasJobs, h.exclusive = ch.jobs > 0, ch.excl > 0
	if ch.queueSlots != nil {
		copy(h.queueSlots, ch.queueSlots)
	}
	if p.preemption {
		if ch.preRun != nil {
			copy(h.preRun, ch.preRun)
		}
		if !h.jobsShared || len(h.jobs) != len(ch.list) || unsafe.SliceData(h.jobs) != unsafe.SliceData(ch.list) {
			h.jobs, h.jobsShared = ch.list, true // read only
		}
	}
	h.setSlotValues()
}

// carry adds (sign 1) or takes out (-1) a started record's slots, as
// countJobOn counts them.
func (p *pass) carry(c *carried, j *state.Job, sign int) {
	s := p.s
	si, ok := s.startedInfo[j]
	if !ok {
		si = p.resolveStarted(j)
	}
	q := p.queueOf(j.Queue)
	if sign > 0 || !ok {
		// Kept with the record so that taking it out takes out what was
		// added (a backfilled job's mark is dropped before its record
		// leaves the index).
		si.susp, si.pre = p.countedAs(j, q)
	}
	if sign > 0 {
		s.startedInfo[j] = si
	} else {
		delete(s.startedInfo, j)
	}
	if !si.known {
		return
	}
	if si.rusage || j.ResizeMax > 0 || j.Spec.AutoResizable {
		if sign > 0 {
			c.special[j] = struct{}{}
		} else {
			delete(c.special, j)
		}
	}
	if j.State == api.StateSSusp && j.SuspReasons&SuspReschedPreempt != 0 {
		if sign > 0 {
			c.preempted[j] = struct{}{}
		} else {
			delete(c.preempted, j)
		}
	}
	susp, pre := si.susp, si.pre
	total := 0
	for i, eh := range j.ExecHosts {
		n := int(eh.Slots) * sign
		total += n
		if si.hosts[i] < 0 {
			continue
		}
		ch := &c.hosts[si.hosts[i]]
		if p.fast {
			p.addRecount(p.hosts[si.hosts[i]])
		}
		if susp {
			ch.susp += n
		} else {
			ch.run += n
		}
		if q != nil {
			if ch.queueSlots == nil {
				ch.queueSlots = make([]int32, len(p.queues))
			}
			ch.queueSlots[q.idx] += int32(n)
			if pre {
				if ch.preRun == nil {
					ch.preRun = make([]int32, len(p.queues))
				}
				ch.preRun[q.idx] += int32(n)
			}
		}
		if p.preemption {
			if sign > 0 {
				ch.list = append(ch.list, j)
			} else if k := slices.Index(ch.list, j); k >= 0 {
				last := len(ch.list) - 1
				ch.list[k], ch.list[last] = ch.list[last], nil
				ch.list = ch.list[:last]
			}
		}
		ch.jobs += sign
		if j.Spec.Exclusive {
			ch.excl += sign
		}
	}
	if q != nil {
		cq := &c.queues[q.idx]
		cq.used += total
		addOrDrop(cq.userUsed, j.User, total)
	}
	add := func(m map[string]runSusp, k string) {
		rs := m[k]
		if susp {
			rs.susp += total
		} else {
			rs.run += total
		}
		if rs == (runSusp{}) {
			delete(m, k)
		} else {
			m[k] = rs
		}
	}
	add(c.users, j.User)
	for _, g := range p.userGroups[j.User] {
		add(c.groups, g)
	}
}

// addOrDrop adds n to m[k], dropping the entry when it comes to zero.
func addOrDrop(m map[string]int, k string, n int) {
	if v := m[k] + n; v != 0 {
		m[k] = v
	} else {
		delete(m, k)
	}
}
