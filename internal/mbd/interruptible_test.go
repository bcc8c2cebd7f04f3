package mbd

import (
	"testing"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
)

// interruptibleCluster writes a one-host, 4-slot cluster with a
// slot-reserving queue "big" and an interruptible backfill queue "bg"
// (minimal time slice 60 seconds, RUNLIMIT 2 hours).
func interruptibleCluster(t *testing.T) string {
	t.Helper()
	dir := writeCluster(t, 1, 4)
	editBatchConf(t, dir, "lsb.queues", func(b []byte) []byte {
		return append(b, `
Begin Queue
QUEUE_NAME = big
PRIORITY = 60
SLOT_RESERVE = MAX_RESERVE_TIME[10000]
End Queue

Begin Queue
QUEUE_NAME = bg
PRIORITY = 1
BACKFILL = Y
RUNLIMIT = 120
INTERRUPTIBLE_BACKFILL = 60
End Queue
`...)
	})
	return dir
}

// TestInterruptibleBackfillLaunch: a 90-minute job of an interruptible
// backfill queue starts in slots reserved by a parallel job predicted to
// start in an hour; its launch carries a run limit ending by then (not its
// -W, not the queue's RUNLIMIT), recorded in JOB_START so that the launch
// built after an mbatchd restart carries it too. A job of the same queue
// started regularly carries the queue's RUNLIMIT.
func TestInterruptibleBackfillLaunch(t *testing.T) {
	dir := interruptibleCluster(t)
	m := startMbd(t, dir)
	sbd := connectSbd(t, m, "host1", nil)

	// A regular start of an interruptible job: the queue's limit (2 hours).
	reg := spec("sleep 1000")
	reg.Queues = []string{"bg"}
	if r := m.submit("alice", reg); r[0].JobID != 1 {
		t.Fatalf("submit: %+v", r[0].Status)
	}
	m.waitState(1, api.StateRun)
	if l := sbd.waitRunning(1); l.Limits.Run != 2*3600 {
		t.Fatalf("regular interruptible job: run limit %d, want %d (queue RUNLIMIT)", l.Limits.Run, 2*3600)
	}
	// Two 1-hour jobs, the last slot taken by job 1 until it finishes.
	for i := 0; i < 2; i++ {
		s := spec("sleep 1000")
		s.Limits = &api.Limits{Run: 3600}
		m.submit("alice", s)
	}
	sbd.waitRunning(2)
	sbd.waitRunning(3)
	sbd.finish(1, 0)
	m.waitState(1, api.StateDone)

	// The 4-slot job reserves the two free slots, predicted in an hour.
	big := spec("sleep 10")
	big.Queues = []string{"big"}
	big.MinProcs, big.MaxProcs = 4, 4
	m.submit("bob", big) // job 4
	bg := spec("sleep 100000")
	bg.Queues = []string{"bg"}
	bg.Limits = &api.Limits{Run: 90 * 60} // longer than the gap
	m.submit("alice", bg)                 // job 5
	l := sbd.waitRunning(5)
	if l.Limits.Run <= 3600-120 || l.Limits.Run > 3600 {
		t.Fatalf("backfilled interruptible job: run limit %d, want just under 3600 (the reservation's predicted start)", l.Limits.Run)
	}
	var recorded int64
	m.srv.st.View(func(v *state.View) { recorded = v.Job(state.Key{ID: 5}).BackfillLimit })
	if recorded != l.Limits.Run {
		t.Fatalf("state BackfillLimit %d, launch run limit %d", recorded, l.Limits.Run)
	}
	if j := m.job(4); j == nil || j.State != api.StatePend {
		t.Fatalf("reserving job: %+v", j)
	}

	// After a restart the state, and the launch built from it, keep it.
	m.stop()
	m2 := startMbd(t, dir)
	var again *api.JobLaunch
	m2.srv.st.View(func(v *state.View) {
		if j := v.Job(state.Key{ID: 5}); j != nil {
			again = m2.srv.launchRecord(m2.srv.cfg.Current(), j)
		}
	})
	if again == nil || again.Limits.Run != l.Limits.Run {
		t.Fatalf("launch after restart: %+v, want run limit %d", again, l.Limits.Run)
	}
}
