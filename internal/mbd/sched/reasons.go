package sched

import (
	"cmp"
	"slices"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
)

// Reasons are a plan's pending reasons by job: for every job the pass left
// pending, the reason list bjobs -p shows. Jobs with the same reasons share
// one list (never modify a list Get returns). A Reasons is built by one
// pass and never modified once Schedule returns, so it may be read
// concurrently; the zero value and nil hold no job.
//
// Jobs are looked up by ID in pages of small integers (job IDs are dense
// below MAX_JOBID), each naming one of the plan's few thousand distinct
// lists; array elements and IDs beyond the pages are in a map. A million
// pending jobs cost a few megabytes the garbage collector never scans,
// where a map of slices cost ~60 MB of pointers rebuilt on every pass.
type Reasons struct {
	// lists are the distinct reason lists; lists[0] is unused (0 in a page
	// means no entry).
	lists [][]*api.PendReason
	pages []*reasonPage
	side  map[state.Key]uint32
	n     int
}

const (
	reasonPageBits = 12
	reasonPageLen  = 1 << reasonPageBits
	// reasonDenseIDs bounds the IDs held in pages (the page directory of a
	// MAX_JOBID of 2^31 would be needlessly large); greater IDs go to the map.
	reasonDenseIDs = 1 << 26
)

type reasonPage [reasonPageLen]uint32

// dense reports whether k is held in the pages.
func dense(k state.Key) bool { return k.Index == 0 && k.ID >= 0 && k.ID < reasonDenseIDs }

func (r *Reasons) id(k state.Key) uint32 {
	if r == nil {
		return 0
	}
	if !dense(k) {
		return r.side[k]
	}
	if x := r.slot(k); x != nil {
		return *x
	}
	return 0
}

// slot is dense job k's place in the pages; nil when its page is absent.
func (r *Reasons) slot(k state.Key) *uint32 {
	if pi := int(k.ID >> reasonPageBits); pi < len(r.pages) {
		if pg := r.pages[pi]; pg != nil {
			return &pg[k.ID&(reasonPageLen-1)]
		}
	}
	return nil
}

// Get returns the pending reasons of job k, nil when the plan has none
// for it (the job was dispatched, is not pending, or was not examined).
func (r *Reasons) Get(k state.Key) []*api.PendReason {
	if id := r.id(k); id != 0 {
		return r.lists[id]
	}
	return nil
}

// Has reports whether the plan holds reasons for job k.
func (r *Reasons) Has(k state.Key) bool { return r.id(k) != 0 }

// Len is the number of jobs with reasons.
func (r *Reasons) Len() int {
	if r == nil {
		return 0
	}
	return r.n
}

// Each calls fn for every job with reasons, jobs held in pages in ID order
// first, then the others in key order, until fn returns false.
func (r *Reasons) Each(fn func(k state.Key, rs []*api.PendReason) bool) {
	if r == nil {
		return
	}
	for pi, pg := range r.pages {
		if pg == nil {
			continue
		}
		for i, id := range pg {
			if id != 0 && !fn(state.Key{ID: int64(pi)<<reasonPageBits | int64(i)}, r.lists[id]) {
				return
			}
		}
	}
	keys := make([]state.Key, 0, len(r.side))
	for k := range r.side {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b state.Key) int {
		if c := cmp.Compare(a.ID, b.ID); c != 0 {
			return c
		}
		return cmp.Compare(a.Index, b.Index)
	})
	for _, k := range keys {
		if !fn(k, r.lists[r.side[k]]) {
			return
		}
	}
}

// reasonsBuilder fills a pass's Reasons: it interns the lists (by their
// first element and length: the pass shares lists between jobs, so
// identical lists are mostly one slice) and is dropped with the pass.
type reasonsBuilder struct {
	r    *Reasons
	ids  map[reasonListKey]uint32
	last reasonListKey
	lid  uint32
}

type reasonListKey struct {
	first **api.PendReason
	n     int
}

// newReasonsBuilder returns a builder whose pages have room for IDs up to
// maxID and whose map is sized for side entries.
func newReasonsBuilder(maxID int64, side int) *reasonsBuilder {
	r := &Reasons{lists: make([][]*api.PendReason, 1, 64)}
	if maxID >= 0 {
		r.pages = make([]*reasonPage, min(maxID, reasonDenseIDs-1)>>reasonPageBits+1)
	}
	if side > 0 {
		r.side = make(map[state.Key]uint32, side)
	}
	return &reasonsBuilder{r: r, ids: make(map[reasonListKey]uint32, 64)}
}

func (b *reasonsBuilder) intern(rs []*api.PendReason) uint32 {
	var k reasonListKey
	if len(rs) > 0 {
		k = reasonListKey{&rs[0], len(rs)}
	}
	if b.lid != 0 && k == b.last {
		return b.lid
	}
	id := b.ids[k]
	if id == 0 {
		b.r.lists = append(b.r.lists, rs)
		id = uint32(len(b.r.lists) - 1)
		b.ids[k] = id
	}
	b.last, b.lid = k, id
	return id
}

// set records job k's reasons.
func (b *reasonsBuilder) set(k state.Key, rs []*api.PendReason) {
	id := b.intern(rs)
	r := b.r
	if !dense(k) {
		if r.side == nil {
			r.side = map[state.Key]uint32{}
		}
		if r.side[k] == 0 {
			r.n++
		}
		r.side[k] = id
		return
	}
	pi := int(k.ID >> reasonPageBits)
	if pi >= len(r.pages) {
		r.pages = append(r.pages, make([]*reasonPage, pi+1-len(r.pages))...)
	}
	pg := r.pages[pi]
	if pg == nil {
		pg = new(reasonPage)
		r.pages[pi] = pg
	}
	x := &pg[k.ID&(reasonPageLen-1)]
	if *x == 0 {
		r.n++
	}
	*x = id
}

// remove forgets job k's reasons (it was dispatched).
func (b *reasonsBuilder) remove(k state.Key) {
	r := b.r
	if !dense(k) {
		if r.side[k] != 0 {
			delete(r.side, k)
			r.n--
		}
		return
	}
	if x := r.slot(k); x != nil && *x != 0 {
		*x = 0
		r.n--
	}
}
