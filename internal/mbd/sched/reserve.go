package sched

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
	"github.com/basalt-lsf/basalt/internal/resreq"
)

// Resource reservation (rusage). A started job reserves, from its start,
// the amounts of the rusage alternative it was dispatched with: for its
// whole life, or for duration (decreasing linearly to 0 with decay=1).
// Host-based resources are reserved on each execution host, once per host
// or, with RESOURCE_RESERVE_PER_TASK=Y, once per slot; shared resources
// once per job, on the instance the job's first host uses. Reserved
// amounts are subtracted from decreasing indices (mem) and added to
// increasing ones, in the pass's copy of every host's values, so later
// decisions of the same pass and of later passes see them.

// usageAt is the amount of u reserved at elapsed seconds into the job.
func usageAt(u resreq.Usage, elapsed float64) float64 {
	if u.Duration <= 0 {
		return u.Value
	}
	d := u.Duration.Seconds()
	if elapsed >= d {
		return 0
	}
	if u.Decay {
		return u.Value * (1 - elapsed/d)
	}
	return u.Value
}

// execRusage renders an alternative as LSB_EXEC_RUSAGE shows it.
func execRusage(alt []resreq.Usage) string {
	var b strings.Builder
	for i, u := range alt {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(u.Name)
		b.WriteByte(' ')
		b.WriteString(strconv.FormatFloat(u.Value, 'g', -1, 64))
	}
	return b.String()
}

// chosenAlternative finds the alternative a started job reserved.
func chosenAlternative(alts [][]resreq.Usage, exec string) []resreq.Usage {
	if len(alts) == 0 {
		return nil
	}
	if exec != "" {
		for _, a := range alts {
			if execRusage(a) == exec {
				return a
			}
		}
	}
	return alts[0]
}

// reserveRunning charges a started job's current reservations.
func (p *pass) reserveRunning(j *state.Job) {
	q := p.queueOf(j.Queue)
	if q == nil || len(j.ExecHosts) == 0 {
		return
	}
	e := p.reqOf(j, q)
	if e.c == nil {
		return
	}
	alts := e.c.Rusage
	if len(alts) == 0 {
		return
	}
	alt := chosenAlternative(alts, j.ExecRusage)
	elapsed := p.in.Now.Sub(unix(j.StartTime)).Seconds()
	if elapsed < 0 {
		elapsed = 0
	}
	p.reserveAlt(alt, j.ExecHosts, elapsed)
}

func (p *pass) reserveAlt(alt []resreq.Usage, hosts []*api.ExecHost, elapsed float64) {
	perTask := p.cfg.Params.ResourceReservePerTask
	for _, u := range alt {
		amount := usageAt(u, elapsed)
		if amount <= 0 {
			continue
		}
		def := p.in.Table.Def(u.Index)
		if def.Shared {
			if h := p.byName[hosts[0].Host]; h != nil {
				for _, m := range p.instance(u.Index, h) {
					p.reserveOn(p.hosts[m], u.Index, amount, def.Increasing)
				}
				p.sharedGen++
			}
			continue
		}
		for _, eh := range hosts {
			h := p.byName[eh.Host]
			if h == nil {
				continue
			}
			a := amount
			if perTask {
				a *= float64(eh.Slots)
			}
			p.reserveOn(h, u.Index, a, def.Increasing)
		}
	}
}

func (p *pass) reserveOn(h *hostCtx, i int, amount float64, increasing bool) {
	if h.reserved == nil {
		h.reserved = map[int]float64{}
	}
	h.reserved[i] += amount
	h.valsDirty, p.valsChanged = true, true
	p.markNext(h)
	if i == resreq.IdxSlots || i == resreq.IdxMaxslots {
		h.slotsSet = false
	}
	if h.vals.Num != nil && i < len(h.vals.Num) {
		if increasing {
			h.vals.Num[i] += amount
		} else {
			h.vals.Num[i] -= amount
		}
	}
}

// instance returns the hosts sharing h's instance of shared resource i
// (lsf.cluster ResourceMap); every host that has a value when the map does
// not say.
func (p *pass) instance(i int, h *hostCtx) []int32 {
	if p.instances == nil {
		p.instances = map[instKey][]int32{}
	}
	name := p.in.Table.Def(i).Name
	m := p.cfg.Cluster.Mapping(name)
	id := -1
	if m != nil {
		for k, in := range m.Instances {
			if in.All && !containsFold(in.Except, h.Name) || containsFold(in.Hosts, h.Name) {
				id = k
				break
			}
		}
	}
	k := instKey{i, id}
	if hs, ok := p.instances[k]; ok {
		return hs
	}
	var hs []int32
	for _, x := range p.hosts {
		member := false
		if m != nil && id >= 0 {
			in := m.Instances[id]
			member = in.All && !containsFold(in.Except, x.Name) || containsFold(in.Hosts, x.Name)
		} else {
			member = x.vals.Num != nil && i < len(x.vals.Num) && !math.IsNaN(x.vals.Num[i])
		}
		if member {
			hs = append(hs, x.idx)
		}
	}
	p.instances[k] = hs
	return hs
}

type instKey struct{ index, instance int }

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// rusageAlternative returns the first alternative that h can reserve for
// slots of the job (at least one), or -1 and the reason code of the first
// alternative's first missing resource.
func (p *pass) rusageAlternative(alts [][]resreq.Usage, jc *jobCtx, h *hostCtx, slots int) (int, int32) {
	slots = max(slots, 1)
	var first int32
	for ai, alt := range alts {
		ok := true
		for _, u := range alt {
			def := p.in.Table.Def(u.Index)
			if def.Increasing || u.Index >= len(h.vals.Num) {
				continue
			}
			need := u.Value
			if p.cfg.Params.ResourceReservePerTask && !def.Shared {
				need *= float64(slots)
			}
			if v := h.vals.Num[u.Index]; math.IsNaN(v) || v < need {
				ok = false
				if ai == 0 {
					first = p.loadCode(PendHostJobRusage, u.Index)
				}
				break
			}
		}
		if ok {
			return ai, 0
		}
	}
	return -1, first
}

// rusageCapacity bounds the slots h can take when the job reserves per
// task: the best alternative's smallest available/needed ratio.
func (p *pass) rusageCapacity(alts [][]resreq.Usage, h *hostCtx, n int) int {
	if !p.cfg.Params.ResourceReservePerTask || len(alts) == 0 || h.vals.Num == nil {
		return n
	}
	best := 0
	for _, alt := range alts {
		m := n
		for _, u := range alt {
			def := p.in.Table.Def(u.Index)
			if def.Increasing || def.Shared || u.Value <= 0 || u.Index >= len(h.vals.Num) {
				continue
			}
			m = min(m, int(math.Floor(h.vals.Num[u.Index]/u.Value+1e-9)))
		}
		best = max(best, m)
	}
	return max(best, 0)
}

// exportReservations fills Plan.Reserved.
func (p *pass) exportReservations() {
	for _, h := range p.hosts {
		if len(h.reserved) == 0 && h.rsvSlots == 0 {
			continue
		}
		hr := &HostReservation{Slots: h.rsvSlots}
		idx := make([]int, 0, len(h.reserved))
		for i := range h.reserved {
			idx = append(idx, i)
		}
		sort.Ints(idx)
		for _, i := range idx {
			if a := h.reserved[i]; a > 0 {
				hr.Resources = append(hr.Resources, ReservedValue{Index: p.in.Table.Def(i).Name, Amount: a})
			}
		}
		p.plan.Reserved[h.Name] = hr
	}
}
