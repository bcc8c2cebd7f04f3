package mbd

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
	"github.com/basalt-lsf/basalt/internal/testutil"
)

func (m *testMbd) rsvCall(user string, req *api.RsvRequest) *api.RsvReply {
	m.t.Helper()
	c := m.client(user)
	defer c.Close()
	var r api.RsvReply
	if err := c.Call(context.Background(), api.MBatchdRsv, req, &r); err != nil {
		m.t.Fatal(err)
	}
	return &r
}

// TestRsvLifecycle: only an administrator adds a reservation; its user's
// job (bsub -U) runs in it, another user's submission to it is refused;
// when the closed reservation's window ends its running job is killed and
// the one-time reservation deleted.
func TestRsvLifecycle(t *testing.T) {
	m := startMbd(t, fastSbdCluster(t, 1, 2))
	sbd := connectSbd(t, m, "host1", nil)
	now := time.Now()
	add := &api.RsvRequest{Op: api.RsvAdd, Type: api.RsvUser, Users: []string{"alice"}, Slots: 1, Hosts: []string{"host1"},
		Begin: now.Unix(), End: now.Add(time.Hour).Unix()}
	if r := m.rsvCall("alice", add); r.Status.Code == 0 || r.Status.Message != "User permission denied" {
		t.Fatalf("alice's brsvadd: %+v", r.Status)
	}
	r := m.rsvCall("root", add)
	if r.Status.Code != 0 || r.ID != "alice#0" {
		t.Fatalf("root's brsvadd: %+v %q", r.Status, r.ID)
	}
	s := spec("sleep 100")
	s.Reservation = "alice#0"
	if res := m.submit("bob", s); res[0].Status == nil || res[0].Status.Code == 0 {
		t.Fatalf("bob's job in alice's reservation accepted: %+v", res[0])
	}
	m.submit("alice", s)
	sbd.waitRunning(1)
	m.waitState(1, api.StateRun)

	// The window ends (recorded as brsvmod would): the job is killed and
	// the reservation goes.
	var cur *api.EvRsv
	m.srv.st.View(func(v *state.View) { cur, _ = v.Rsv("alice#0") })
	ev := *cur
	ev.Op, ev.Begin, ev.End = api.RsvModify, now.Add(-time.Hour).Unix(), now.Add(-time.Minute).Unix()
	if err := m.srv.propose(context.Background(), &api.Event{User: "root", Rsv: &ev}); err != nil {
		t.Fatal(err)
	}
	m.srv.rsvTick(context.Background())
	testutil.Eventually(t, 10*time.Second, "the reservation's job to be terminated", func() bool {
		sbd.mu.Lock()
		defer sbd.mu.Unlock()
		return len(sbd.signals) > 0 && sbd.signals[0].JobID == 1 && sbd.signals[0].Action == api.ActTerminate
	})
	testutil.Eventually(t, 10*time.Second, "the expired reservation to be deleted", func() bool {
		gone := false
		m.srv.st.View(func(v *state.View) { _, ok := v.Rsv("alice#0"); gone = !ok })
		return gone
	})
}

func TestRsvNameOK(t *testing.T) {
	for n, want := range map[string]bool{"maint": true, "m-1_x": true, "1abc": false, "": false, "a#0": false, "a b": false,
		strings.Repeat("a", 39): true, strings.Repeat("a", 40): false} {
		if got := rsvNameOK(n); got != want {
			t.Errorf("rsvNameOK(%q) = %v, want %v", n, got, want)
		}
	}
}
