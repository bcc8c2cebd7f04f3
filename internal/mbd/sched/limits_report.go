package sched

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/resreq"
)

// report is what blimits shows after the pass (called on demand, from
// Published.Limits: the state is no longer modified once the pass is
// over, and passes need not pay for rows nobody asks for): a row per limit and
// consumer with usage (the counts the pass checked jobs against, dispatches
// of this pass included), and a row without usage for each limit nothing
// counts against. Limits outside every time window of their values are not
// in force and absent. MEM, SWP and TMP given in percent are shown as
// configured (percent), not converted per host.
func (ls *limitState) report(table *resreq.Table) []*api.LimitUsage {
	var rows []*api.LimitUsage
	used := map[int]bool{}
	keys := make([]limitKey, 0, len(ls.used))
	for k := range ls.used {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b limitKey) int {
		return cmp.Or(cmp.Compare(a.l, b.l), cmp.Compare(a.user, b.user), cmp.Compare(a.queue, b.queue),
			cmp.Compare(a.host, b.host), cmp.Compare(a.prj, b.prj))
	})
	byIdx := make(map[int]*limitDef, len(ls.limits))
	for _, d := range ls.limits {
		byIdx[d.idx] = d
	}
	for _, k := range keys {
		d, u := byIdx[k.l], ls.used[k]
		if d == nil || u.jobs == 0 && u.slots == 0 && len(u.amounts) == 0 {
			continue
		}
		used[d.idx] = true
		rows = append(rows, d.row(table, k, u))
	}
	for _, d := range ls.limits {
		if !used[d.idx] {
			rows = append(rows, d.row(table, limitKey{l: d.idx}, nil))
		}
	}
	slices.SortStableFunc(rows, func(a, b *api.LimitUsage) int { return cmp.Compare(a.Name, b.Name) })
	return rows
}

func (d *limitDef) row(table *resreq.Table, k limitKey, u *limitUse) *api.LimitUsage {
	l := d.l
	name := l.Name
	if name == "" {
		name = fmt.Sprintf("NONAME%03d", d.idx) // LSF's name for an unnamed limit
	}
	r := &api.LimitUsage{Name: name, InUse: u != nil,
		Users:    consumerText(l.Users, l.PerUser, k.user),
		Queues:   consumerText(l.Queues, l.PerQueue, k.queue),
		Hosts:    consumerText(l.Hosts, l.PerHost, k.host),
		Projects: consumerText(l.Projects, l.PerProject, k.prj),
	}
	if u == nil {
		u = &limitUse{}
	}
	if d.slots >= 0 {
		r.Slots, r.SlotsMax, r.HasSlots = u.slots, d.slots, true
	}
	if d.jobs >= 0 {
		r.Jobs, r.JobsMax, r.HasJobs = u.jobs, d.jobs, true
	}
	if v, ok := d.amounts[resreq.IdxMem]; ok {
		r.Mem, r.MemMax, r.HasMem = u.amounts[resreq.IdxMem], v, true
	}
	if v, ok := d.amounts[resreq.IdxTmp]; ok {
		r.Tmp, r.TmpMax, r.HasTmp = u.amounts[resreq.IdxTmp], v, true
	}
	if v, ok := d.amounts[resreq.IdxSwp]; ok {
		r.Swp, r.SwpMax, r.HasSwp = u.amounts[resreq.IdxSwp], v, true
	}
	for _, nl := range l.Resources {
		if i, ok := table.Index(nl.Name); ok {
			r.Resources = append(r.Resources, &api.LimitAmount{Name: nl.Name, Used: u.amounts[i], Max: d.amounts[i]})
		}
	}
	return r
}

// consumerText is a row's consumer column: the consumer counted (a PER_*
// limit's row), else the configured list ("all", "all ~user3", "u1 u2"),
// "" when the limit has no such consumer.
func consumerText(whole, per config.Consumer, counted string) string {
	if counted != "" {
		return counted
	}
	c := whole
	if !c.Set {
		c = per
	}
	if !c.Set {
		return ""
	}
	var parts []string
	if c.All {
		parts = append(parts, "all")
	}
	parts = append(parts, c.Names...)
	for _, e := range c.Except {
		parts = append(parts, "~"+e)
	}
	return strings.Join(parts, " ")
}
