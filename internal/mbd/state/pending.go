package state

import "sort"

// pendingList holds a queue's pending jobs in dispatch order: higher user
// priority first, then by Order (FCFS, adjusted by btop/bbot). The entries
// are in chunks of up to chunkMax (a chunk splits in two past twice that),
// copied on the applier's first write after a snapshot (see generations),
// so that a write copies one chunk and the chunk index, not the list. Jobs
// leave lazily: their entry is marked dead, keeps its sort key (the list
// stays sorted for binary search) and is compacted away once the dead are
// the majority.
type pendingList struct {
	id     *listID // the same for every version of the list
	gen    uint64
	chunks []*chunk
	n      int // entries, dead ones included
	dead   int
	// version counts the changes of what the list holds: jobs in or out,
	// their order, the submissions of the jobs in it (jobModify) and new
	// records of them.
	version uint64
}

// listID identifies a queue's list across versions (PendingStamp).
type listID struct{ queue string }

const chunkMax = 512

// chunk is a run of entries. Those below frozen may be in a snapshot,
// which sees the array up to its own length: the applier appends past them
// in place and copies the array before writing below frozen.
type chunk struct {
	gen    uint64
	frozen int
	es     []entry
}

// entry is one slot of a pending list: the job's record as of the list's
// version, and its sort key when inserted.
type entry struct {
	j     *Job
	prio  int32
	dead  bool
	order int64
}

func mkEntry(j *Job) entry { return entry{j: j, prio: j.UserPriority, order: j.Order} }

// entryLess orders slots as less orders jobs.
func entryLess(a, b entry) bool {
	if a.prio != b.prio {
		return a.prio > b.prio
	}
	if a.order != b.order {
		return a.order < b.order
	}
	if a.j.ID != b.j.ID {
		return a.j.ID < b.j.ID
	}
	return a.j.Index < b.j.Index
}

func less(a, b *Job) bool { return entryLess(mkEntry(a), mkEntry(b)) }

func newPendingList(queue string, gen uint64) *pendingList {
	return &pendingList{id: &listID{queue}, gen: gen}
}

// own returns p writable in generation gen: p or a copy (with a copy of
// the chunk index; the chunks are copied as they are written).
func (p *pendingList) own(gen uint64) *pendingList {
	if p.gen == gen {
		return p
	}
	c := *p
	c.gen = gen
	c.chunks = append(make([]*chunk, 0, len(p.chunks)+1), p.chunks...)
	return &c
}

// chunkW returns chunk i, writable in generation gen from entry from on
// (its length: to append).
func (p *pendingList) chunkW(gen uint64, i, from int) *chunk {
	c := p.chunks[i]
	if c.gen != gen {
		c = &chunk{gen: gen, frozen: len(c.es), es: c.es}
		p.chunks[i] = c
	}
	if from < c.frozen {
		es := make([]entry, len(c.es), max(cap(c.es), len(c.es)+1))
		copy(es, c.es)
		c.es, c.frozen = es, 0
	}
	return c
}

func (p *pendingList) last() (entry, bool) {
	if len(p.chunks) == 0 {
		return entry{}, false
	}
	es := p.chunks[len(p.chunks)-1].es
	return es[len(es)-1], true
}

// insert adds j (the applier's record) in order; the common case (a new
// job, highest Order) appends to the last chunk.
func (p *pendingList) insert(gen uint64, j *Job) {
	p.version++
	j.listed = true
	e := mkEntry(j)
	p.n++
	if l, ok := p.last(); !ok || entryLess(l, e) {
		if n := len(p.chunks); n == 0 || len(p.chunks[n-1].es) >= chunkMax {
			p.chunks = append(p.chunks, &chunk{gen: gen, es: make([]entry, 0, chunkMax)})
		}
		n := len(p.chunks) - 1
		c := p.chunkW(gen, n, len(p.chunks[n].es))
		if len(c.es) == cap(c.es) {
			c.frozen = 0 // append copies
		}
		c.es = append(c.es, e)
		return
	}
	// The first chunk whose last entry sorts after e.
	ci := sort.Search(len(p.chunks), func(i int) bool {
		es := p.chunks[i].es
		return entryLess(e, es[len(es)-1])
	})
	if ci == len(p.chunks) {
		ci-- // after a dead entry with e's key
	}
	i := sort.Search(len(p.chunks[ci].es), func(i int) bool { return entryLess(e, p.chunks[ci].es[i]) })
	c := p.chunkW(gen, ci, i)
	if len(c.es) == cap(c.es) {
		c.frozen = 0 // append copies
	}
	c.es = append(c.es, entry{})
	copy(c.es[i+1:], c.es[i:])
	c.es[i] = e
	if len(c.es) > 2*chunkMax {
		h := len(c.es) / 2
		a := &chunk{gen: gen, es: append(make([]entry, 0, chunkMax+h), c.es[:h]...)}
		b := &chunk{gen: gen, es: append(make([]entry, 0, chunkMax+h), c.es[h:]...)}
		p.chunks = append(p.chunks, nil)
		copy(p.chunks[ci+2:], p.chunks[ci+1:])
		p.chunks[ci], p.chunks[ci+1] = a, b
	}
}

// find returns the chunk and index of j's live entry; ok false if j has
// none. j's sort key (UserPriority, Order) is the one it was inserted with.
func (p *pendingList) find(j *Job) (ci, ei int, ok bool) {
	e := mkEntry(j)
	ci = sort.Search(len(p.chunks), func(i int) bool {
		es := p.chunks[i].es
		return !entryLess(es[len(es)-1], e)
	})
	if ci < len(p.chunks) {
		es := p.chunks[ci].es
		ei = sort.Search(len(es), func(i int) bool { return !entryLess(es[i], e) })
		// Dead entries of the job with the same key may come first.
		for ; ci < len(p.chunks); ci, ei = ci+1, 0 {
			es := p.chunks[ci].es
			for ; ei < len(es); ei++ {
				x := es[ei]
				if entryLess(e, x) {
					goto linear
				}
				if !x.dead && x.j.Key == j.Key {
					return ci, ei, true
				}
			}
		}
	}
linear:
	// Not where its key says (a key changed in place): look everywhere.
	for ci, c := range p.chunks {
		for ei, x := range c.es {
			if !x.dead && x.j.Key == j.Key {
				return ci, ei, true
			}
		}
	}
	return 0, 0, false
}

// remove marks j's entry dead; the caller clears j.listed.
func (p *pendingList) remove(gen uint64, j *Job) {
	ci, ei, ok := p.find(j)
	if !ok {
		return
	}
	p.version++
	p.chunkW(gen, ci, ei).es[ei].dead = true
	p.dead++
	if p.dead > 64 && p.dead > p.n/2 {
		p.compact(gen)
	}
}

// replace points j's entry at j, a new record of the job.
func (p *pendingList) replace(gen uint64, j *Job) {
	if ci, ei, ok := p.find(j); ok {
		p.version++
		p.chunkW(gen, ci, ei).es[ei].j = j
	}
}

// compact rebuilds the list without its dead entries, in new chunks.
func (p *pendingList) compact(gen uint64) {
	var chunks []*chunk
	var c *chunk
	for _, old := range p.chunks {
		for _, e := range old.es {
			if e.dead {
				continue
			}
			if c == nil || len(c.es) == chunkMax {
				c = &chunk{gen: gen, es: make([]entry, 0, chunkMax)}
				chunks = append(chunks, c)
			}
			c.es = append(c.es, e)
		}
	}
	p.chunks, p.n, p.dead = chunks, p.n-p.dead, 0
}

// each calls fn for live jobs in order until fn returns false.
func (p *pendingList) each(fn func(*Job) bool) {
	for _, c := range p.chunks {
		for _, e := range c.es {
			if !e.dead && !fn(e.j) {
				return
			}
		}
	}
}

// live returns the live jobs in order, except the job with key skip.
func (p *pendingList) live(skip Key) []*Job {
	out := make([]*Job, 0, p.n-p.dead)
	p.each(func(j *Job) bool {
		if j.Key != skip {
			out = append(out, j)
		}
		return true
	})
	return out
}

// position returns the 1-based position of job k among live jobs, or 0.
func (p *pendingList) position(k Key) int {
	pos, found := 0, 0
	p.each(func(j *Job) bool {
		pos++
		if j.Key == k {
			found = pos
			return false
		}
		return true
	})
	return found
}

// moveJob places j (the applier's record, in queue's list) at 1-based
// position pos from the top (or bottom), renumbering the list's keys when
// there is no room between neighbours.
func (s *State) moveJob(j *Job, pos int, bottom bool) {
	p := s.pendingList(j.Queue)
	live := p.live(j.Key)
	order := orderAt(live, j.Order, pos, bottom)
	for _, x := range live {
		if x.Order == order && x.UserPriority == j.UserPriority {
			s.renumber(p, live, j, pos, bottom)
			return
		}
	}
	p.remove(s.gen, j)
	j.Order = order
	p.insert(s.gen, j)
}

// renumber rebuilds p with j at the requested position and evenly spaced
// keys: every job of it gets a new record.
func (s *State) renumber(p *pendingList, live []*Job, j *Job, pos int, bottom bool) {
	if pos < 1 {
		pos = 1
	}
	if bottom {
		pos = len(live) + 2 - pos
	}
	if pos > len(live)+1 {
		pos = len(live) + 1
	}
	if pos < 1 {
		pos = 1
	}
	p.version++
	live = append(live, nil)
	copy(live[pos:], live[pos-1:])
	live[pos-1] = j
	base := int64(0)
	if len(live) > 0 && live[0] != j {
		base = live[0].Order
	}
	p.chunks, p.n, p.dead = nil, 0, 0
	for i, x := range live {
		x = s.ownJob(x, false)
		x.Order = base + int64(i)*orderGap
		p.insert(s.gen, x)
	}
}

// orderAt returns an Order key that places a job at 1-based position pos
// (counting from the top, or from the bottom when bottom) among live, the
// other jobs of the list in order.
func orderAt(live []*Job, cur int64, pos int, bottom bool) int64 {
	if len(live) == 0 {
		return cur
	}
	if pos < 1 {
		pos = 1
	}
	if bottom {
		pos = len(live) + 2 - pos
	}
	if pos > len(live) {
		return live[len(live)-1].Order + orderGap
	}
	if pos <= 1 { // (bbot past the top)
		return live[0].Order - orderGap
	}
	// Between live[pos-2] and live[pos-1]; equal keys fall back to IDs, so
	// take the lower neighbour's key when there is no room.
	lo, hi := live[pos-2].Order, live[pos-1].Order
	if hi-lo > 1 {
		return lo + (hi-lo)/2
	}
	return hi
}

// orderGap spaces FCFS keys so that btop/bbot can insert between them.
const orderGap = 1 << 20
