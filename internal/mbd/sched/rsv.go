package sched

import (
	"slices"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/job"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
)

// Advance reservations (brsvadd; state/rsv.go holds them). During a
// reservation's window the slots it holds on its hosts are kept from every
// job not of it (rsvFilter), and a job of it (bsub -U) runs only on its
// hosts, within the window and within its slots (rsvGate, rsvFilter). A
// system reservation holds every slot of its hosts, so no job runs there.
//
// The filter is Transient (it depends on the job's reservation). It cannot
// cap how many slots the allocator then takes on a host, so it is
// conservative: a job not of a reservation may use a reserved host only if
// all its slots fit beside the reservation's unused ones.

// Pending reasons: numbers and texts are Basalt's (LSF's were not found).
const (
	PendRsvInactive  int32 = 85   // "Job is waiting for advance reservation to become active"
	PendRsvGone      int32 = 86   // the reservation has ended or was deleted
	PendRsvFull      int32 = 87   // its free slots are fewer than the job's
	PendHostRsv      int32 = 1345 // host slots held by an advance reservation
	PendHostNotInRsv int32 = 1346 // not a host of the job's reservation
)

// RsvAllows reports whether user may submit jobs to r: one of its users,
// or a member of its user group.
func RsvAllows(cfg *config.Config, r *api.EvRsv, user string) bool {
	if r.Type == api.RsvSystem {
		return false
	}
	for _, u := range r.Users {
		if u == user {
			return true
		}
		if g := cfg.UserGroup(u); g != nil && (g.All || slices.Contains(g.Members, user)) {
			return true
		}
	}
	return false
}

// rsvPass is one pass's view of the active reservations.
type rsvPass struct {
	active map[string]*api.EvRsv
	// held are the slots held on each host by active reservations; used
	// the slots their jobs use there (per reservation and host).
	held map[string]int
	used map[string]map[string]int
	// seen counts the plan's dispatches already charged.
	seen int
}

// rsvState builds the pass's reservation view once, then charges the
// dispatches the pass has made since.
func (p *pass) rsvState() *rsvPass {
	if p.rsv == nil {
		rp := &rsvPass{active: map[string]*api.EvRsv{}, held: map[string]int{}, used: map[string]map[string]int{}}
		v := p.in.View
		for _, r := range v.Rsvs() {
			b, _, active := state.RsvSpan(r, p.in.Now)
			if !active {
				p.wakeAt(b)
				continue
			}
			rp.active[r.ID] = r
			rp.used[r.ID] = map[string]int{}
			for _, h := range r.Hosts {
				rp.held[h.Host] += int(h.Slots)
			}
		}
		if len(rp.active) > 0 {
			seen := map[state.Key]bool{}
			for _, h := range v.StartedHosts() {
				v.OnHost(h, func(j *state.Job) bool {
					if seen[j.Key] || !job.Started(j.State) || rp.active[j.Spec.Reservation] == nil {
						return true
					}
					seen[j.Key] = true
					for _, eh := range j.ExecHosts {
						rp.used[j.Spec.Reservation][eh.Host] += int(eh.Slots)
					}
					return true
				})
			}
		}
		p.rsv = rp
	}
	rp := p.rsv
	for ; rp.seen < len(p.plan.Dispatches); rp.seen++ {
		d := p.plan.Dispatches[rp.seen]
		j := p.in.View.Job(d.Key)
		if j == nil || rp.active[j.Spec.Reservation] == nil {
			continue
		}
		for _, eh := range d.Hosts {
			rp.used[j.Spec.Reservation][eh.Host] += int(eh.Slots)
		}
	}
	return rp
}

// unused is how many of the slots reservations hold on host their jobs do
// not use.
func (rp *rsvPass) unused(host string) int {
	n := 0
	for id, r := range rp.active {
		for _, h := range r.Hosts {
			if h.Host == host {
				n += max(int(h.Slots)-rp.used[id][host], 0)
			}
		}
	}
	return n
}

// free is how many of r's slots on host its jobs do not use (-1: host is
// not one of r's).
func (rp *rsvPass) free(r *api.EvRsv, host string) int {
	for _, h := range r.Hosts {
		if h.Host == host {
			return int(h.Slots) - rp.used[r.ID][host]
		}
	}
	return -1
}

// rsvGate holds a job of a reservation (bsub -U) until the reservation is
// active and has room for it.
type rsvGate struct{}

func (rsvGate) Name() string { return "advance-reservation" }
func (rsvGate) Gate(p *pass, jc *jobCtx) []*api.PendReason {
	id := jc.j.Spec.Reservation
	if id == "" {
		return nil
	}
	r, ok := p.in.View.Rsv(id)
	if !ok {
		return p.one(PendRsvGone)
	}
	rp := p.rsvState()
	if rp.active[id] == nil {
		if r.Window == "" && p.in.Now.Unix() >= r.End {
			return p.one(PendRsvGone)
		}
		return p.one(PendRsvInactive)
	}
	free := 0
	for _, h := range r.Hosts {
		free += max(rp.free(r, h.Host), 0)
	}
	if free < max(jc.slots, 1) {
		return p.one(PendRsvFull)
	}
	return nil
}

// rsvFilter keeps a job of a reservation on its hosts, and any other job
// off the slots active reservations hold.
type rsvFilter struct{}

func (rsvFilter) Name() string     { return "advance-reservation" }
func (rsvFilter) Kind() FilterKind { return Transient }
func (rsvFilter) Filter(p *pass, c *class, jc *jobCtx, h *hostCtx) int32 {
	id := jc.j.Spec.Reservation
	if id == "" && p.in.View.NumRsvs() == 0 {
		return 0
	}
	rp := p.rsvState()
	if r := rp.active[id]; r != nil {
		own := rp.free(r, h.Name)
		if own <= 0 {
			return PendHostNotInRsv
		}
		// Other reservations' unused slots here are not its to take.
		if p.hostFree(c.key.view, c.q, jc, h)-(rp.unused(h.Name)-own) < 1 {
			return PendHostRsv
		}
		return 0
	}
	if rp.held[h.Name] == 0 {
		return 0
	}
	if p.hostFree(c.key.view, c.q, jc, h)-rp.unused(h.Name) < max(jc.slots, 1) {
		return PendHostRsv
	}
	return 0
}
