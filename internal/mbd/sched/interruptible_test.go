package sched

import (
	"fmt"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/job"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
)

// TestPropertyInterruptibleNeverDelays: interruptible backfill jobs never
// delay a slot-reserving job. One parallel job of a SLOT_RESERVE queue
// waits for a cluster filled with jobs of known run limits; then regular
// and interruptible jobs arrive, time moves on, jobs end at their run
// limits (sbatchd's TERM_RUNLIMIT, backfill limits included) or earlier.
// At every pass: the reservation's predicted start never moves later, every
// interruptible dispatch ends by it and only uses a gap of at least the
// slice, and the reserving job has started by the first pass at or after
// the start first predicted.
func TestPropertyInterruptibleNeverDelays(t *testing.T) {
	backfilled := 0
	rapid.Check(t, func(rt *rapid.T) {
		hosts := rapid.IntRange(1, 3).Draw(rt, "hosts")
		mxj := rapid.IntRange(1, 4).Draw(rt, "mxj")
		sliceS := rapid.SampledFrom([]int{60, 600, 1800}).Draw(rt, "slice")
		qrunM := rapid.SampledFrom([]int{30, 120, 600}).Draw(rt, "runlimit")
		slice, qrun := time.Duration(sliceS)*time.Second, time.Duration(qrunM)*time.Minute
		cs := clusterSpec{hosts: hosts, mxj: mxj, params: "MBD_SLEEP_TIME = 60\n", queues: fmt.Sprintf(`Begin Queue
QUEUE_NAME = big
PRIORITY = 40
SLOT_RESERVE = MAX_RESERVE_TIME[100000]
End Queue
Begin Queue
QUEUE_NAME = short
PRIORITY = 30
End Queue
Begin Queue
QUEUE_NAME = bg
PRIORITY = 1
BACKFILL = Y
RUNLIMIT = %d
INTERRUPTIBLE_BACKFILL = %d
End Queue
`, qrunM, sliceS)}
		h := newHarness(t, cs)
		total := hosts * mxj
		withW := func(min int) func(*api.EvJobNew) {
			return func(e *api.EvJobNew) {
				if min > 0 {
					e.Spec.Limits = &api.Limits{Run: int64(min) * 60}
				}
			}
		}
		shortW := []int{10, 30, 60, 120}
		// Fill the cluster, then the big job reserves what it can.
		for i := 0; i < total; i++ {
			h.submit("u", "short", withW(rapid.SampledFrom(shortW).Draw(rt, "fillW")))
		}
		h.run()
		big := h.submit("u", "big", slots(int32(total)))
		bigKey := state.Key{ID: big}
		var first, last time.Time
		for step := 0; step < 30; step++ {
			// Jobs end at their run limits, some earlier.
			var ended []state.Key
			h.st.View(func(v *state.View) {
				v.Jobs(func(j *state.Job) bool {
					if !job.Started(j.State) {
						return true
					}
					d := runLimit(j, h.cfg.Queue(j.Queue))
					if d > 0 && !h.now.Before(unix(j.StartTime).Add(d)) {
						ended = append(ended, j.Key)
					}
					return true
				})
			})
			for _, k := range ended {
				h.apply(&api.Event{JobStatus: &api.EvJobStatus{JobID: k.ID, Index: k.Index, State: api.StateExit, TermReason: "TERM_RUNLIMIT"}})
			}
			if rapid.IntRange(0, 5).Draw(rt, "early") == 0 {
				var run []state.Key
				h.st.View(func(v *state.View) {
					v.Jobs(func(j *state.Job) bool {
						if job.Started(j.State) && j.Key != bigKey {
							run = append(run, j.Key)
						}
						return true
					})
				})
				if len(run) > 0 {
					k := run[rapid.IntRange(0, len(run)-1).Draw(rt, "which")]
					h.apply(&api.Event{JobStatus: &api.EvJobStatus{JobID: k.ID, Index: k.Index, State: api.StateDone}})
				}
			}
			for i := rapid.IntRange(0, 3).Draw(rt, "arrivals"); i > 0; i-- {
				if rapid.Bool().Draw(rt, "interruptible") {
					h.submit("v", "bg", withW(rapid.SampledFrom([]int{0, 1, 5, qrunM}).Draw(rt, "bgW")),
						slots(int32(rapid.IntRange(1, 2).Draw(rt, "bgSlots"))))
				} else {
					h.submit("w", "short", withW(rapid.SampledFrom(shortW).Draw(rt, "shortW")))
				}
			}
			plan := h.run()
			var started bool
			h.st.View(func(v *state.View) { started = job.Started(v.Job(bigKey).State) })
			if started {
				return // on time: checked at the previous passes
			}
			if !first.IsZero() && !h.now.Before(first) {
				rt.Fatalf("at %v the big job has not started; predicted %v", h.now, first)
			}
			var cur time.Time
			if r := h.s.mem.rsv[bigKey]; r != nil {
				cur = r.predicted
			}
			if !last.IsZero() && (cur.IsZero() || cur.After(last)) {
				rt.Fatalf("predicted start moved from %v to %v", last, cur)
			}
			if first.IsZero() {
				first = cur
			}
			last = cur
			for _, d := range plan.Dispatches {
				if d.RunLimit == 0 {
					continue
				}
				if d.Queue != "bg" || !d.Backfill {
					rt.Fatalf("run limit on a dispatch that is not interruptible backfill: %+v", d)
				}
				if cur.IsZero() {
					rt.Fatalf("interruptible backfill without a predicted reservation: %+v", d)
				}
				if end := h.now.Add(d.RunLimit); end.After(cur) {
					rt.Fatalf("job %s backfilled until %v, after the predicted start %v", d.Key, end, cur)
				}
				if d.RunLimit < slice && d.RunLimit != qrun {
					rt.Fatalf("job %s backfilled for %v: less than the slice %v", d.Key, d.RunLimit, slice)
				}
				backfilled++
			}
			h.now = h.now.Add(time.Duration(rapid.SampledFrom([]int{10, 60, 600, 1800}).Draw(rt, "tick")) * time.Second)
		}
	})
	if backfilled == 0 {
		t.Fatal("no interruptible backfill dispatch was generated: the property was not exercised")
	}
	t.Logf("%d interruptible backfill dispatches checked", backfilled)
}
