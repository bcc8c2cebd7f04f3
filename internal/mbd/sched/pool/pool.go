package pool

import (
	"math"
	"sort"
	"time"
)

// Queue is one queue of a pool as the allocation sees it.
type Queue struct {
	Name     string
	Share    int // SLOT_SHARE, percent
	Priority int
	// Demand is the most slots the queue could hold now: slots in use plus
	// pending slots, capped by its queue job limit (QJOB_LIMIT).
	Demand int
	// Used is the accumulated, decayed slot usage (Accumulator).
	Used float64
}

// Order sorts queues for allocation: the smallest accumulated usage per
// share first (LSF "favors queues that have not run jobs yet"), then higher
// priority, then the given order.
func Order(qs []Queue) []int {
	idx := make([]int, len(qs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		qa, qb := qs[idx[a]], qs[idx[b]]
		ua, ub := qa.Used/float64(max(qa.Share, 1)), qb.Used/float64(max(qb.Share, 1))
		if ua != ub {
			return ua < ub
		}
		return qa.Priority > qb.Priority
	})
	return idx
}

// Allocate divides total slots among qs (in the order given by order, a
// permutation of qs' indices) and returns each queue's allocation, indexed
// like qs. The allocations never sum to more than total and no queue gets
// more than its demand.
func Allocate(total int, qs []Queue, order []int) []int {
	alloc := make([]int, len(qs))
	if total <= 0 {
		return alloc
	}
	remaining := total
	share := func(n, s int) int { return int(math.Ceil(float64(n) * float64(s) / 100)) }
	for _, i := range order {
		q := qs[i]
		a := min(share(total, q.Share), remaining, max(q.Demand, 0))
		alloc[i] = a
		remaining -= a
	}
	leftover := remaining
	if leftover > 0 {
		for _, i := range order {
			q := qs[i]
			want := q.Demand - alloc[i]
			if want <= 0 || remaining == 0 {
				continue
			}
			a := min(share(leftover, q.Share), remaining, want)
			alloc[i] += a
			remaining -= a
		}
	}
	for remaining > 0 {
		gave := false
		for _, i := range order {
			if want := qs[i].Demand - alloc[i]; want > 0 && remaining > 0 {
				a := min(want, remaining)
				alloc[i] += a
				remaining -= a
				gave = true
			}
		}
		if !gave {
			break
		}
	}
	return alloc
}

// Accumulator is the decayed slot usage of a pool's queues: every pass adds
// slots in use × elapsed time and decays what was there as fairshare
// decays CPU time (to a tenth after Decay). It is the only state pools keep
// between passes.
type Accumulator struct {
	// Decay is the time after which accumulated usage has decayed to a
	// tenth (HIST_HOURS); zero means no decay.
	Decay time.Duration
	used  map[string]float64
	at    time.Time
}

// Advance decays the accumulated usage to now and adds inUse slots (by
// queue) for the time elapsed since the previous call.
func (a *Accumulator) Advance(now time.Time, inUse map[string]int) {
	if a.used == nil {
		a.used = map[string]float64{}
		a.at = now
	}
	dt := now.Sub(a.at)
	if dt <= 0 {
		return
	}
	f := 1.0
	if a.Decay > 0 {
		f = math.Pow(0.1, dt.Hours()/a.Decay.Hours())
	}
	for q := range a.used {
		a.used[q] *= f
		if a.used[q] < 1e-9 {
			delete(a.used, q)
		}
	}
	for q, n := range inUse {
		if n > 0 {
			a.used[q] += float64(n) * dt.Hours()
		}
	}
	a.at = now
}

// Used returns queue q's accumulated usage (slot-hours).
func (a *Accumulator) Used(q string) float64 { return a.used[q] }
