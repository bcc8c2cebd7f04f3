package mbd

import (
	"context"
	"sync"
	"testing"

	"github.com/basalt-lsf/basalt/api"
)

func (m *testMbd) submitKeyed(user, key string, specs ...*api.JobSpec) []*api.SubmitResult {
	m.t.Helper()
	c := m.client(user)
	defer c.Close()
	var reply api.SubmitReply
	if err := c.Call(context.Background(), api.MBatchdSubmit, &api.SubmitRequest{Jobs: specs, Key: key}, &reply); err != nil {
		m.t.Fatal(err)
	}
	return reply.Results
}

// TestSubmitKey: a request sent again with its key (its answer was lost)
// gets the jobs the first sending created, also after a master restart
// and from a snapshot; another user's request with the same key is its
// own; positions the first sending refused are tried again.
func TestSubmitKey(t *testing.T) {
	dir := writeCluster(t, 1, 4)
	m := startMbd(t, dir)
	bad := spec("true")
	bad.Queues = []string{"nosuchqueue"}
	first := m.submitKeyed("alice", "k1", spec("sleep 1"), bad, spec("sleep 2"))
	if first[0].JobID == 0 || first[1].JobID != 0 || first[2].JobID == 0 {
		t.Fatalf("first sending: %+v", first)
	}
	check := func(when string, got []*api.SubmitResult) {
		t.Helper()
		if got[0].JobID != first[0].JobID || got[2].JobID != first[2].JobID || got[0].Queue != first[0].Queue ||
			got[0].DefaultQueue != first[0].DefaultQueue {
			t.Fatalf("%s: %+v, want jobs %d and %d again", when, got, first[0].JobID, first[2].JobID)
		}
		if got[1].JobID != 0 || got[1].Status == nil {
			t.Fatalf("%s: the refused position gave %+v", when, got[1])
		}
	}
	check("sent again", m.submitKeyed("alice", "k1", spec("sleep 1"), bad, spec("sleep 2")))
	if other := m.submitKeyed("bob", "k1", spec("sleep 1")); other[0].JobID == first[0].JobID || other[0].JobID == 0 {
		t.Fatalf("bob's request with alice's key: %+v", other)
	}
	jobs := len(m.jobs("root", &api.JobsRequest{User: "all"}).Jobs)
	if jobs != 3 {
		t.Fatalf("%d jobs after a request sent twice and bob's, want 3", jobs)
	}

	// Concurrent sendings of one key create the jobs once.
	var wg sync.WaitGroup
	ids := make([]int64, 8)
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids[i] = m.submitKeyed("carol", "k2", spec("sleep 3"))[0].JobID
		}()
	}
	wg.Wait()
	for _, id := range ids {
		if id != ids[0] || id == 0 {
			t.Fatalf("concurrent sendings of one key got jobs %v", ids)
		}
	}

	// A restarted master replays the log; one restored from a snapshot
	// reads the keys from it.
	m.stop()
	m = startMbd(t, dir)
	check("after a restart", m.submitKeyed("alice", "k1", spec("sleep 1"), bad, spec("sleep 2")))
	if err := m.srv.node.r.Snapshot().Error(); err != nil {
		t.Fatal(err)
	}
	m.stop()
	m = startMbd(t, dir)
	check("after a snapshot and a restart", m.submitKeyed("alice", "k1", spec("sleep 1"), bad, spec("sleep 2")))
	if n := len(m.jobs("root", &api.JobsRequest{User: "all"}).Jobs); n != 4 {
		t.Fatalf("%d jobs at the end, want 4", n)
	}
}
