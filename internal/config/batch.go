package config

import (
	"context"
	"path"
	"sort"
	"strings"

	"github.com/basalt-lsf/basalt/internal/config/timewin"
	"github.com/basalt-lsf/basalt/internal/resreq"
)

// BatchHost is a server host of the cluster with its lsb.hosts parameters
// resolved (its own row, else its group's, model's, type's, else default).
type BatchHost struct {
	Name  string
	Model string
	Type  string
	// MXJ is the job slot limit, -1 unlimited; MXJCPUs means "the number of
	// CPUs" ('!'), known when the host reports.
	MXJ            int
	MXJCPUs        bool
	JLU            int // 0 = unlimited
	DispatchWindow timewin.Window
	// Thresholds are lsb.hosts' loadSched/loadStop for the host.
	Thresholds []LoadThreshold
	Mig        int // minutes; -1 = none
	// Row is the lsb.hosts row that applied ("" when none did).
	Row string
}

// Pool is a queue-based fairshare pool (SLOT_POOL).
type Pool struct {
	Name string
	// Queues are the pool's queues, highest priority first (lsb.queues
	// order among equal priorities), with their SLOT_SHARE.
	Queues      []QueueShare
	MaxSlots    int // MAX_SLOTS_IN_POOL of the pool's first queue; 0 = none
	UsePriority bool
}

// QueueShare is a queue's share of its pool.
type QueueShare struct {
	Queue string
	Share int
}

// BatchHost returns the batch host named name (case-insensitively).
func (c *Config) BatchHost(name string) *BatchHost {
	for _, h := range c.BatchHosts {
		if strings.EqualFold(h.Name, name) {
			return h
		}
	}
	return nil
}

// HostGroup returns the lsb.hosts host group named name.
func (c *Config) HostGroup(name string) *HostGroup { return c.LSBHosts.Group(name) }

// UserGroup returns the lsb.users user group named name.
func (c *Config) UserGroup(name string) *UserGroup { return c.Users.Group(name) }

// Pool returns the pool named name.
func (c *Config) Pool(name string) *Pool {
	for _, p := range c.Pools {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// resolver resolves the batch configuration's cross references.
type resolver struct {
	c      *Config
	d      *Diagnostics
	ctx    context.Context
	egroup EGroupFunc
	hosts  []string          // batch host names, cluster order
	byName map[string]string // lower-cased name -> batch host name
}

func (r *resolver) resolve() {
	c := r.c
	r.byName = map[string]string{}
	for _, h := range c.Cluster.Hosts {
		if h.Server {
			r.hosts = append(r.hosts, h.Name)
			r.byName[strings.ToLower(h.Name)] = h.Name
		}
	}
	r.hostGroups()
	r.batchHosts()
	r.partitions()
	r.userGroups()
	r.queues()
	r.mcQueues()
	r.preemption()
	r.pools()
	r.params()
	r.limits()
	r.applications()
}

// applications checks the profiles' RES_REQ and DEFAULT_APPLICATION.
func (r *resolver) applications() {
	c := r.c
	for _, a := range c.Applications {
		c.checkResReq(&a.ResReq, "RES_REQ", "Application <"+a.Name+">", resreq.CtxQueue, r.d)
	}
	if n := c.Params.DefaultApplication; n != "" && c.Application(n) == nil {
		pos := Pos{File: c.Params.Path}
		for _, kv := range c.Params.Raw {
			if kv.Key == "DEFAULT_APPLICATION" {
				pos = kv.Pos
			}
		}
		r.d.Warnf(pos, "DEFAULT_APPLICATION <%s> is not an application profile of lsb.applications; ignored", n)
		c.Params.DefaultApplication = ""
	}
}

// host returns the canonical name of a batch host.
func (r *resolver) host(name string) (string, bool) {
	h, ok := r.byName[strings.ToLower(name)]
	return h, ok
}

// inClusterOrder sorts a set of host names by their cluster order.
func (r *resolver) inClusterOrder(set map[string]bool) []string {
	var out []string
	for _, h := range r.hosts {
		if set[h] {
			out = append(out, h)
		}
	}
	return out
}

// expandHosts expands one host group member or HOSTS name: a host, a
// group, a wildcard (host*), a range (host[1-4]) or all. ok is false for a
// name that is none of these.
func (r *resolver) expandHosts(name string) ([]string, bool) {
	if name == "all" {
		return append([]string(nil), r.hosts...), true
	}
	if h, ok := r.host(name); ok {
		return []string{h}, true
	}
	if g := r.c.LSBHosts.Group(name); g != nil {
		return g.Members, true
	}
	if rg, ok := parseRange(name); ok {
		var out []string
		for _, h := range r.hosts {
			if rg.match(h) {
				out = append(out, h)
			}
		}
		return out, len(out) > 0
	}
	if strings.ContainsAny(name, "*?") {
		var out []string
		for _, h := range r.hosts {
			if ok, _ := path.Match(name, h); ok {
				out = append(out, h)
			}
		}
		return out, len(out) > 0
	}
	return nil, false
}

func (r *resolver) hostGroups() {
	hs := r.c.LSBHosts
	var kept []*HostGroup
	resolved := map[string]bool{}
	var withOthers []*HostGroup
	for _, g := range hs.Groups {
		where := "HostGroup <" + g.Name + ">"
		if _, clash := r.host(g.Name); clash {
			r.d.Warnf(g.Pos, "%s: a group cannot have the name of a host; group ignored", where)
			continue
		}
		members := map[string]bool{}
		except := map[string]bool{}
		spec := g.Spec
		if g.External {
			names, err := r.egroup(r.ctx, "-m", g.Name)
			if err != nil {
				r.d.Warnf(g.Pos, "%s: egroup -m %s failed: %v; the group has no external members", where, g.Name, err)
			}
			spec = append(append([]string(nil), spec...), names...)
		}
		for _, m := range spec {
			target, exclude := m, strings.HasPrefix(m, "~")
			if exclude {
				target = m[1:]
			}
			if target == "others" && !exclude {
				withOthers = append(withOthers, g) // resolved when every other group is
				continue
			}
			if _, isHost := r.host(target); !isHost && hs.Group(target) != nil && !resolved[target] {
				if target == g.Name {
					r.d.Warnf(g.Pos, "%s: a group cannot be its own member; ignored", where)
				} else {
					r.d.Warnf(g.Pos, "%s: group <%s> is used before it is defined; ignored", where, target)
				}
				continue
			}
			names, ok := r.expandHosts(target)
			if !ok {
				r.d.Warnf(g.Pos, "%s: <%s> is not a host or host group of the cluster; ignored", where, target)
				continue
			}
			for _, n := range names {
				if exclude {
					except[n] = true
				} else {
					members[n] = true
				}
			}
		}
		for n := range except {
			delete(members, n)
		}
		g.Members = r.inClusterOrder(members)
		resolved[g.Name] = true
		kept = append(kept, g)
	}
	hs.Groups = kept
	// "others": the hosts in no other group.
	inSome := map[string]bool{}
	for _, g := range kept {
		if !contains(withOthers, g) {
			for _, h := range g.Members {
				inSome[h] = true
			}
		}
	}
	for _, g := range withOthers {
		set := map[string]bool{}
		for _, h := range g.Members {
			set[h] = true
		}
		for _, h := range r.hosts {
			if !inSome[h] {
				set[h] = true
			}
		}
		for _, m := range g.Spec {
			if strings.HasPrefix(m, "~") {
				names, _ := r.expandHosts(m[1:])
				for _, n := range names {
					delete(set, n)
				}
			}
		}
		g.Members = r.inClusterOrder(set)
	}
}

func (r *resolver) batchHosts() {
	c := r.c
	hs := c.LSBHosts
	used := map[*HostRow]bool{}
	for _, h := range c.Cluster.Hosts {
		if !h.Server {
			continue
		}
		bh := &BatchHost{Name: h.Name, Model: h.Model, Type: h.Type, MXJ: -1, Mig: -1}
		row := hs.Row(h.Name)
		if row == nil {
			for _, g := range hs.Groups {
				if r := hs.Row(g.Name); r != nil && contains(g.Members, h.Name) {
					row = r
					break
				}
			}
		}
		if row == nil && h.Model != "" {
			row = hs.Row(h.Model)
		}
		if row == nil && h.Type != "" {
			row = hs.Row(h.Type)
		}
		if row == nil {
			row = hs.Row("default")
		}
		if row != nil {
			used[row] = true
			bh.Row = row.Name
			bh.MXJ, bh.MXJCPUs, bh.JLU = row.MXJ, row.MXJCPUs, row.JLU
			bh.DispatchWindow, bh.Mig = row.DispatchWindow, row.Mig
			bh.Thresholds = r.checkThresholds(row.Thresholds, "Host <"+row.Name+">")
		}
		c.BatchHosts = append(c.BatchHosts, bh)
	}
	for _, row := range hs.Rows {
		if used[row] || strings.EqualFold(row.Name, "default") {
			continue
		}
		isHost := c.Cluster.Host(row.Name) != nil
		_, isModel := c.Shared.Model(row.Name)
		switch {
		case isHost:
			r.d.Warnf(row.Pos, "lsb.hosts: host <%s> is not a server host; line ignored", row.Name)
		case isModel || c.Shared.HasType(row.Name) || hs.Group(row.Name) != nil:
			// A model, type or group no host uses: nothing to apply.
		default:
			r.d.Warnf(row.Pos, "lsb.hosts: <%s> is not a host, host group, host model or host type of the cluster; line ignored", row.Name)
		}
	}
}

func contains[T comparable](list []T, s T) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// checkThresholds keeps the thresholds on built-in indices and on
// host-based (non-shared) numeric dynamic resources.
func (r *resolver) checkThresholds(in []LoadThreshold, where string) []LoadThreshold {
	var out []LoadThreshold
	for _, t := range in {
		pos := t.Pos
		if isBuiltinIndex(t.Index) {
			out = append(out, t)
			continue
		}
		res, ok := r.c.Shared.Resource(t.Index)
		switch {
		case !ok:
			r.d.Warnf(pos, "%s: <%s> is not a load index; ignored", where, t.Index)
		case res.Type != resreq.Numeric || !res.Dynamic():
			r.d.Warnf(pos, "%s: resource <%s> is not a dynamic numeric resource (an external load index); threshold ignored", where, t.Index)
		case r.c.Cluster.Mapping(t.Index) != nil && r.c.Cluster.Mapping(t.Index).Shared():
			r.d.Warnf(pos, "%s: <%s> is a shared resource; thresholds apply only to host-based indices; ignored", where, t.Index)
		default:
			out = append(out, t)
		}
	}
	return out
}

// hostSpec resolves a list of [~]names (all, groups, hosts) to host names.
func (r *resolver) hostSpec(spec []string, where string, pos Pos) []string {
	members := map[string]bool{}
	except := map[string]bool{}
	for _, m := range spec {
		target, exclude := m, strings.HasPrefix(m, "~")
		if exclude {
			target = m[1:]
		}
		names, ok := r.expandHosts(target)
		if !ok {
			r.d.Warnf(pos, "%s: <%s> is not a host or host group of the cluster; ignored", where, target)
			continue
		}
		for _, n := range names {
			if exclude {
				except[n] = true
			} else {
				members[n] = true
			}
		}
	}
	if len(members) == 0 && len(except) > 0 {
		for _, h := range r.hosts {
			members[h] = true
		}
	}
	for n := range except {
		delete(members, n)
	}
	return r.inClusterOrder(members)
}

func (r *resolver) partitions() {
	owner := map[string]string{}
	for _, p := range r.c.LSBHosts.Partitions {
		where := "HostPartition <" + p.Name + ">"
		p.Hosts = r.hostSpec(p.HostSpec, where, p.Pos)
		for _, h := range p.Hosts {
			if o, dup := owner[h]; dup {
				r.d.Warnf(p.Pos, "%s: host <%s> is already in HostPartition <%s>", where, h, o)
			}
			owner[h] = p.Name
		}
		r.fixShares(p.Shares, where)
	}
}

// userGroups expands every user group to its users.
func (r *resolver) userGroups() {
	us := r.c.Users
	external := map[string][]string{} // egroup -u output, run once per group
	var expand func(g *UserGroup, stack []string) map[string]bool
	expand = func(g *UserGroup, stack []string) map[string]bool {
		members := map[string]bool{}
		if contains(stack, g.Name) {
			r.d.Warnf(g.Pos, "UserGroup <%s>: group loop %s; ignored", g.Name, strings.Join(append(stack, g.Name), " -> "))
			return members
		}
		stack = append(stack, g.Name)
		spec := g.Spec
		if g.External {
			if _, ran := external[g.Name]; !ran {
				names, err := r.egroup(r.ctx, "-u", g.Name)
				if err != nil {
					r.d.Warnf(g.Pos, "UserGroup <%s>: egroup -u %s failed: %v; the group has no external members", g.Name, g.Name, err)
				}
				external[g.Name] = names
			}
			spec = append(append([]string(nil), spec...), external[g.Name]...)
		}
		for _, m := range spec {
			if sub := us.Group(m); sub != nil {
				if sub.All {
					g.All = true
				}
				for u := range expand(sub, stack) {
					members[u] = true
				}
				continue
			}
			members[m] = true
		}
		return members
	}
	for _, g := range us.Groups {
		set := expand(g, nil)
		g.Members = g.Members[:0]
		for u := range set {
			g.Members = append(g.Members, u)
		}
		sort.Strings(g.Members)
	}
	for _, g := range us.Groups {
		where := "UserGroup <" + g.Name + ">"
		r.fixShares(g.Shares, where)
		for _, a := range g.Shares {
			switch a.Kind {
			case ShareDefault, ShareOthers:
			case ShareGroup, ShareEach:
				if !contains(g.Spec, a.Name) {
					r.d.Warnf(a.Pos, "%s: USER_SHARES: group <%s> is not a member of the group", where, a.Name)
				}
			default:
				if !g.All && !contains(g.Members, a.Name) {
					r.d.Warnf(a.Pos, "%s: USER_SHARES: user <%s> is not a member of the group", where, a.Name)
				}
			}
		}
	}
	for _, l := range us.Users {
		if l.Each && us.Group(l.Name) == nil {
			r.d.Warnf(l.Pos, "User <%s@>: <%s> is not a user group", l.Name, l.Name)
		}
	}
}

// fixShares sets the kind of share assignments that name user groups, and
// checks that group@ names a group.
func (r *resolver) fixShares(shares []ShareAssignment, where string) {
	for i := range shares {
		a := &shares[i]
		isGroup := r.c.Users.Group(a.Name) != nil
		switch {
		case a.Kind == ShareUser && isGroup:
			a.Kind = ShareGroup
		case a.Kind == ShareEach && !isGroup:
			r.d.Warnf(a.Pos, "%s: USER_SHARES: <%s@> does not name a user group; the shares go to user <%s>", where, a.Name, a.Name)
			a.Kind = ShareUser
		}
	}
}

func (r *resolver) queues() {
	c := r.c
	for _, q := range c.Queues {
		where := "Queue <" + q.Name + ">"
		q.Hosts = r.queueHosts(q, where)
		q.Thresholds = r.checkThresholds(q.Thresholds, where)
		c.checkResReq(&q.ResReq, "RES_REQ", where, resreq.CtxQueue, r.d)
		c.checkResReq(&q.StopCond, "STOP_COND", where, resreq.CtxCond, r.d)
		c.checkResReq(&q.ResumeCond, "RESUME_COND", where, resreq.CtxCond, r.d)
		specs := []struct {
			key  string
			spec *string
		}{{"DEFAULT_HOST_SPEC", &q.DefaultHostSpec}, {"CPULIMIT", &q.Limits.CPU.DefaultSpec}, {"CPULIMIT", &q.Limits.CPU.MaxSpec},
			{"RUNLIMIT", &q.Limits.Run.DefaultSpec}, {"RUNLIMIT", &q.Limits.Run.MaxSpec}}
		for _, s := range specs {
			if *s.spec != "" && !r.isHostSpec(*s.spec) {
				r.d.Warnf(q.KeyPos(s.key), "%s: %s: host specification <%s> is not a host or host model; ignored", where, s.key, *s.spec)
				*s.spec = ""
			}
		}
		r.fixShares(q.Fairshare, where)
		for _, fq := range q.FairshareQueues {
			if c.Queue(fq) == nil {
				r.d.Warnf(q.KeyPos("FAIRSHARE_QUEUES"), "%s: FAIRSHARE_QUEUES: queue <%s> is not defined", where, fq)
			}
		}
		if len(q.FairshareQueues) > 0 && len(q.Fairshare) == 0 {
			r.d.Warnf(q.KeyPos("FAIRSHARE_QUEUES"), "%s: FAIRSHARE_QUEUES needs FAIRSHARE in the same queue; ignored", where)
			q.FairshareQueues = nil
		}
		for _, u := range append(append([]string(nil), q.Users.Names...), q.Admins...) {
			if strings.HasSuffix(u, "@") {
				r.d.Warnf(q.KeyPos("USERS"), "%s: <%s>: group@ is only meaningful in USER_SHARES", where, u)
			}
		}
		if q.Backfill && q.Preemption.Preemptable {
			r.d.Warnf(q.KeyPos("BACKFILL"), "%s: a backfill queue must not be PREEMPTABLE; PREEMPTABLE ignored", where)
			q.Preemption.Preemptable, q.Preemption.PreemptableBy = false, nil
		}
	}
}

// isHostSpec reports whether s names a host or a host model.
func (r *resolver) isHostSpec(s string) bool {
	if r.c.Cluster.Host(s) != nil {
		return true
	}
	_, ok := r.c.Shared.Model(s)
	return ok
}

// queueHosts resolves HOSTS to host preferences; nil means every batch
// host.
func (r *resolver) queueHosts(q *Queue, where string) []HostPref {
	if len(q.HostSpec) == 0 {
		return nil
	}
	pref := map[string]int{}
	set := map[string]bool{}
	named := map[string]bool{}
	var others *HostSpecItem
	none := false
	for i := range q.HostSpec {
		it := q.HostSpec[i]
		switch {
		case it.Name == "none":
			none = true
			continue
		case it.Name == "others":
			if it.Exclude {
				r.d.Warnf(q.KeyPos("HOSTS"), "%s: HOSTS: ~others is not allowed; ignored", where)
				continue
			}
			others = &q.HostSpec[i]
			continue
		}
		names, ok := r.expandHosts(it.Name)
		if !ok {
			r.d.Warnf(q.KeyPos("HOSTS"), "%s: HOSTS: <%s> is not a host or host group of the cluster; ignored", where, it.Name)
			continue
		}
		for _, n := range names {
			if it.Exclude {
				delete(set, n)
				named[n] = true
				continue
			}
			if it.Name != "all" {
				named[n] = true
			}
			set[n] = true
			if it.Pref > pref[n] {
				pref[n] = it.Pref
			}
		}
	}
	if none && (len(set) > 0 || others != nil) {
		r.d.Warnf(q.KeyPos("HOSTS"), "%s: HOSTS: none cannot be combined with hosts; none ignored", where)
		none = false
	}
	if others != nil {
		for _, h := range r.hosts {
			if !named[h] {
				set[h] = true
				pref[h] = others.Pref
			}
		}
	}
	if none {
		return []HostPref{}
	}
	if len(set) == 0 && len(q.HostSpec) > 0 {
		// Only exclusions: all hosts but those.
		allExcluded := true
		for _, it := range q.HostSpec {
			allExcluded = allExcluded && it.Exclude
		}
		if allExcluded {
			for _, h := range r.hosts {
				if !named[h] {
					set[h] = true
				}
			}
		}
	}
	if len(set) == 0 {
		r.d.Warnf(q.KeyPos("HOSTS"), "%s: HOSTS leaves the queue without hosts", where)
	}
	out := []HostPref{}
	for _, h := range r.inClusterOrder(set) {
		out = append(out, HostPref{Host: h, Pref: pref[h]})
	}
	return out
}

// preemption computes each queue's Preempts list. A queue hi may preempt a
// queue lo of lower priority when hi is PREEMPTIVE (without a list, or with
// lo in it) or lo is PREEMPTABLE (without a list, or with hi in it).
func (r *resolver) preemption() {
	qs := r.c.Queues
	order := map[string]int{}
	for i, q := range qs {
		order[q.Name] = i
	}
	for _, q := range qs {
		where := "Queue <" + q.Name + ">"
		for _, p := range q.Preemption.PreemptiveQueues {
			lo := r.c.Queue(p.Queue)
			switch {
			case lo == nil:
				r.d.Warnf(q.KeyPos("PREEMPTION"), "%s: PREEMPTION: queue <%s> is not defined; ignored", where, p.Queue)
			case lo.Priority >= q.Priority:
				r.d.Warnf(q.KeyPos("PREEMPTION"), "%s: PREEMPTION: queue <%s> does not have a lower priority; it cannot be preempted by this queue", where, p.Queue)
			}
		}
		for _, n := range q.Preemption.PreemptableBy {
			hi := r.c.Queue(n)
			switch {
			case hi == nil:
				r.d.Warnf(q.KeyPos("PREEMPTION"), "%s: PREEMPTION: queue <%s> is not defined; ignored", where, n)
			case hi.Priority <= q.Priority:
				r.d.Warnf(q.KeyPos("PREEMPTION"), "%s: PREEMPTION: queue <%s> does not have a higher priority; it cannot preempt this queue", where, n)
			}
		}
	}
	for _, hi := range qs {
		hi.Preempts = nil
		for _, lo := range qs {
			if lo.Priority >= hi.Priority {
				continue
			}
			pref, ok := canPreempt(hi, lo)
			if ok {
				hi.Preempts = append(hi.Preempts, QueuePref{Queue: lo.Name, Pref: pref})
			}
		}
		sort.SliceStable(hi.Preempts, func(i, j int) bool {
			a, b := hi.Preempts[i], hi.Preempts[j]
			if (a.Pref > 0) != (b.Pref > 0) {
				return a.Pref > 0
			}
			if a.Pref != b.Pref {
				return a.Pref > b.Pref
			}
			pa, pb := r.c.Queue(a.Queue).Priority, r.c.Queue(b.Queue).Priority
			if pa != pb {
				return pa < pb
			}
			return order[a.Queue] < order[b.Queue]
		})
	}
}

func canPreempt(hi, lo *Queue) (int, bool) {
	pref, ok := 0, false
	if hi.SlotPool != "" || lo.SlotPool != "" {
		return 0, false // queues of a slot pool neither preempt nor are preempted
	}
	if hi.Preemption.Preemptive {
		if len(hi.Preemption.PreemptiveQueues) == 0 {
			ok = true
		}
		for _, p := range hi.Preemption.PreemptiveQueues {
			if p.Queue == lo.Name {
				ok, pref = true, p.Pref
			}
		}
	}
	if lo.Preemption.Preemptable {
		if len(lo.Preemption.PreemptableBy) == 0 || contains(lo.Preemption.PreemptableBy, hi.Name) {
			ok = true
		}
	}
	return pref, ok
}

func (r *resolver) pools() {
	c := r.c
	byName := map[string]*Pool{}
	first := map[string]*Queue{}
	for _, q := range c.Queues {
		where := "Queue <" + q.Name + ">"
		switch {
		case q.SlotPool == "" && q.SlotShare > 0:
			r.d.Warnf(q.KeyPos("SLOT_SHARE"), "%s: SLOT_SHARE without SLOT_POOL; ignored", where)
			q.SlotShare = 0
			continue
		case q.SlotPool == "":
			if q.MaxSlotsInPool > 0 || q.UsePriorityInPool {
				r.d.Warnf(q.KeyPos("MAX_SLOTS_IN_POOL"), "%s: MAX_SLOTS_IN_POOL and USE_PRIORITY_IN_POOL need SLOT_POOL; ignored", where)
				q.MaxSlotsInPool, q.UsePriorityInPool = 0, false
			}
			continue
		case q.SlotShare == 0:
			r.d.Warnf(q.KeyPos("SLOT_POOL"), "%s: SLOT_POOL <%s> without SLOT_SHARE; the queue is not in the pool", where, q.SlotPool)
			q.SlotPool = ""
			continue
		}
		if q.Preemption.Preemptive || q.Preemption.Preemptable {
			r.d.Warnf(q.KeyPos("PREEMPTION"), "%s: queues of a slot pool cannot be preemptive or preemptable; PREEMPTION ignored", where)
			q.Preemption = Preemption{}
		}
		if q.SlotReserve > 0 {
			r.d.Warnf(q.KeyPos("SLOT_RESERVE"), "%s: SLOT_RESERVE should not be used in a queue of a slot pool", where)
		}
		if len(q.FairshareQueues) > 0 {
			r.d.Warnf(q.KeyPos("FAIRSHARE_QUEUES"), "%s: a cross-queue fairshare queue should not be part of a slot pool", where)
		}
		p := byName[q.SlotPool]
		if p == nil {
			p = &Pool{Name: q.SlotPool, MaxSlots: q.MaxSlotsInPool, UsePriority: q.UsePriorityInPool}
			byName[q.SlotPool] = p
			first[q.SlotPool] = q
			c.Pools = append(c.Pools, p)
		} else {
			if q.MaxSlotsInPool > 0 || q.UsePriorityInPool {
				r.d.Warnf(q.KeyPos("MAX_SLOTS_IN_POOL"), "%s: MAX_SLOTS_IN_POOL and USE_PRIORITY_IN_POOL are read from the pool's first queue <%s>; ignored here", where, first[q.SlotPool].Name)
			}
			if !sameHosts(first[q.SlotPool].Hosts, q.Hosts) {
				r.d.Warnf(q.KeyPos("HOSTS"), "%s: the queues of pool <%s> must use the same hosts as queue <%s>", where, q.SlotPool, first[q.SlotPool].Name)
			}
		}
		p.Queues = append(p.Queues, QueueShare{Queue: q.Name, Share: q.SlotShare})
	}
	for _, p := range c.Pools {
		sort.SliceStable(p.Queues, func(i, j int) bool {
			return c.Queue(p.Queues[i].Queue).Priority > c.Queue(p.Queues[j].Queue).Priority
		})
	}
	// Pool queues lost their preemption: recompute.
	if len(c.Pools) > 0 {
		r.preemptionOnly()
	}
}

// preemptionOnly recomputes Preempts without repeating the warnings.
func (r *resolver) preemptionOnly() {
	var scratch Diagnostics
	d := r.d
	r.d = &scratch
	r.preemption()
	r.d = d
}

func sameHosts(a, b []HostPref) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Host != b[i].Host {
			return false
		}
	}
	return true
}

func (r *resolver) params() {
	c := r.c
	p := c.Params
	var dq []string
	for _, n := range p.DefaultQueue {
		if c.Queue(n) == nil {
			r.d.Warnf(paramPos(p, "DEFAULT_QUEUE"), "DEFAULT_QUEUE: queue <%s> is not defined; ignored", n)
			continue
		}
		dq = append(dq, n)
	}
	p.DefaultQueue = dq
	if p.DefaultHostSpec != "" && !r.isHostSpec(p.DefaultHostSpec) {
		r.d.Warnf(paramPos(p, "DEFAULT_HOST_SPEC"), "DEFAULT_HOST_SPEC <%s> is not a host or host model; ignored", p.DefaultHostSpec)
		p.DefaultHostSpec = ""
	}
	var pr []string
	for _, n := range p.PreemptableResources {
		if n == "mem" {
			pr = append(pr, n)
			continue
		}
		res, ok := c.Shared.Resource(n)
		m := c.Cluster.Mapping(n)
		if !ok || res.Type != resreq.Numeric || m == nil || !m.Shared() {
			r.d.Warnf(paramPos(p, "PREEMPTABLE_RESOURCES"), "PREEMPTABLE_RESOURCES: <%s> is not a shared numeric resource; ignored", n)
			continue
		}
		pr = append(pr, n)
	}
	p.PreemptableResources = pr
	if p.HasPreemptFor("OPTIMAL_MINI_JOB") && !p.ParallelSchedBySlot {
		r.d.Warnf(paramPos(p, "PREEMPT_FOR"), "PREEMPT_FOR: OPTIMAL_MINI_JOB is meant to be used with PARALLEL_SCHED_BY_SLOT=Y")
	}
}

func paramPos(p *Params, key string) Pos {
	for _, kv := range p.Raw {
		if kv.Key == key {
			return kv.Pos
		}
	}
	return Pos{File: p.Path}
}

func (r *resolver) limits() {
	c := r.c
	var kept []*Limit
	for _, l := range c.Limits {
		where := "Limit"
		if l.Name != "" {
			where = "Limit <" + l.Name + ">"
		}
		for _, cons := range []*Consumer{&l.Queues, &l.PerQueue} {
			for _, n := range append(append([]string(nil), cons.Names...), cons.Except...) {
				if c.Queue(n) == nil {
					r.d.Warnf(l.Pos, "%s: queue <%s> is not defined", where, n)
				}
			}
		}
		for _, cons := range []*Consumer{&l.Hosts, &l.PerHost} {
			for _, n := range append(append([]string(nil), cons.Names...), cons.Except...) {
				if _, ok := r.expandHosts(n); !ok {
					r.d.Warnf(l.Pos, "%s: <%s> is not a host or host group of the cluster", where, n)
				}
			}
		}
		ok := true
		for _, res := range l.Resources {
			if sr, known := c.Shared.Resource(res.Name); !known || sr.Type != resreq.Numeric {
				r.d.Warnf(l.Pos, "%s: RESOURCE <%s> is not a numeric resource of lsf.shared; limit ignored", where, res.Name)
				ok = false
			}
		}
		if ok {
			kept = append(kept, l)
		}
	}
	c.Limits = kept
}

// ShareTree builds the fairshare tree of a USER_SHARES list (a queue's
// FAIRSHARE or a host partition's): groups with their own USER_SHARES in
// lsb.users get children, other groups list their members (who then compete
// first come, first served), group@ becomes one node per member.
func (c *Config) ShareTree(shares []ShareAssignment) []*ShareNode {
	return c.shareTree(shares, nil)
}

func (c *Config) shareTree(shares []ShareAssignment, stack []string) []*ShareNode {
	var out []*ShareNode
	for _, a := range shares {
		switch a.Kind {
		case ShareEach:
			g := c.UserGroup(a.Name)
			if g == nil {
				continue
			}
			for _, u := range g.Members {
				out = append(out, &ShareNode{Name: u, Kind: ShareUser, Shares: a.Shares})
			}
		case ShareGroup:
			n := &ShareNode{Name: a.Name, Kind: ShareGroup, Shares: a.Shares}
			g := c.UserGroup(a.Name)
			if g != nil && len(g.Shares) > 0 && !contains(stack, g.Name) {
				n.Children = c.shareTree(g.Shares, append(stack, g.Name))
			} else if g != nil {
				n.Members = g.Members
			}
			out = append(out, n)
		default:
			out = append(out, &ShareNode{Name: a.Name, Kind: a.Kind, Shares: a.Shares})
		}
	}
	return out
}
