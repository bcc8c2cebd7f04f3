package state

import "sort"

// pendingList holds a queue's pending jobs in dispatch order: higher user
// priority first, then by Order (FCFS, adjusted by btop/bbot). Jobs leave
// lazily: entries whose job is no longer pending in this queue are skipped
// and compacted away once they are the majority.
type pendingList struct {
	queue string
	jobs  []entry
	dead  int
	// version counts the changes of what the list holds: jobs in or out,
	// their order, and the submissions of the jobs in it (jobModify).
	version uint64
}

// entry is one slot of a pending list. It is live while the job is still in
// this list with the same generation: a job removed and inserted again gets a
// new generation, so its old slot stays dead.
type entry struct {
	j     *Job
	gen   uint32
	prio  int32 // the job's sort key when inserted: dead slots keep
	order int64 // theirs, so the slice stays sorted for binary search
}

func mkEntry(j *Job) entry { return entry{j: j, gen: j.pendGen, prio: j.UserPriority, order: j.Order} }

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

func (p *pendingList) isLive(e entry) bool { return e.j.inPending == p && e.j.pendGen == e.gen }

func less(a, b *Job) bool {
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

// insert adds j in order; the common case (a new job, highest Order) appends.
func (p *pendingList) insert(j *Job) {
	p.version++
	j.inPending = p
	j.pendGen++
	e := mkEntry(j)
	n := len(p.jobs)
	if n == 0 || entryLess(p.jobs[n-1], e) {
		p.jobs = append(p.jobs, e)
		return
	}
	i := sort.Search(n, func(i int) bool { return entryLess(e, p.jobs[i]) })
	p.jobs = append(p.jobs, entry{})
	copy(p.jobs[i+1:], p.jobs[i:])
	p.jobs[i] = e
}

// remove marks j as gone from the list.
func (p *pendingList) remove(j *Job) {
	if j.inPending == p {
		p.version++
		j.inPending = nil
		p.dead++
		if p.dead > 64 && p.dead > len(p.jobs)/2 {
			p.compact()
		}
	}
}

func (p *pendingList) compact() {
	out := p.jobs[:0]
	for _, e := range p.jobs {
		if p.isLive(e) {
			out = append(out, e)
		}
	}
	for i := len(out); i < len(p.jobs); i++ {
		p.jobs[i] = entry{}
	}
	p.jobs = out
	p.dead = 0
}

// each calls fn for live jobs in order until fn returns false.
func (p *pendingList) each(fn func(*Job) bool) {
	for _, e := range p.jobs {
		if p.isLive(e) && !fn(e.j) {
			return
		}
	}
}

// live returns the live jobs in order, except skip.
func (p *pendingList) live(skip *Job) []*Job {
	var out []*Job
	for _, e := range p.jobs {
		if p.isLive(e) && e.j != skip {
			out = append(out, e.j)
		}
	}
	return out
}

// position returns the 1-based position of j among live jobs, or 0.
func (p *pendingList) position(j *Job) int {
	pos := 0
	for _, e := range p.jobs {
		if p.isLive(e) {
			pos++
			if e.j == j {
				return pos
			}
		}
	}
	return 0
}

// moveTo places j at 1-based position pos from the top (or bottom),
// renumbering the list's keys when there is no room between neighbours.
func (p *pendingList) moveTo(j *Job, pos int, bottom bool) {
	live := p.live(j)
	order := orderAt(live, j.Order, pos, bottom)
	for _, x := range live {
		if x.Order == order && x.UserPriority == j.UserPriority {
			p.renumber(live, j, pos, bottom)
			return
		}
	}
	p.remove(j)
	j.Order = order
	p.insert(j)
}

// renumber rebuilds the list with j at the requested position and evenly
// spaced keys.
func (p *pendingList) renumber(live []*Job, j *Job, pos int, bottom bool) {
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
	p.jobs = p.jobs[:0]
	p.dead = 0
	for i, x := range live {
		x.Order = base + int64(i)*orderGap
		x.inPending = p
		x.pendGen++
		p.jobs = append(p.jobs, mkEntry(x))
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
	if pos == 1 {
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
