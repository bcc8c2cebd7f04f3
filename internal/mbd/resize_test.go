package mbd

import (
	"context"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/testutil"
)

// resizeSignals are the allocation notices the fake sbatchd received.
func (f *fakeSbd) resizeSignals() []*api.ResizeNotice {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []*api.ResizeNotice
	for _, s := range f.signals {
		if s.Action == api.ActResize {
			out = append(out, s.Resize)
		}
	}
	return out
}

// An autoresizable job grows to its maximum once running, its first host
// is told each change with the notification command; bresize is the
// owner's (another user is refused), and the allocation survives a
// restart.
func TestResizeThroughMbatchd(t *testing.T) {
	dir := writeCluster(t, 1, 4)
	m := startMbd(t, dir)
	sbd := connectSbd(t, m, "host1", nil)
	s := spec("sleep 100")
	s.MinProcs, s.MaxProcs, s.AutoResizable, s.ResizeNotifyCmd = 1, 3, true, "notify"
	if res := m.submit("alice", s); res[0].Status != nil && res[0].Status.Code != 0 {
		t.Fatalf("bsub -ar: %+v", res[0].Status)
	}
	sbd.waitRunning(1)
	if !testutil.Poll(20*time.Second, func() bool { return m.job(1).NumSlots == 3 }) {
		t.Fatalf("job 1 holds %d slots, want 3", m.job(1).NumSlots)
	}
	if !testutil.Poll(20*time.Second, func() bool { return len(sbd.resizeSignals()) == 1 }) {
		t.Fatalf("notices: %+v", sbd.resizeSignals())
	}
	n := sbd.resizeSignals()[0]
	if n.Event != "grow" || n.Cmd != "notify" || len(n.Alloc) != 1 || n.Alloc[0].Slots != 3 || n.Changed[0].Slots != 2 {
		t.Fatalf("grow notice %+v", n)
	}
	resize := func(user string, req *api.ResizeRequest) *api.ControlResult {
		c := m.client(user)
		defer c.Close()
		var r api.ControlReply
		if err := c.Call(context.Background(), api.MBatchdResize, req, &r); err != nil {
			t.Fatal(err)
		}
		return r.Results[0]
	}
	if r := resize("bob", &api.ResizeRequest{Job: &api.JobRef{JobID: 1}, Op: api.ResizeOpRelease, All: true}); r.Status.Message != "User permission denied" {
		t.Fatalf("bob's bresize release: %+v", r.Status)
	}
	if r := resize("alice", &api.ResizeRequest{Job: &api.JobRef{JobID: 1}, Op: api.ResizeOpCancel}); r.Status.Message != errNoPending.Error() {
		t.Fatalf("cancel at max: %+v", r.Status)
	}
	if r := resize("alice", &api.ResizeRequest{Job: &api.JobRef{JobID: 1}, Op: api.ResizeOpRelease, Hosts: []string{"2*host1"},
		CancelPending: true, NotifyCmd: "other", SetNotify: true}); r.Status.Code != 0 {
		t.Fatalf("release: %+v", r.Status)
	}
	if j := m.job(1); j.NumSlots != 1 || j.ResizeNotifyCmd != "other" || j.ResizeMax != 0 {
		t.Fatalf("after release: %d slots, command %q, pending %d", j.NumSlots, j.ResizeNotifyCmd, j.ResizeMax)
	}
	if !testutil.Poll(20*time.Second, func() bool { return len(sbd.resizeSignals()) == 2 }) {
		t.Fatalf("notices: %+v", sbd.resizeSignals())
	}
	if n := sbd.resizeSignals()[1]; n.Event != "shrink" || n.Cmd != "other" || n.Alloc[0].Slots != 1 {
		t.Fatalf("shrink notice %+v", n)
	}
	// -c: the job does not grow again by itself. Root may resize it, and
	// a restart keeps the allocation and the request.
	if r := resize("root", &api.ResizeRequest{Job: &api.JobRef{JobID: 1}, Op: api.ResizeOpRequest, Min: 5, Max: 5}); r.Status.Code != 0 {
		t.Fatalf("root's request: %+v", r.Status)
	}
	m.stop()
	m2 := startMbd(t, dir)
	if j := m2.job(1); j.NumSlots != 1 || j.ResizeMin != 5 || j.ResizeMax != 5 || j.ResizeNotifyCmd != "other" {
		t.Fatalf("after restart: %d slots, pending %d-%d, command %q", j.NumSlots, j.ResizeMin, j.ResizeMax, j.ResizeNotifyCmd)
	}
}
