package mbd

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/testutil"
)

type countObs struct{ passes, commits atomic.Int64 }

func (o *countObs) SchedPass(time.Duration, int) { o.passes.Add(1) }
func (o *countObs) Commit(time.Duration)         { o.commits.Add(1) }

// queueStats returns the stats of queue name.
func queueStats(st *Stats, name string) QueueStats {
	for _, q := range st.Queues {
		if q.Name == name {
			return q
		}
	}
	return QueueStats{}
}

func jobCount(st *Stats, state, queue string) int {
	for _, j := range st.Jobs {
		if j.State == state && j.Queue == queue {
			return j.N
		}
	}
	return 0
}

// TestStats: the counts the metrics read follow submissions, dispatches and
// finishes exactly.
func TestStats(t *testing.T) {
	obs := &countObs{}
	m := startMbd(t, writeCluster(t, 2, 2))
	m.srv.SetObserver(obs) // after Run started: only passes are observed (commits need it before Run)
	sbd := connectSbd(t, m, "host1", nil)
	m.submit("alice", spec("sleep 1"), spec("sleep 1"), spec("sleep 1"))
	sbd.waitRunning(1)
	sbd.waitRunning(2)
	m.waitState(2, api.StateRun)
	st := m.srv.Stats()
	if r, p := jobCount(st, "RUN", "normal"), jobCount(st, "PEND", "normal"); r != 2 || p != 1 {
		t.Fatalf("jobs: RUN %d PEND %d, want 2 and 1: %+v", r, p, st.Jobs)
	}
	q := queueStats(st, "normal")
	if q.Submitted != 3 || q.Dispatched != 2 || q.Finished != 0 || q.SlotsUsed != 2 {
		t.Fatalf("queue normal: %+v", q)
	}
	var h1 HostSlots
	for _, h := range st.Hosts {
		if h.Name == "host1" {
			h1 = h
		}
	}
	if h1.Used != 2 || h1.Max != 2 {
		t.Fatalf("host1: %+v", h1)
	}
	pend := 0
	for _, p := range st.Pending {
		pend += p.N
	}
	if pend != 1 {
		t.Fatalf("pending by reason: %+v", st.Pending)
	}
	if st.RaftLastIndex == 0 {
		t.Fatal("no raft index")
	}
	sbd.finish(1, 0)
	m.waitState(1, api.StateDone)
	sbd.waitRunning(3)
	testutil.Eventually(t, 10*time.Second, "job 3 dispatched and counted", func() bool {
		q := queueStats(m.srv.Stats(), "normal")
		return q.Dispatched == 3
	})
	st = m.srv.Stats()
	q = queueStats(st, "normal")
	if q.Submitted != 3 || q.Dispatched != 3 || q.Finished != 1 || jobCount(st, "DONE", "normal") != 1 {
		t.Fatalf("after a finish: %+v %+v", q, st.Jobs)
	}
	if obs.passes.Load() == 0 {
		t.Fatal("no scheduling pass observed")
	}
}
