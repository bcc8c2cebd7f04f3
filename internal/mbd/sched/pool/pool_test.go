package pool

import (
	"fmt"
	"testing"
	"time"
)

func alloc(total int, shares, demands []int) []int {
	qs := make([]Queue, len(shares))
	for i := range qs {
		qs[i] = Queue{Name: fmt.Sprintf("queue%d", i+1), Share: shares[i], Priority: 100 - i, Demand: demands[i]}
	}
	return Allocate(total, qs, Order(qs))
}

func TestAllocateSeedExamples(t *testing.T) {
	const lots = 1000
	for _, tt := range []struct {
		name    string
		total   int
		shares  []int
		demands []int
		want    []int
	}{
		// Seed 002: 2 hosts x MXJ 6 = 12 slots, 50/30/20.
		{"seed 12 slots", 12, []int{50, 30, 20}, []int{lots, lots, lots}, []int{6, 4, 2}},
		// The four-queue example: queue4 is not in the pool, so the pool
		// sees what queue4 leaves (here all 12) and allocates the same.
		{"seed four queues", 12, []int{50, 30, 20}, []int{lots, lots, lots}, []int{6, 4, 2}},
		// IBM slot_allocation_examples (Roma/Verona/Genova), 15 slots.
		{"15 slots", 15, []int{50, 30, 20}, []int{lots, lots, lots}, []int{8, 5, 2}},
		{"15 slots, Verona idle", 15, []int{50, 30, 20}, []int{lots, 0, lots}, []int{11, 0, 4}},
		{"15 slots, only Genova", 15, []int{50, 30, 20}, []int{0, 0, lots}, []int{0, 0, 15}},
		// P73A-317: 3 hosts x 7.
		{"21 slots", 21, []int{50, 30, 20}, []int{lots, lots, lots}, []int{11, 7, 3}},
		{"21 slots, ten queues of 10%", 21, []int{10, 10, 10, 10, 10, 10, 10, 10, 10, 10},
			[]int{lots, lots, lots, lots, lots, lots, lots, lots, lots, lots}, []int{3, 3, 3, 3, 3, 3, 3, 0, 0, 0}},
		// Seed 002: a queue eligible for 50 with a job limit of 40 runs 40;
		// the other 10 go to the other queues of the pool (30&20 by share: 3 and
		// 2, the remaining 5 to the first queue that still wants slots).
		{"queue job limit", 100, []int{50, 30, 20}, []int{40, lots, lots}, []int{40, 38, 22}},
		// Leftover when every queue has little demand.
		{"small demand", 12, []int{50, 30, 20}, []int{1, 2, 3}, []int{1, 2, 3}},
		{"nothing", 0, []int{50, 50}, []int{5, 5}, []int{0, 0}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := alloc(tt.total, tt.shares, tt.demands)
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("Allocate = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestAllocateNeverOvercommits(t *testing.T) {
	for total := 0; total < 40; total++ {
		for d1 := 0; d1 < 15; d1 += 3 {
			for d2 := 0; d2 < 15; d2 += 4 {
				got := alloc(total, []int{60, 25, 15}, []int{d1, d2, 7})
				sum := 0
				for i, d := range []int{d1, d2, 7} {
					if got[i] > d || got[i] < 0 {
						t.Fatalf("total %d demands %d %d: %v exceeds demand", total, d1, d2, got)
					}
					sum += got[i]
				}
				if sum > total {
					t.Fatalf("total %d: %v sums to %d", total, got, sum)
				}
				if want := min(total, d1+d2+7); sum != want {
					t.Fatalf("total %d demands %d %d 7: %v leaves slots unallocated (%d, want %d)", total, d1, d2, got, sum, want)
				}
			}
		}
	}
}

func TestOrderFavorsQueuesThatHaveNotRun(t *testing.T) {
	// Ten queues of 10% on 21 slots: the first seven run; once usage has
	// accumulated, the three that have not run come first.
	qs := make([]Queue, 10)
	for i := range qs {
		qs[i] = Queue{Name: fmt.Sprint(i), Share: 10, Priority: 100 - i, Demand: 1000}
	}
	var acc Accumulator
	acc.Decay = 5 * time.Hour
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	acc.Advance(t0, nil)
	first := Allocate(21, qs, Order(qs))
	inUse := map[string]int{}
	for i, n := range first {
		inUse[qs[i].Name] = n
	}
	acc.Advance(t0.Add(time.Hour), inUse)
	for i := range qs {
		qs[i].Used = acc.Used(qs[i].Name)
	}
	second := Allocate(21, qs, Order(qs))
	if fmt.Sprint(second[7:]) != "[3 3 3]" {
		t.Fatalf("after an hour: %v; the queues that have not run should come first", second)
	}
}

func TestAccumulatorDecay(t *testing.T) {
	a := Accumulator{Decay: 5 * time.Hour}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a.Advance(t0, nil)
	a.Advance(t0.Add(time.Hour), map[string]int{"q": 10})
	if got := a.Used("q"); got != 10 {
		t.Fatalf("10 slots for an hour = %v slot-hours", got)
	}
	a.Advance(t0.Add(6*time.Hour), nil)
	if got := a.Used("q"); got < 0.999 || got > 1.001 {
		t.Fatalf("after HIST_HOURS the usage is a tenth: %v", got)
	}
}
