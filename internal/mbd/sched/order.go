package sched

import (
	"math"
	"sort"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/mbd/sched/fairshare"
	"github.com/basalt-lsf/basalt/internal/mbd/sched/pool"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
)

// group is a set of queues dispatched together: one fairshare queue, or the
// first come, first served queues of one priority merged into one list
// (lsf-reference §3.1: with queues A, B, C of equal priority and jobs
// submitted C B A B A, all FCFS gives C B A B A; all fairshare A A B B C).
type group struct {
	queues []*queueCtx
	fs     bool
}

// dispatchGroups orders queues by priority (lsb.queues order for equal
// priorities): pool queues and queues outside pools alike, as seed 002
// says (queue1 -> queue2 -> queue3 -> queue4 -> ...).
func (p *pass) dispatchGroups() []group {
	var out []group
	qs := p.queueOrder()
	for i := 0; i < len(qs); {
		prio := qs[i].cfg.Priority
		var fcfs *group
		for ; i < len(qs) && qs[i].cfg.Priority == prio; i++ {
			q := qs[i]
			if q.fairshare || p.fs.partitionOf(q) != "" || p.fs.qspan[q.idx] != nil {
				out = append(out, group{queues: []*queueCtx{q}, fs: true})
				continue
			}
			if fcfs == nil {
				out = append(out, group{})
				fcfs = &out[len(out)-1]
			}
			fcfs.queues = append(fcfs.queues, q)
		}
	}
	return out
}

func (p *pass) runGroup(g group) {
	if g.fs {
		p.runFairshare(g.queues[0])
		return
	}
	if len(g.queues) == 1 {
		q := g.queues[0]
		if p.in.NoReasons && q.passable && p.unlimited == 0 {
			// Free slots only go down while the queue's jobs are
			// placed: once they are fewer than every job left needs,
			// each would be passed by (place).
			least := p.leastLeft(q.jobs)
			for i, pj := range q.jobs {
				if int(least[i]) > p.freeSlots {
					p.passed += len(q.jobs) - i
					break
				}
				p.place(pj, q)
			}
			return
		}
		for _, pj := range q.jobs {
			p.place(pj, q)
		}
		return
	}
	// Merge the queues' lists: user priority, then FCFS order.
	pos := make([]int, len(g.queues))
	for {
		best := -1
		for i, q := range g.queues {
			if pos[i] >= len(q.jobs) {
				continue
			}
			if best < 0 || before(q.jobs[pos[i]].j, g.queues[best].jobs[pos[best]].j) {
				best = i
			}
		}
		if best < 0 {
			return
		}
		q := g.queues[best]
		p.place(q.jobs[pos[best]], q)
		pos[best]++
	}
}

// leastLeft returns, for each job of a list, the fewest slots it or a job
// after it needs (in the scheduler's scratch).
func (p *pass) leastLeft(jobs []pendJob) []int32 {
	least := p.s.leastScratch
	if cap(least) < len(jobs) {
		least = make([]int32, len(jobs), len(jobs)+len(jobs)/4)
	}
	least = least[:len(jobs)]
	m := int32(math.MaxInt32)
	for i := len(jobs) - 1; i >= 0; i-- {
		m = min(m, jobs[i].slots)
		least[i] = m
	}
	p.s.leastScratch = least
	return least
}

func before(a, b *state.Job) bool {
	if a.UserPriority != b.UserPriority {
		return a.UserPriority > b.UserPriority
	}
	if a.Order != b.Order {
		return a.Order < b.Order
	}
	if a.ID != b.ID {
		return a.ID < b.ID
	}
	return a.Index < b.Index
}

// fsState holds the fairshare accounts of one pass: per scope ("queue/q"
// for a fairshare queue, "hpart/p" for a host partition) the usage of each
// user.
type fsState struct {
	usage map[string]map[string]*fairshare.Usage
	hpart map[string]string // host -> partition
	qpart map[int]string    // queue -> partition it schedules by
	// qspan: a first come, first served queue whose hosts lie in
	// several partitions (or in partitions and outside them) is
	// dispatched partition by partition, each by its shares, then on its
	// other hosts (qrest, nil when none) first come, first served.
	qspan   map[int][]string
	qrest   map[int]map[int32]int
	trees   map[string]*fairshare.Tree
	running func(state.Key) *api.Usage
}

func newFSState(p *pass) *fsState {
	fs := &fsState{usage: map[string]map[string]*fairshare.Usage{}, hpart: map[string]string{}, qpart: map[int]string{},
		qspan: map[int][]string{}, qrest: map[int]map[int32]int{},
		trees: map[string]*fairshare.Tree{}, running: p.in.RunningUsage}
	for _, q := range p.queues {
		q.fairshare = len(q.cfg.Fairshare) > 0
	}
	if p.cfg.LSBHosts != nil {
		for _, part := range p.cfg.LSBHosts.Partitions {
			for _, h := range part.Hosts {
				if _, dup := fs.hpart[h]; !dup {
					fs.hpart[h] = part.Name
				}
			}
		}
	}
	if len(fs.hpart) > 0 {
		// A first come, first served queue whose hosts all lie in one
		// partition is ordered by the partition's fairshare; one whose
		// hosts span partitions is dispatched partition by partition
		// (LSF applies each partition's shares to the jobs dispatched to
		// its hosts, whatever the queue spans).
		for _, q := range p.queues {
			if q.fairshare {
				continue
			}
			parts := map[string]bool{}
			var rest map[int32]int
			for _, h := range p.hosts {
				if q.hosts != nil {
					if _, in := q.hosts[h.idx]; !in {
						continue
					}
				}
				if hp := fs.hpart[h.Name]; hp != "" {
					parts[hp] = true
				} else {
					if rest == nil {
						rest = map[int32]int{}
					}
					rest[h.idx] = prefOf(q, h.idx)
				}
			}
			switch {
			case len(parts) == 1 && rest == nil:
				for part := range parts {
					fs.qpart[q.idx] = part
				}
			case len(parts) > 0:
				for _, hp := range p.cfg.LSBHosts.Partitions {
					if parts[hp.Name] {
						fs.qspan[q.idx] = append(fs.qspan[q.idx], hp.Name)
					}
				}
				fs.qrest[q.idx] = rest
			}
		}
	}
	return fs
}

// prefOf is the queue HOSTS preference of host idx (0 without one).
func prefOf(q *queueCtx, idx int32) int {
	if q.hosts == nil {
		return 0
	}
	return q.hosts[idx]
}

func (fs *fsState) partitionOf(q *queueCtx) string { return fs.qpart[q.idx] }

func (fs *fsState) account(scope, user string) *fairshare.Usage {
	m := fs.usage[scope]
	if m == nil {
		m = map[string]*fairshare.Usage{}
		fs.usage[scope] = m
	}
	u := m[user]
	if u == nil {
		u = &fairshare.Usage{}
		m[user] = u
	}
	return u
}

// fsCharge charges a started job to the fairshare scopes it belongs to.
func (p *pass) fsCharge(j *state.Job) {
	q := p.queueOf(j.Queue)
	if q == nil || len(j.ExecHosts) == 0 {
		return
	}
	var scopes []string
	if q.fairshare {
		scopes = append(scopes, "queue/"+q.cfg.Name)
	}
	if part := p.fs.hpart[j.ExecHosts[0].Host]; part != "" {
		scopes = append(scopes, "hpart/"+part)
	}
	if len(scopes) == 0 {
		return
	}
	v := fairshare.Usage{Slots: int(j.Slots())}
	if j.State == api.StateRun && j.StartTime > 0 {
		v.Run = max(p.in.Now.Sub(unix(j.StartTime)).Seconds(), 0)
	}
	if p.fs.running != nil {
		if u := p.fs.running(j.Key); u != nil {
			v.CPU = u.CPUTime
		}
	}
	for _, sc := range scopes {
		a := p.fs.account(sc, j.User)
		a.CPU += v.CPU
		a.Run += v.Run
		a.Slots += v.Slots
	}
}

// tree builds the share tree of a scope with its accounts.
func (p *pass) tree(scope string, shares []*config.ShareNode, f fairshare.Factors) *fairshare.Tree {
	if t := p.fs.trees[scope]; t != nil {
		return t
	}
	t := fairshare.Build(shares, f)
	users := map[string]bool{}
	for u := range p.fs.usage[scope] {
		users[u] = true
	}
	p.s.mem.hist.Users(scope, func(u string) { users[u] = true })
	names := make([]string, 0, len(users))
	for u := range users {
		names = append(names, u)
	}
	sort.Strings(names)
	for _, u := range names {
		v := fairshare.Usage{}
		if a := p.fs.usage[scope][u]; a != nil {
			v = *a
		}
		cpu, run := p.s.mem.hist.Get(scope, u, p.in.Now, f.HistHours)
		v.CPU += cpu
		v.HistRun += run
		t.Charge(u, v)
	}
	t.Compute()
	p.fs.trees[scope] = t
	return t
}

func (p *pass) runFairshare(q *queueCtx) {
	if spans := p.fs.qspan[q.idx]; spans != nil {
		p.runSpanning(q, spans)
		return
	}
	scope, shares := "queue/"+q.cfg.Name, q.cfg.Fairshare
	if part := p.fs.partitionOf(q); part != "" && !q.fairshare {
		scope = "hpart/" + part
		for _, hp := range p.cfg.LSBHosts.Partitions {
			if hp.Name == part {
				shares = hp.Shares
			}
		}
	}
	f := fairshare.QueueFactors(p.cfg.Params, q.cfg)
	t := p.tree(scope, p.cfg.ShareTree(shares), f)
	var last []pendJob
	for i, pj := range q.jobs {
		if !t.Offer(pj.j.User, i) {
			last = append(last, pj) // no share: after everyone
		}
	}
	t.Start()
	for {
		h, n := t.Next()
		if h < 0 {
			break
		}
		pj := q.jobs[h]
		if p.place(pj, q) {
			t.Started(n, int(pj.j.Slots()))
		}
	}
	for _, pj := range last {
		p.place(pj, q)
	}
}

// runSpanning dispatches a first come, first served queue whose hosts
// span host partitions: on each partition's hosts in turn, its jobs by
// the partition's shares; then on the queue's hosts outside partitions,
// the jobs left in queue order.
func (p *pass) runSpanning(q *queueCtx, parts []string) {
	started := make([]bool, len(q.jobs))
	defer func() { p.restrict, p.restrictKey = nil, "" }()
	f := fairshare.QueueFactors(p.cfg.Params, nil)
	for _, part := range parts {
		var hp *config.HostPartition
		for _, c := range p.cfg.LSBHosts.Partitions {
			if c.Name == part {
				hp = c
			}
		}
		if hp == nil {
			continue
		}
		p.restrict, p.restrictKey = map[int32]int{}, "hpart:"+part
		for _, h := range p.hosts {
			if p.fs.hpart[h.Name] != part {
				continue
			}
			if q.hosts != nil {
				if _, in := q.hosts[h.idx]; !in {
					continue
				}
			}
			p.restrict[h.idx] = prefOf(q, h.idx)
		}
		t := p.tree("hpart/"+part, p.cfg.ShareTree(hp.Shares), f)
		var last []int
		for i, pj := range q.jobs {
			if !started[i] && !t.Offer(pj.j.User, i) {
				last = append(last, i) // no share: after everyone, as in one partition
			}
		}
		t.Start()
		for {
			i, n := t.Next()
			if i < 0 {
				break
			}
			if p.place(q.jobs[i], q) {
				started[i] = true
				t.Started(n, int(q.jobs[i].j.Slots()))
			}
		}
		for _, i := range last {
			started[i] = p.place(q.jobs[i], q)
		}
	}
	if rest := p.fs.qrest[q.idx]; rest != nil {
		p.restrict, p.restrictKey = rest, "hpart:"
		for i, pj := range q.jobs {
			if !started[i] {
				p.place(pj, q)
			}
		}
	}
}

func (p *pass) exportShares() {
	for _, q := range p.queues {
		if !q.fairshare {
			continue
		}
		f := fairshare.QueueFactors(p.cfg.Params, q.cfg)
		t := p.tree("queue/"+q.cfg.Name, p.cfg.ShareTree(q.cfg.Fairshare), f)
		p.plan.QueueShares[q.cfg.Name] = t.Accounts()
	}
	if p.cfg.LSBHosts != nil {
		for _, hp := range p.cfg.LSBHosts.Partitions {
			f := fairshare.QueueFactors(p.cfg.Params, nil)
			t := p.tree("hpart/"+hp.Name, p.cfg.ShareTree(hp.Shares), f)
			p.plan.PartitionShares[hp.Name] = t.Accounts()
		}
	}
}

// poolState is one slot pool in a pass.
type poolState struct {
	name     string
	total    int
	queues   []*queueCtx
	alloc    map[*queueCtx]int
	used     int
	leftover bool // USE_PRIORITY_IN_POOL round
	usePrio  bool
}

func (ps *poolState) dispatched(q *queueCtx, n int) { ps.used += n }

// setupPools computes each pool's size and its queues' allocations.
func (p *pass) setupPools() {
	for _, pc := range p.cfg.Pools {
		ps := &poolState{name: pc.Name, alloc: map[*queueCtx]int{}, usePrio: pc.UsePriority}
		var first *queueCtx
		for _, qs := range pc.Queues {
			if q := p.qByName[qs.Queue]; q != nil {
				ps.queues = append(ps.queues, q)
				q.pool = ps
				if first == nil {
					first = q
				}
			}
		}
		if first == nil {
			continue
		}
		// Pool size: slots in use by the pool's queues plus free slots of
		// its hosts up to their limits, capped by MAX_SLOTS_IN_POOL.
		inUse := 0
		for _, q := range ps.queues {
			inUse += q.used
		}
		free := 0
		for _, h := range p.hosts {
			if first.hosts != nil {
				if _, ok := first.hosts[h.idx]; !ok {
					continue
				}
			}
			lim := h.max
			if h.MaxSlots < 0 {
				lim = h.NCPUs
			}
			free += max(lim-h.run-h.susp-h.rsvSlots, 0)
		}
		ps.total = inUse + free
		if pc.MaxSlots > 0 && ps.total > pc.MaxSlots {
			ps.total = pc.MaxSlots
		}
		ps.used = inUse
		in := make([]pool.Queue, len(ps.queues))
		acc := p.s.mem.pool(pc.Name, p.cfg.Params.HistHours)
		for i, q := range ps.queues {
			d := q.used + q.pendSlots
			if q.cfg.QJobLimit > 0 {
				d = min(d, q.cfg.QJobLimit)
			}
			in[i] = pool.Queue{Name: q.cfg.Name, Share: q.cfg.SlotShare, Priority: q.cfg.Priority, Demand: d, Used: acc.Used(q.cfg.Name)}
		}
		alloc := pool.Allocate(ps.total, in, pool.Order(in))
		for i, q := range ps.queues {
			ps.alloc[q] = alloc[i]
			p.plan.PoolAllocation[q.cfg.Name] = alloc[i]
		}
		if p.pools == nil {
			p.pools = map[string]*poolState{}
		}
		p.pools[pc.Name] = ps
	}
}

// poolRoom keeps a pool queue within its allocation (a soft limit: it is
// what the queue may hold this pass).
func (p *pass) poolRoom(jc *jobCtx) []*api.PendReason {
	ps := jc.q.pool
	if ps == nil {
		return nil
	}
	if ps.leftover {
		if ps.used+jc.slots > ps.total {
			return p.one(PendQueJobLimit)
		}
		return nil
	}
	if jc.q.used+jc.slots > ps.alloc[jc.q] {
		return p.one(PendQueJobLimit)
	}
	return nil
}

// poolLeftovers: with USE_PRIORITY_IN_POOL=Y, slots of the pool its queues
// could not use go to the pool's remaining jobs by job priority.
func (p *pass) poolLeftovers() {
	for _, ps := range p.pools {
		if !ps.usePrio || ps.used >= ps.total {
			continue
		}
		ps.leftover = true
		var jobs []struct {
			pj pendJob
			q  *queueCtx
		}
		for _, q := range ps.queues {
			for _, pj := range q.jobs {
				if pj.j.State == api.StatePend && p.plan.Reasons.Get(pj.j.Key) != nil {
					jobs = append(jobs, struct {
						pj pendJob
						q  *queueCtx
					}{pj, q})
				}
			}
		}
		sort.SliceStable(jobs, func(a, b int) bool {
			qa, qb := jobs[a].q.cfg.Priority, jobs[b].q.cfg.Priority
			if qa != qb {
				return qa > qb
			}
			return before(jobs[a].pj.j, jobs[b].pj.j)
		})
		for _, x := range jobs {
			if ps.used >= ps.total {
				break
			}
			p.place(x.pj, x.q)
		}
		ps.leftover = false
	}
}
