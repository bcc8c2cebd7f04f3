package sched

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/resreq"
)

// view is how a job counts the slots of other jobs (see hostFree).
type view uint8

const (
	// viewNormal: a non-preemptive queue counts every started job; a
	// preemptive queue does not count suspended jobs (MXJ, MAX_JOBS).
	viewNormal view = iota
	// viewPreempt: a preemptive queue's second look, which also leaves out
	// the running jobs it may preempt.
	viewPreempt
)

// classKey identifies a requirement class: jobs that see the same hosts in
// the same order for the same reasons. What depends on the job itself (its
// user's per-host limits, its slot count) is checked per job.
type classKey struct {
	req       *resreq.Compiled // simple: a term or an alternative
	queue     int32
	asked     int32 // interned -m list, 0 none
	excluded  int32 // interned excluded hosts, 0 none
	exclusive bool
	view      view
	gpu       int32 // interned GPU requirement, 0 none (gpu.go)
}

// class is a requirement class's state in one pass: the candidate hosts,
// in the order jobs of the class prefer them, minus the hosts known to be
// unusable for the rest of the pass.
//
// Within a pass hosts only fill up (the dispatches, resumptions and
// reservations of the pass only add usage; a preemption, which frees
// slots, makes every class start again), so a host found full, running
// an exclusive job, just given a job (JOB_ACCEPT_INTERVAL) or at the
// queue's per-host limit stays unusable for the class: it is removed. A
// host whose load values fail the requirement is parked until something
// changes on it (the pass's host log). A host rejected for the job's user
// is only skipped. The walk is therefore amortised O(1) per dispatch, and a
// job that cannot start costs O(1) once its class has nothing left.
type class struct {
	key       classKey
	q         *queueCtx
	req       *resreq.Compiled
	asked     map[int32]int
	excluded  map[int32]bool
	dynSelect bool // select or rusage read values the pass changes
	dynOrder  bool // order keys read values the pass changes
	sharedDep bool // reads shared resources the pass may reserve
	rusage    [][]resreq.Usage

	built     bool
	list      []centry
	parked    map[int32]parkEntry
	logPos    int
	sharedGen int
	static    codeCounts
	removed   codeCounts
	gen       uint32
	memo      map[memoKey]*memo
	full      []*api.PendReason // reasons when no host has a free slot
	freedGen  int               // pass.freedGen when built
	sp        *staticPart
	shared    bool // walking sp.cands from its cursor, no list of its own
	fkind     int  // fullness kind (staticPart.cursor)
}

type centry struct {
	h    int32
	rank int32
}

type parkEntry struct {
	rank int32
	code int32
}

// memoKey identifies jobs of a class that fail alike.
type memoKey struct {
	user  string
	slots int
}

type memo struct {
	gen      uint32
	logLen   int
	userDisp int
	shared   int
	reasons  []*api.PendReason
	allFull  bool // made when every candidate host was full
}

// codeCounts counts hosts per reason code and keeps some of their names.
type codeCounts struct {
	n     map[int32]int32
	names map[int32][]string
}

// MaxReasonHosts bounds the host names kept per pending reason (bjobs -lp):
// reasons are shared by every job of a class, and the counts are exact.
const MaxReasonHosts = 32

func (c *codeCounts) add(code int32, host string) {
	if c.n == nil {
		c.n = map[int32]int32{}
		c.names = map[int32][]string{}
	}
	c.n[code]++
	if len(c.names[code]) < MaxReasonHosts {
		c.names[code] = append(c.names[code], host)
	}
}

func (c *codeCounts) merge(o *codeCounts) {
	for code, n := range o.n {
		if c.n == nil {
			c.n = map[int32]int32{}
			c.names = map[int32][]string{}
		}
		c.n[code] += n
		for _, name := range o.names[code] {
			if len(c.names[code]) < MaxReasonHosts {
				c.names[code] = append(c.names[code], name)
			}
		}
	}
}

// reasons renders counts as pending reasons, by code.
func (c *codeCounts) reasons() []*api.PendReason {
	codes := make([]int32, 0, len(c.n))
	for code := range c.n {
		codes = append(codes, code)
	}
	sort.Slice(codes, func(a, b int) bool { return codes[a] < codes[b] })
	out := make([]*api.PendReason, 0, len(codes))
	for _, code := range codes {
		r := &api.PendReason{Code: code, NumHosts: c.n[code], Hosts: c.names[code]}
		if d := reasonDetail(code); d != "" {
			r.Detail = d
		}
		out = append(out, r)
	}
	return out
}

// sameReasons reports whether two reason lists say the same.
func sameReasons(a, b []*api.PendReason) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Code != b[i].Code || a[i].NumHosts != b[i].NumHosts || a[i].Detail != b[i].Detail ||
			strings.Join(a[i].Hosts, ",") != strings.Join(b[i].Hosts, ",") {
			return false
		}
	}
	return true
}

// intern numbers the -m and excluded host lists of a pass ("" is 0).
func (p *pass) intern(s string) int32 {
	if s == "" {
		return 0
	}
	if id, ok := p.interned[s]; ok {
		return id
	}
	if p.interned == nil {
		p.interned = map[string]int32{}
	}
	id := int32(len(p.interned) + 1)
	p.interned[s] = id
	return id
}

// classFor returns the class of a job for a simple requirement.
func (p *pass) classFor(jc *jobCtx, req *resreq.Compiled, v view) *class {
	k := classKey{req: req, queue: int32(jc.q.idx), asked: p.intern(jc.askedKey), excluded: p.intern(jc.excludedKey),
		exclusive: jc.j.Spec.Exclusive, view: v, gpu: p.gpuClassKey(jc)}
	if !p.s.noCache && !jc.ownRsv {
		if c := p.classes[k]; c != nil {
			return c
		}
	}
	c := &class{key: k, q: jc.q, req: req, asked: jc.asked, rusage: req.Rusage}
	if len(jc.j.ExcludedHosts) > 0 {
		c.excluded = map[int32]bool{}
		for _, n := range jc.j.ExcludedHosts {
			if h := p.byName[n]; h != nil {
				c.excluded[h.idx] = true
			}
		}
	}
	c.dynSelect, c.sharedDep = p.dependsOnMutable(req)
	for _, k := range req.Order {
		if k.Index < len(p.mutable) && p.mutable[k.Index] {
			c.dynOrder = true
		}
	}
	if !p.s.noCache && !jc.ownRsv {
		p.classes[k] = c
	}
	return c
}

// dependsOnMutable reports whether a requirement's select or rusage read an
// index the pass may change, and whether one of them is shared.
func (p *pass) dependsOnMutable(req *resreq.Compiled) (dyn, shared bool) {
	for i, m := range p.mutable {
		if !m {
			continue
		}
		uses := req.Names(i)
		for _, alt := range req.Rusage {
			for _, u := range alt {
				if u.Index == i {
					uses = true
				}
			}
		}
		if uses {
			dyn = true
			if i >= resreq.NumBuiltin && p.in.Table.Def(i).Shared {
				shared = true
			}
		}
	}
	return dyn, shared
}

// staticKey identifies what a class's static filters and host order
// depend on: classes of different queues share it when the queues have no
// HOSTS list and no load thresholds.
type staticKey struct {
	req      *resreq.Compiled
	profile  int // queue index, or -1 for queues without HOSTS/thresholds
	asked    int32
	excluded int32
}

// staticPart is the result of the static filters for one staticKey in a
// pass: the candidate hosts in preference order and the rejected ones.
type staticPart struct {
	cands  []int32
	counts codeCounts
	full   []*api.PendReason // fullReasons
	// cursor[k]: cands[:cursor[k]] are full for fullness k (0: every
	// started job counted; 1: suspended jobs not counted), shared by the
	// classes walking this part; reset when a preemption frees slots.
	cursor [2]int
	cgen   int
	// dynSelect is that of the classes it was made for (the static select
	// was left out).
	dynSelect bool
}

func (p *pass) staticOf(c *class, jc *jobCtx) *staticPart {
	prof := -1
	if c.q.hosts != nil || len(c.q.cfg.Thresholds) > 0 {
		prof = c.q.idx
	}
	k := staticKey{req: c.req, profile: prof, asked: c.key.asked, excluded: c.key.excluded}
	cacheable := !p.s.noCache && !c.dynOrder
	if cacheable {
		if sp := p.statics[k]; sp != nil {
			return sp
		}
	}
	keep := cacheable && k.asked == 0 && k.excluded == 0 && len(c.q.cfg.Thresholds) == 0 && p.staticsKept()
	if keep {
		if sp := p.s.keptStatics[k]; sp != nil && sp.dynSelect == c.dynSelect {
			sp.cursor, sp.cgen = [2]int{}, p.freedGen
			if p.statics == nil {
				p.statics = map[staticKey]*staticPart{}
			}
			p.statics[k] = sp
			return sp
		}
	}
	sp := &staticPart{dynSelect: c.dynSelect}
	// Candidates gather in the pass's scratch list and are copied once:
	// no growth of a list of up to every host, per static part.
	cands := p.candScratch[:0]
	hosts := p.hosts
	presorted := c.asked == nil && c.q.hosts == nil && !p.s.noCache && !c.dynOrder
	if presorted {
		hosts = p.sortedBy(c)
	}
	for _, h := range hosts {
		code := int32(0)
		for _, f := range p.s.Filters {
			if f.Kind() != Static {
				break
			}
			if code = f.Filter(p, c, jc, h); code != 0 {
				break
			}
		}
		if code != 0 {
			sp.counts.add(code, h.Name)
			continue
		}
		cands = append(cands, h.idx)
	}
	p.candScratch = cands
	if len(cands) > 0 {
		sp.cands = append(make([]int32, 0, len(cands)), cands...)
	}
	if !presorted {
		p.sortHosts(c, sp.cands)
	}
	if cacheable {
		if p.statics == nil {
			p.statics = map[staticKey]*staticPart{}
		}
		p.statics[k] = sp
	}
	if keep {
		if p.s.keptStatics == nil || len(p.s.keptStatics) >= 256 {
			p.s.keptStatics = map[staticKey]*staticPart{}
		}
		p.s.keptStatics[k] = sp
	}
	return sp
}

// staticsKept reports whether static parts made by earlier passes are
// this pass's: the same hosts, unchanged (Input.SameHosts), no dispatch
// window or load threshold on any of them (time or load would change the
// result), and no value changed by rusage in this pass. A part is kept
// only for a key without -m or excluded hosts (their numbers are the
// pass's) and for a queue without load thresholds, and used only while its
// select reads the same values (dynSelect: which indices a pass may change
// follows its pending jobs).
func (p *pass) staticsKept() bool {
	return p.hostsKept && p.s.hostsPlain && !p.valsChanged
}

// build computes the class's candidates: hosts that pass every static
// filter, in preference order.
func (p *pass) build(c *class, jc *jobCtx) {
	c.built = true
	c.parked = nil
	c.removed = codeCounts{}
	c.logPos = len(p.hostLog)
	c.sharedGen = p.sharedGen
	c.freedGen = p.freedGen
	c.gen++
	sp := p.staticOf(c, jc)
	c.static = sp.counts
	c.sp = sp
	c.fkind = 0
	if c.q.preemptive {
		c.fkind = 1
	}
	// A cacheable class starts by walking the shared static part (no copy);
	// it gets a list of its own at its first class-specific rejection.
	c.shared = !p.s.noCache && !jc.ownRsv && !c.dynOrder && c.key.view == viewNormal
	if c.shared {
		c.list = nil
		return
	}
	if cap(c.list) < len(sp.cands) {
		c.list = make([]centry, 0, len(sp.cands))
	}
	c.list = c.list[:0]
	for i, h := range sp.cands {
		c.list = append(c.list, centry{h: h, rank: int32(i)})
	}
}

// sortedBy returns every host in the order of c's order keys (shared by
// the classes with the same keys).
func (p *pass) sortedBy(c *class) []*hostCtx {
	var b strings.Builder
	for _, k := range c.req.Order {
		b.WriteString(strconv.Itoa(k.Index))
		if k.Ascending {
			b.WriteByte('+')
		} else {
			b.WriteByte('-')
		}
	}
	sig := b.String()
	if hs, ok := p.sorted[sig]; ok {
		return hs
	}
	// The order is a function of the keys' values host by host (cluster
	// order breaks ties): an earlier pass's order is kept while they are
	// the same, bit for bit.
	s := p.s
	vals := s.sortScratch[:0]
	for _, h := range p.hosts {
		for _, ok := range c.req.Order {
			v := math.NaN()
			if h.vals.Num != nil && ok.Index < len(h.vals.Num) {
				v = h.vals.Num[ok.Index]
			}
			vals = append(vals, v)
		}
	}
	s.sortScratch = vals
	kept := s.sortedKeep[sig]
	if kept == nil || !sameBits(kept.vals, vals) {
		idx := make([]int32, len(p.hosts))
		for i := range idx {
			idx[i] = int32(i)
		}
		p.sortHosts(c, idx)
		hs := make([]*hostCtx, len(idx))
		for i, x := range idx {
			hs[i] = p.hosts[x]
		}
		if s.sortedKeep == nil || len(s.sortedKeep) >= 64 && kept == nil {
			s.sortedKeep = map[string]*keptOrder{}
		}
		if kept == nil {
			kept = &keptOrder{}
			s.sortedKeep[sig] = kept
		}
		kept.vals = append(kept.vals[:0], vals...)
		kept.hosts = hs
	}
	if p.sorted == nil {
		p.sorted = map[string][]*hostCtx{}
	}
	p.sorted[sig] = kept.hosts
	return kept.hosts
}

// keptOrder is the hosts sorted by one order signature in an earlier pass
// (sortedBy), with the keys' values it was computed from (hosts x keys,
// cluster order). The hosts are the scheduler's views, valid while the
// host list is the same (buildHosts drops them otherwise); the slice is
// never modified.
type keptOrder struct {
	vals  []float64
	hosts []*hostCtx
}

// sameBits reports whether a and b hold the same values bit for bit.
func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// sortHosts orders hosts: -m preference, queue HOSTS preference, the order
// keys (resreq's Less: the first key that differs decides, undefined values
// last), then cluster order. Cluster order breaks every tie, so the order
// is total and an unstable sort gives the same result as a stable one.
func (p *pass) sortHosts(c *class, hs []int32) {
	nk := len(c.req.Order)
	type hk struct {
		asked, qpref int
		keys         []float64
	}
	keys := make([]hk, len(hs))
	flat := make([]float64, len(hs)*nk)
	for i, x := range hs {
		h := p.hosts[x]
		k := hk{keys: flat[i*nk : (i+1)*nk]}
		if c.asked != nil {
			k.asked = c.asked[h.idx]
		}
		if c.q.hosts != nil {
			k.qpref = c.q.hosts[h.idx]
		}
		for j, ok := range c.req.Order {
			v := math.NaN()
			if h.vals.Num != nil && ok.Index < len(h.vals.Num) {
				v = h.vals.Num[ok.Index]
			}
			k.keys[j] = v
		}
		keys[i] = k
	}
	idx := make([]int, len(hs))
	for i := range idx {
		idx[i] = i
	}
	order := c.req.Order
	sort.Slice(idx, func(a, b int) bool {
		ka, kb := &keys[idx[a]], &keys[idx[b]]
		if ka.asked != kb.asked {
			return ka.asked > kb.asked
		}
		if ka.qpref != kb.qpref {
			return ka.qpref > kb.qpref
		}
		for j := range order {
			if less, decided := order[j].Compare(ka.keys[j], kb.keys[j]); decided {
				return less
			}
		}
		return hs[idx[a]] < hs[idx[b]]
	})
	out := make([]int32, len(hs))
	for i, k := range idx {
		out[i] = hs[k]
	}
	copy(hs, out)
}

// refresh brings a class up to date with what changed since its last use.
func (p *pass) refresh(c *class, jc *jobCtx) {
	if !c.built || p.s.noCache || jc.ownRsv || c.dynOrder || (c.sharedDep && c.sharedGen != p.sharedGen) || c.freedGen != p.freedGen {
		p.build(c, jc)
		return
	}
	if c.shared {
		c.logPos = len(p.hostLog)
		return
	}
	for ; c.logPos < len(p.hostLog); c.logPos++ {
		h := p.hostLog[c.logPos]
		pe, ok := c.parked[h]
		if !ok {
			continue
		}
		delete(c.parked, h)
		i := sort.Search(len(c.list), func(i int) bool { return c.list[i].rank >= pe.rank })
		c.list = append(c.list, centry{})
		copy(c.list[i+1:], c.list[i:])
		c.list[i] = centry{h: h, rank: pe.rank}
		c.gen++
	}
}

// walk offers the class's usable hosts to fn in order, with the slots each
// can give the job, until fn returns false. It returns the reasons of the
// hosts it rejected (only complete when fn never returned false).
func (p *pass) walk(c *class, jc *jobCtx, fn func(h *hostCtx, capacity int) bool) (skipped codeCounts) {
	p.refresh(c, jc)
	if c.shared {
		return p.walkShared(c, jc, fn)
	}
	return p.walkList(c, jc, fn, 0, skipped)
}

// full reports whether h has no free slot for fullness kind k (as
// updateFree counts).
func (p *pass) full(k int, h *hostCtx) bool {
	if k == 0 {
		return !h.freeAll
	}
	return !h.freeRun
}

// advance moves a static part's shared cursor over the hosts that are
// full, and returns it.
func (p *pass) advance(sp *staticPart, k int) int {
	if sp.cgen != p.freedGen {
		sp.cursor, sp.cgen = [2]int{}, p.freedGen
	}
	cur := sp.cursor[k]
	for cur < len(sp.cands) && p.full(k, p.hosts[sp.cands[cur]]) {
		cur++
	}
	sp.cursor[k] = cur
	return cur
}

// walkShared walks the class's static part from the shared cursor. Full
// hosts are skipped (slot limit first among the dynamic filters: their
// reason is the same for every class); at the first rejection that is the
// class's own (a removal or a parking) the class takes a list of its own
// and the walk goes on in it.
func (p *pass) walkShared(c *class, jc *jobCtx, fn func(h *hostCtx, capacity int) bool) (skipped codeCounts) {
	sp := c.sp
	cur := p.advance(sp, c.fkind)
	for i := cur; i < len(sp.cands); i++ {
		h := p.hosts[sp.cands[i]]
		code, kind := int32(0), Static
		if p.full(c.fkind, h) {
			code, kind = PendHostJobLimit, Permanent
		} else {
			for _, f := range p.dyn {
				if code = f.Filter(p, c, jc, h); code != 0 {
					kind = f.Kind()
					break
				}
			}
		}
		switch {
		case code == 0:
			if capacity := p.capacity(jc, h); capacity > 0 && !fn(h, capacity) {
				return skipped
			}
		case code == PendHostJobLimit:
			skipped.add(code, h.Name)
		case kind == Permanent || kind == Parked:
			// Materialise: the prefix is full for good, the rest is the
			// class's list; go on from this host.
			c.shared = false
			c.list = make([]centry, 0, len(sp.cands)-cur)
			for k := cur; k < len(sp.cands); k++ {
				c.list = append(c.list, centry{h: sp.cands[k], rank: int32(k)})
			}
			for k := 0; k < cur; k++ {
				c.removed.add(PendHostJobLimit, p.hosts[sp.cands[k]].Name)
			}
			c.gen++
			return p.walkList(c, jc, fn, i-cur, skipped)
		default:
			skipped.add(code, h.Name)
		}
	}
	for k := 0; k < cur; k++ {
		if len(skipped.names[PendHostJobLimit]) >= MaxReasonHosts {
			skipped.n[PendHostJobLimit] += int32(cur - k)
			break
		}
		skipped.add(PendHostJobLimit, p.hosts[sp.cands[k]].Name)
	}
	return skipped
}

// walkList walks the class's own list from index start (the entries before
// it were looked at already in this walk and are kept).
func (p *pass) walkList(c *class, jc *jobCtx, fn func(h *hostCtx, capacity int) bool, start int, skipped codeCounts) codeCounts {
	// Hosts before the static part's shared cursor are full: drop them.
	plain := c.sp != nil && c.key.view == viewNormal && !jc.ownRsv && !jc.backfill && !p.s.noCache
	if plain && start == 0 && len(c.list) > 0 {
		cur := int32(p.advance(c.sp, c.fkind))
		k := sort.Search(len(c.list), func(i int) bool { return c.list[i].rank >= cur })
		if k > 0 {
			for _, e := range c.list[:k] {
				c.removed.add(PendHostJobLimit, p.hosts[e.h].Name)
			}
			c.list = c.list[k:]
			c.gen++
		}
	}
	w := start
	for i := start; i < len(c.list); i++ {
		e := c.list[i]
		h := p.hosts[e.h]
		code, kind := int32(0), Static
		if plain && p.full(c.fkind, h) {
			code, kind = PendHostJobLimit, Permanent
		} else {
			for _, f := range p.dyn {
				if code = f.Filter(p, c, jc, h); code != 0 {
					kind = f.Kind()
					break
				}
			}
		}
		switch {
		case code == 0:
			if w != i {
				c.list[w] = e
			}
			w++
			if capacity := p.capacity(jc, h); capacity > 0 && !fn(h, capacity) {
				// Keep the rest as it is (one copy when hosts were removed).
				if w != i+1 {
					n := copy(c.list[w:], c.list[i+1:])
					c.list = c.list[:w+n]
				}
				return skipped
			}
		case kind == Permanent:
			if !jc.noReasons {
				c.removed.add(code, h.Name)
			}
			c.gen++
		case kind == Parked:
			if c.parked == nil {
				c.parked = map[int32]parkEntry{}
			}
			c.parked[e.h] = parkEntry{rank: e.rank, code: code}
			c.gen++
		default:
			c.list[w] = e
			w++
			if !jc.noReasons {
				skipped.add(code, h.Name)
			}
		}
	}
	c.list = c.list[:w]
	return skipped
}

// failReasons are the reasons of a job of class c that found no placement:
// every rejected host by reason, and the usable hosts as "not enough job
// slots".
func (p *pass) failReasons(c *class, skipped *codeCounts, usable []string, usableN int) []*api.PendReason {
	var all codeCounts
	all.merge(&c.static)
	all.merge(&c.removed)
	if len(c.parked) > 0 {
		ps := make([]int32, 0, len(c.parked))
		for h := range c.parked {
			ps = append(ps, h)
		}
		sort.Slice(ps, func(a, b int) bool { return c.parked[ps[a]].rank < c.parked[ps[b]].rank })
		for _, h := range ps {
			all.add(c.parked[h].code, p.hosts[h].Name)
		}
	}
	all.merge(skipped)
	for i := 0; i < usableN; i++ {
		name := ""
		if i < len(usable) {
			name = usable[i]
		}
		if all.n == nil {
			all.n, all.names = map[int32]int32{}, map[int32][]string{}
		}
		all.n[PendHostLessSlots]++
		if name != "" && len(all.names[PendHostLessSlots]) < MaxReasonHosts {
			all.names[PendHostLessSlots] = append(all.names[PendHostLessSlots], name)
		}
	}
	if len(all.n) == 0 {
		all.add(PendHostLessSlots, "")
		all.names[PendHostLessSlots] = nil
	}
	return all.reasons()
}
