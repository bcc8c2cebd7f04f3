package sched

import (
	"sort"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
)

// Preemption (seed 001, lsf-reference §4).
//
// A preemptive queue (one whose resolved Preempts list is not empty) does
// not count suspended jobs against MXJ or a user's MAX_JOBS. When one of its
// jobs finds no slots, it looks again leaving out the running jobs it may
// preempt; if that places it, enough of those jobs are preempted on each
// chosen host to keep the host's running slots within MXJ: candidates in
// the order of the queue's Preempts (preference, then lower priority
// first), and within a queue by default the job last in the queue's
// dispatch order (lowest user priority, latest submitted); with PREEMPT_FOR=
// LEAST_RUN_TIME the job that has run the shortest wall-clock time. Hosts are taken in the job's order (least loaded first).
// Without MINI_JOB a parallel victim frees slots on other hosts that are
// not credited there, so more jobs may be preempted than needed; MINI_JOB
// credits them; OPTIMAL_MINI_JOB also prefers the victims with the most
// slots (fewest victims).
//
// A victim is suspended (SSUSP, SUSP_RESCHED_PREEMPT, the queue's SUSPEND
// action) or, with TERMINATE_WHEN=PREEMPT in its queue, terminated
// (TERM_PREEMPT). It cannot be preempted when forced with brun -f, when
// exclusive or started by backfill (unless PREEMPT_JOBTYPE says
// EXCLUSIVE/BACKFILL), or when it was preempted MAX_JOB_PREEMPT times
// (queue value, else lsb.params; the count survives restarts in the
// state). Preempted jobs are resumed first, higher priority queues first,
// as soon as their hosts have the slots (resumePreempted).

// preemptable reports whether a running job may be preempted at all.
func (p *pass) preemptable(j *state.Job) bool {
	if j.State != api.StateRun || j.NoSuspend || !p.isPreemptableQueue(j.Queue) {
		return false
	}
	if _, ok := p.s.mem.preempting[j.Key]; ok {
		return false
	}
	if _, ok := p.s.mem.resuming[j.Key]; ok {
		return false
	}
	types := p.cfg.Params.PreemptJobType
	if j.Spec.Exclusive && !contains(types, "EXCLUSIVE") {
		return false
	}
	if (p.s.mem.backfill[j.Key] || j.BackfillLimit > 0) && !contains(types, "BACKFILL") {
		return false
	}
	// MAX_JOB_PREEMPT: the application profile's, else the queue's, else
	// lsb.params'.
	lim := p.cfg.Params.MaxJobPreempt
	if q := p.queueOf(j.Queue); q != nil && q.cfg.MaxJobPreempt > 0 {
		lim = q.cfg.MaxJobPreempt
	}
	if a := p.app(j); a != nil && a.MaxJobPreempt > 0 {
		lim = a.MaxJobPreempt
	}
	return lim <= 0 || int(j.PreemptCount) < lim
}

func (p *pass) isPreemptableQueue(name string) bool {
	q := p.queueOf(name)
	return q != nil && p.preemptableQueue(q)
}

// preemptableQueue reports whether some queue may preempt q.
func (p *pass) preemptableQueue(q *queueCtx) bool { return q.victim }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// chooseVictims picks the jobs to preempt for a placement found with the
// preemptive view.
func (p *pass) chooseVictims(jc *jobCtx, hosts []*api.ExecHost) ([]Preemption, bool) {
	params := p.cfg.Params
	mini := params.HasPreemptFor("MINI_JOB") || params.HasPreemptFor("OPTIMAL_MINI_JOB")
	optimal := params.HasPreemptFor("OPTIMAL_MINI_JOB")
	leastRun := params.HasPreemptFor("LEAST_RUN_TIME")
	chosen := map[state.Key]bool{}
	credit := map[string]int{} // slots freed on a host by victims chosen elsewhere
	var out []Preemption
	for _, eh := range hosts {
		h := p.byName[eh.Host]
		limit := h.max
		if h.MaxSlots < 0 {
			continue
		}
		deficit := h.run + int(eh.Slots) - limit
		if mini {
			deficit -= credit[h.Name]
		}
		if deficit <= 0 {
			continue
		}
		var cands []*state.Job
		for _, j := range h.jobs {
			if chosen[j.Key] || !p.preemptable(j) {
				continue
			}
			if q := p.qByName[j.Queue]; q == nil || !jc.q.preempts[q.idx] {
				continue
			}
			cands = append(cands, j)
		}
		sort.SliceStable(cands, func(a, b int) bool {
			qa, qb := p.qByName[cands[a].Queue], p.qByName[cands[b].Queue]
			if ra, rb := jc.q.prefOf[qa.idx], jc.q.prefOf[qb.idx]; ra != rb {
				return ra < rb
			}
			if optimal {
				if sa, sb := slotsOn(cands[a], h.Name), slotsOn(cands[b], h.Name); sa != sb {
					return sa > sb
				}
			}
			if leastRun {
				if cands[a].StartTime != cands[b].StartTime {
					return cands[a].StartTime > cands[b].StartTime
				}
			}
			return before(cands[b], cands[a])
		})
		for _, v := range cands {
			if deficit <= 0 {
				break
			}
			chosen[v.Key] = true
			deficit -= slotsOn(v, h.Name)
			for _, x := range v.ExecHosts {
				if x.Host != h.Name {
					credit[x.Host] += int(x.Slots)
				}
			}
			vq := p.qByName[v.Queue]
			out = append(out, Preemption{Key: v.Key, Host: v.ExecHosts[0].Host, By: jc.j.Key, RunCount: v.RunCount,
				Terminate: contains(vq.cfg.TerminateWhen, "PREEMPT")})
		}
		if deficit > 0 {
			return nil, false
		}
	}
	return out, true
}

func slotsOn(j *state.Job, host string) int {
	n := 0
	for _, eh := range j.ExecHosts {
		if eh.Host == host {
			n += int(eh.Slots)
		}
	}
	return n
}

// preempt records the victims and moves their slots out of the running
// count (a terminated job's slots are freed).
func (p *pass) preempt(jc *jobCtx, victims []Preemption) {
	if len(victims) > 0 {
		p.freedGen++ // hosts found full may have room again
	}
	for _, v := range victims {
		j := p.in.View.Job(v.Key)
		if j == nil {
			continue
		}
		p.plan.Preemptions = append(p.plan.Preemptions, v)
		p.s.mem.preempting[v.Key] = inflight{at: p.in.Now, run: j.RunCount}
		vq := p.qByName[j.Queue]
		for _, eh := range j.ExecHosts {
			h := p.byName[eh.Host]
			if h == nil {
				continue
			}
			n := int(eh.Slots)
			h.run -= n
			if h.preRun != nil && vq != nil {
				h.preRun[vq.idx] -= int32(n)
			}
			if v.Terminate {
				if vq != nil {
					h.queueSlots[vq.idx] -= int32(n)
				}
			} else {
				h.susp += n
			}
			if h.userRun != nil {
				h.userRun[j.User] -= n
				if !v.Terminate {
					h.userSusp[j.User] += n
				}
			}
			p.touch(h)
		}
		u := p.user(j.User)
		u.run -= int(j.Slots())
		if !v.Terminate {
			u.susp += int(j.Slots())
		} else if vq != nil {
			vq.used -= int(j.Slots())
			vq.addUserUsed(j.User, -int(j.Slots()))
		}
	}
}

// collectPreempted lists the preempted jobs (SSUSP with
// SUSP_RESCHED_PREEMPT) in the order they are resumed: higher priority
// queues first, then the earliest suspended.
func (p *pass) collectPreempted() {
	if !p.preemption {
		return
	}
	var cands []*state.Job
	if c := p.carried; c != nil {
		// The same records as the walk below finds (carry.go).
		for j := range c.preempted {
			if _, ok := p.s.mem.resuming[j.Key]; !ok {
				cands = append(cands, j)
			}
		}
	} else {
		seen := map[state.Key]bool{}
		for _, h := range p.hosts {
			for _, j := range h.jobs {
				if seen[j.Key] || j.State != api.StateSSusp || j.SuspReasons&SuspReschedPreempt == 0 {
					continue
				}
				seen[j.Key] = true
				if _, ok := p.s.mem.resuming[j.Key]; ok {
					continue
				}
				cands = append(cands, j)
			}
		}
	}
	sort.SliceStable(cands, func(a, b int) bool {
		qa, qb := p.qByName[cands[a].Queue], p.qByName[cands[b].Queue]
		pa, pb := 0, 0
		if qa != nil {
			pa = qa.cfg.Priority
		}
		if qb != nil {
			pb = qb.cfg.Priority
		}
		if pa != pb {
			return pa > pb
		}
		if cands[a].StateTime != cands[b].StateTime {
			return cands[a].StateTime < cands[b].StateTime
		}
		return before(cands[a], cands[b])
	})
	p.toResume = cands
}

// resumeUpTo resumes the preempted jobs of queues of priority prio or
// higher whose hosts have the slots again. It runs before each queue's
// turn, so a preempted job gets its slots back before any job of its own
// queue or of a lower one starts, while jobs of higher priority queues
// (the ones that preempted it) go first.
func (p *pass) resumeUpTo(prio int) {
	for len(p.toResume) > 0 {
		j := p.toResume[0]
		if q := p.qByName[j.Queue]; q != nil && q.cfg.Priority < prio {
			return
		}
		p.toResume = p.toResume[1:]
		fits := true
		for _, eh := range j.ExecHosts {
			h := p.byName[eh.Host]
			if h == nil || h.MaxSlots >= 0 && h.run+int(eh.Slots) > h.max {
				fits = false
				break
			}
		}
		if l := p.userRow(j.User); fits && l != nil && l.MaxJobs >= 0 && p.user(j.User).run+int(j.Slots()) > l.MaxJobs {
			fits = false
		}
		if !fits {
			continue
		}
		p.plan.Resumes = append(p.plan.Resumes, Resume{Key: j.Key, Host: j.ExecHosts[0].Host, RunCount: j.RunCount})
		p.s.mem.resuming[j.Key] = inflight{at: p.in.Now, run: j.RunCount}
		q := p.qByName[j.Queue]
		pre := p.preemptable(j) // false while resuming: its slots are not preemptable this pass
		for _, eh := range j.ExecHosts {
			h := p.byName[eh.Host]
			n := int(eh.Slots)
			h.run += n
			h.susp -= n
			if pre && h.preRun != nil && q != nil {
				h.preRun[q.idx] += int32(n)
			}
			if h.userRun != nil {
				h.userRun[j.User] += n
				h.userSusp[j.User] -= n
			}
			p.touch(h)
		}
		u := p.user(j.User)
		u.run += int(j.Slots())
		u.susp -= int(j.Slots())
	}
}

// forgetSettled drops in-flight preemptions and resumptions that took
// effect (the job's state changed), whose run ended, or that are older than
// two dispatch intervals (the signal was lost: decide again).
func (s *Scheduler) forgetSettled(p *pass) {
	timeout := 2 * p.cfg.Params.MBDSleepTime
	if timeout < 20*time.Second {
		timeout = 20 * time.Second
	}
	for k, f := range s.mem.preempting {
		j := p.in.View.Job(k)
		if j == nil || j.RunCount != f.run || j.State != api.StateRun || p.in.Now.Sub(f.at) > timeout {
			delete(s.mem.preempting, k)
		}
	}
	for k, f := range s.mem.resuming {
		j := p.in.View.Job(k)
		if j == nil || j.RunCount != f.run || j.State != api.StateSSusp || p.in.Now.Sub(f.at) > timeout {
			delete(s.mem.resuming, k)
		}
	}
	for k := range s.mem.backfill {
		if j := p.in.View.Job(k); j == nil || !started(j.State) {
			delete(s.mem.backfill, k)
		}
	}
}

// Forget tells the scheduler that a preemption or resumption it planned
// was not carried out (the event could not be recorded), so the next pass
// decides again.
func (s *Scheduler) Forget(k state.Key) {
	s.feedMu.Lock()
	defer s.feedMu.Unlock()
	s.forgotten = append(s.forgotten, k)
}
