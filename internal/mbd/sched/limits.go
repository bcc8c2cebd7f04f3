package sched

import (
	"math"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/config/timewin"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
	"github.com/basalt-lsf/basalt/internal/resreq"
)

// userRow is the lsb.users User row that limits user individually: its
// own, a group@ row of one of its groups, else default.
func (p *pass) userRow(user string) *config.UserLimit {
	us := p.cfg.Users
	if us == nil {
		return nil
	}
	if l := us.Limit(user, false); l != nil {
		return l
	}
	for _, g := range p.userGroups[user] {
		if l := us.Limit(g, true); l != nil {
			return l
		}
	}
	return us.Limit("default", false)
}

// hostFree is how many slots of h a job of queue q sees free under view v:
// MXJ minus the slots counted against it, minus slots other jobs reserved.
func (p *pass) hostFree(v view, q *queueCtx, jc *jobCtx, h *hostCtx) int {
	used := h.run + h.susp
	if q.preemptive {
		// Suspended jobs do not count against MXJ for preemptive queues.
		used = h.run
		if v == viewPreempt {
			for i, ok := range q.preempts {
				if ok {
					used -= int(h.preRun[i])
				}
			}
		}
	}
	limit := h.max
	if h.MaxSlots < 0 {
		limit = 1 << 30
	}
	held := h.rsvSlots
	if jc != nil && h.rsvBy != nil {
		held -= h.rsvBy[jc.j.Key]
		if jc.backfill {
			held -= p.backfillable(jc, h)
		}
	}
	return limit - used - held
}

// capacity is how many of the job's slots h can take now, every host-level
// limit considered. An exclusive job takes the whole host.
func (p *pass) capacity(jc *jobCtx, h *hostCtx) int {
	n := p.hostFree(jc.view(), jc.q, jc, h)
	cfg := jc.q.cfg
	if cfg.HJobLimit > 0 {
		n = min(n, cfg.HJobLimit-int(h.queueSlots[jc.q.idx]))
	}
	if cfg.PJobLimit > 0 {
		n = min(n, perCPU(cfg.PJobLimit, h.NCPUs)-int(h.queueSlots[jc.q.idx]))
	}
	if p.hostUsers {
		_, room := p.userHostRoom(jc, h)
		n = min(n, room)
	}
	if _, room := p.limits.hostRoom(p, jc, h); room >= 0 {
		n = min(n, room)
	}
	return max(n, 0)
}

// userHostRoom checks the per-host user limits: JL/U (lsb.hosts), the
// user's JL/P and its groups' JL/P (lsb.users). It returns the first
// reason a limit is reached and the slots left under all of them.
func (p *pass) userHostRoom(jc *jobCtx, h *hostCtx) (int32, int) {
	room := 1 << 30
	user := jc.j.User
	pre := jc.q.preemptive
	run, susp := h.userRun[user], h.userSusp[user]
	if h.Cfg != nil && h.Cfg.JLU > 0 {
		used := run + susp
		if pre && p.cfg.Params.HasPreemptFor("HOST_JLU") {
			used = run
		}
		if used >= h.Cfg.JLU {
			return PendHostUsrJLimit, 0
		}
		room = min(room, h.Cfg.JLU-used)
	}
	if l := p.userRow(user); l != nil && l.JLP > 0 {
		used := run + susp
		if pre && p.cfg.Params.HasPreemptFor("USER_JLP") {
			used = run
		}
		lim := perCPU(l.JLP, h.NCPUs)
		if used >= lim {
			return PendUserProcJLimit, 0
		}
		room = min(room, lim-used)
	}
	if us := p.cfg.Users; us != nil {
		for _, g := range p.userGroups[user] {
			l := us.Limit(g, false)
			if l == nil || l.JLP <= 0 {
				continue
			}
			gc := p.group(g)
			used := gc.hostRun[h.idx] + gc.hostSusp[h.idx]
			if pre && p.cfg.Params.HasPreemptFor("GROUP_JLP") {
				used = gc.hostRun[h.idx]
			}
			lim := perCPU(l.JLP, h.NCPUs)
			if used >= lim {
				return PendUGrpProcJLimit, 0
			}
			room = min(room, lim-used)
		}
	}
	return 0, room
}

// limitState counts usage against lsb.resources Limit sections. A limit
// applies to a job (on a host) when the job matches every consumer the
// limit names; PER_* consumers give each user, queue, project or host its
// own counter. Limits without a host consumer are checked once per job
// (gate); the others per host. SLOTS counts started jobs' slots
// (suspended included), JOBS started jobs, MEM/SWP/TMP and RESOURCE the
// amounts jobs reserve with rusage. Outside every time window of a
// windowed value there is no limit.
type limitState struct {
	limits  []*limitDef
	used    map[limitKey]*limitUse
	hostly  bool
	amounts bool // some limit limits reserved resources
}

type limitDef struct {
	l                                      *config.Limit
	idx                                    int
	users, queues, hosts, prj              map[string]bool // nil: any
	perUser, perQueue, perHost, perProject bool
	hostDep                                bool
	slots, spp, jobs                       float64 // -1: none
	// amounts limit reserved resources (rusage): table index -> limit;
	// pct marks MEM/SWP/TMP given in percent of the host's maximum.
	amounts        map[int]float64
	pct            map[int]bool
	code, jobsCode int32
}

type limitKey struct {
	l                      int
	user, queue, host, prj string
}

type limitUse struct {
	slots, jobs float64
	seen        map[state.Key]bool // jobs counted (JOBS, once per key)
	amounts     map[int]float64    // reserved by rusage
}

func newLimitState(p *pass) *limitState {
	ls := &limitState{used: map[limitKey]*limitUse{}}
	open := func(w timewin.Window) bool { return w.Open(p.in.Now) }
	for i, l := range p.cfg.Limits {
		d := &limitDef{l: l, idx: i, slots: -1, spp: -1, jobs: -1}
		set := func(c config.Consumer, expand func(string) []string) map[string]bool {
			if !c.Set || c.All && len(c.Except) == 0 {
				return nil
			}
			m := map[string]bool{}
			if c.All {
				return nil // exclusions handled by except below
			}
			for _, n := range c.Names {
				for _, x := range expand(n) {
					m[x] = true
				}
			}
			return m
		}
		ident := func(n string) []string { return []string{n} }
		users := func(n string) []string {
			if g := p.cfg.UserGroup(n); g != nil {
				return g.Members
			}
			return []string{n}
		}
		hosts := func(n string) []string { return expandHostName(p, n) }
		d.users = union(set(l.Users, users), set(l.PerUser, users))
		d.queues = union(set(l.Queues, ident), set(l.PerQueue, ident))
		d.hosts = union(set(l.Hosts, hosts), set(l.PerHost, hosts))
		d.prj = union(set(l.Projects, ident), set(l.PerProject, ident))
		d.perUser, d.perQueue, d.perHost, d.perProject = l.PerUser.Set, l.PerQueue.Set, l.PerHost.Set, l.PerProject.Set
		d.hostDep = l.Hosts.Set || l.PerHost.Set
		if v, ok := l.Slots.At(open); ok {
			d.slots = v
		}
		if v, ok := l.SlotsPerProcessor.At(open); ok && l.PerHost.Set {
			d.spp = v
		}
		if v, ok := l.Jobs.At(open); ok {
			d.jobs = v
		}
		switch {
		case l.Users.Set || l.PerUser.Set:
			d.code, d.jobsCode = PendLimitUser, PendLimitJobsUser
		case l.Queues.Set || l.PerQueue.Set:
			d.code, d.jobsCode = PendLimitQueue, PendLimitJobsQueue
		case l.Projects.Set || l.PerProject.Set:
			d.code, d.jobsCode = PendLimitProject, PendLimitJobsProject
		case d.hostDep:
			d.code, d.jobsCode = PendLimitHost, PendLimitJobsHost
		default:
			d.code, d.jobsCode = PendLimitCluster, PendLimitJobsCluster
		}
		amount := func(lv config.LimitValue, idx int) {
			if v, ok := lv.At(open); ok {
				if d.amounts == nil {
					d.amounts, d.pct = map[int]float64{}, map[int]bool{}
				}
				d.amounts[idx] = v
				d.pct[idx] = lv.Percent && l.PerHost.Set
			}
		}
		amount(l.Mem, resreqIdxMem)
		amount(l.Swp, resreqIdxSwp)
		amount(l.Tmp, resreqIdxTmp)
		for _, r := range l.Resources {
			if i, ok := p.in.Table.Index(r.Name); ok {
				if d.amounts == nil {
					d.amounts, d.pct = map[int]float64{}, map[int]bool{}
				}
				d.amounts[i] = r.Value
			}
		}
		if d.slots < 0 && d.spp < 0 && d.jobs < 0 && len(d.amounts) == 0 {
			continue
		}
		if d.hostDep {
			ls.hostly = true
		}
		if len(d.amounts) > 0 {
			ls.amounts = true
		}
		ls.limits = append(ls.limits, d)
	}
	return ls
}

func union(a, b map[string]bool) map[string]bool {
	if a == nil {
		return b
	}
	for k := range b {
		a[k] = true
	}
	return a
}

func except(c config.Consumer, name string) bool {
	for _, e := range c.Except {
		if e == name {
			return true
		}
	}
	return false
}

// matches reports whether limit d applies to a job (host "" for the job as
// a whole).
func (d *limitDef) matches(user, queue, project, host string) bool {
	l := d.l
	if d.users != nil && !d.users[user] || except(l.Users, user) || except(l.PerUser, user) {
		return false
	}
	if d.queues != nil && !d.queues[queue] || except(l.Queues, queue) || except(l.PerQueue, queue) {
		return false
	}
	if d.prj != nil && !d.prj[project] || except(l.Projects, project) || except(l.PerProject, project) {
		return false
	}
	if host != "" && (d.hosts != nil && !d.hosts[host] || except(l.Hosts, host) || except(l.PerHost, host)) {
		return false
	}
	return true
}

func (d *limitDef) key(user, queue, project, host string) limitKey {
	k := limitKey{l: d.idx}
	if d.perUser {
		k.user = user
	}
	if d.perQueue {
		k.queue = queue
	}
	if d.perProject {
		k.prj = project
	}
	if d.perHost {
		k.host = host
	}
	return k
}

func (ls *limitState) use(k limitKey) *limitUse {
	u := ls.used[k]
	if u == nil {
		u = &limitUse{}
		ls.used[k] = u
	}
	return u
}

// add charges a job's slots on host (or, host "", the job's total).
func (ls *limitState) add(d *limitDef, j *state.Job, host string, slots int) {
	u := ls.use(d.key(j.User, j.Queue, j.Project, host))
	u.slots += float64(slots)
	if u.seen == nil {
		u.seen = map[state.Key]bool{}
	}
	if !u.seen[j.Key] {
		u.seen[j.Key] = true
		u.jobs++
	}
}

// count charges a started job.
func (ls *limitState) count(p *pass, j *state.Job, susp bool) {
	var alt []resreq.Usage
	elapsed := 0.0
	if ls.amounts {
		if q := p.qByName[j.Queue]; q != nil {
			if e := p.reqOf(j, q); e.c != nil && len(e.c.Rusage) > 0 {
				alt = chosenAlternative(e.c.Rusage, j.ExecRusage)
				elapsed = max(p.in.Now.Sub(unix(j.StartTime)).Seconds(), 0)
			}
		}
	}
	for _, d := range ls.limits {
		if !d.hostDep {
			if d.matches(j.User, j.Queue, j.Project, "") {
				ls.add(d, j, "", int(j.Slots()))
				ls.addAmounts(d, j, "", alt, len(j.ExecHosts), elapsed)
			}
			continue
		}
		for _, eh := range j.ExecHosts {
			if d.matches(j.User, j.Queue, j.Project, eh.Host) {
				ls.add(d, j, eh.Host, int(eh.Slots))
				ls.addAmounts(d, j, eh.Host, alt, 1, elapsed)
			}
		}
	}
}

// charge records a dispatch (alt: the rusage alternative reserved).
func (ls *limitState) charge(j *state.Job, hosts []*api.ExecHost, alt []resreq.Usage) {
	for _, d := range ls.limits {
		if !d.hostDep {
			if d.matches(j.User, j.Queue, j.Project, "") {
				ls.add(d, j, "", int(j.Slots()))
				ls.addAmounts(d, j, "", alt, len(hosts), 0)
			}
			continue
		}
		for _, eh := range hosts {
			if d.matches(j.User, j.Queue, j.Project, eh.Host) {
				ls.add(d, j, eh.Host, int(eh.Slots))
				ls.addAmounts(d, j, eh.Host, alt, 1, 0)
			}
		}
	}
}

// jobRoom checks the limits without host consumers.
func (ls *limitState) jobRoom(p *pass, jc *jobCtx) []*api.PendReason {
	j := jc.j
	for _, d := range ls.limits {
		if d.hostDep || !d.matches(j.User, j.Queue, j.Project, "") {
			continue
		}
		u := ls.used[d.key(j.User, j.Queue, j.Project, "")]
		var slots, jobs float64
		if u != nil {
			slots, jobs = u.slots, u.jobs
		}
		if d.slots >= 0 && slots+float64(jc.slots) > d.slots {
			return p.limitReason(d.code, "slot")
		}
		if d.jobs >= 0 && jobs+1 > d.jobs {
			return p.limitReason(d.jobsCode, "")
		}
		if len(d.amounts) > 0 {
			if i := ls.amountRoom(d, u, firstAlt(jc.req), 1, nil); i >= 0 {
				return p.limitReason(d.code, p.in.Table.Def(i).Name)
			}
		}
	}
	return nil
}

func (p *pass) limitReason(code int32, detail string) []*api.PendReason {
	if detail == "" {
		return p.one(code)
	}
	key := code*7 + 1<<20 // distinct from plain codes
	rs := p.single[key]
	if rs == nil {
		rs = []*api.PendReason{{Code: code, Detail: detail}}
		p.single[key] = rs
	}
	return rs
}

// hostRoom checks the limits with host consumers on h: the first reason one
// is reached, and the slots left under all (-1: none applies).
func (ls *limitState) hostRoom(p *pass, jc *jobCtx, h *hostCtx) (int32, int) {
	if !ls.hostly {
		return 0, -1
	}
	j := jc.j
	room := -1
	for _, d := range ls.limits {
		if !d.hostDep || !d.matches(j.User, j.Queue, j.Project, h.Name) {
			continue
		}
		u := ls.used[d.key(j.User, j.Queue, j.Project, h.Name)]
		var slots, jobs float64
		if u != nil {
			slots, jobs = u.slots, u.jobs
		}
		lim := d.slots
		if d.spp >= 0 {
			lim = float64(perCPU(d.spp, h.NCPUs))
		}
		if lim >= 0 {
			if slots >= lim {
				return d.code, 0
			}
			r := int(lim - slots)
			if room < 0 || r < room {
				room = r
			}
		}
		if d.jobs >= 0 && jobs+1 > d.jobs {
			return d.jobsCode, 0
		}
		if len(d.amounts) > 0 {
			if i := ls.amountRoom(d, u, firstAlt(jc.req), 1, h); i >= 0 {
				return d.code, 0
			}
		}
	}
	return 0, room
}

const (
	resreqIdxMem = resreq.IdxMem
	resreqIdxSwp = resreq.IdxSwp
	resreqIdxTmp = resreq.IdxTmp
)

// addAmounts charges the resources a job reserves to a limit's counter.
func (ls *limitState) addAmounts(d *limitDef, j *state.Job, host string, alt []resreq.Usage, hosts int, elapsed float64) {
	if len(d.amounts) == 0 || len(alt) == 0 {
		return
	}
	u := ls.use(d.key(j.User, j.Queue, j.Project, host))
	for _, x := range alt {
		if _, limited := d.amounts[x.Index]; !limited {
			continue
		}
		if u.amounts == nil {
			u.amounts = map[int]float64{}
		}
		u.amounts[x.Index] += usageAt(x, elapsed) * float64(hosts)
	}
}

// amountRoom checks a job's first rusage alternative against a limit's
// resource amounts: the index over the limit, or -1.
func (ls *limitState) amountRoom(d *limitDef, u *limitUse, alt []resreq.Usage, hosts int, h *hostCtx) int {
	for _, x := range alt {
		lim, ok := d.amounts[x.Index]
		if !ok {
			continue
		}
		if d.pct[x.Index] && h != nil {
			max := math.NaN()
			switch x.Index {
			case resreq.IdxMem:
				max = h.vals.Num[resreq.IdxMaxmem]
			case resreq.IdxSwp:
				max = h.vals.Num[resreq.IdxMaxswp]
			case resreq.IdxTmp:
				max = h.vals.Num[resreq.IdxMaxtmp]
			}
			if max != max {
				continue
			}
			lim = max * lim / 100
		}
		used := 0.0
		if u != nil {
			used = u.amounts[x.Index]
		}
		if used+x.Value*float64(hosts) > lim+1e-9 {
			return x.Index
		}
	}
	return -1
}

// firstAlt is a job's first rusage alternative (what limits check).
func firstAlt(e *reqEntry) []resreq.Usage {
	if e == nil || e.c == nil || len(e.c.Rusage) == 0 {
		return nil
	}
	return e.c.Rusage[0]
}
