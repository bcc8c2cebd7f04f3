package mbd

import (
	"context"
	"strconv"
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

// TestRsvResReq: brsvadd -R selects the reservation's hosts by the
// requirement's select section, among -m's hosts or among all hosts; a
// requirement no host satisfies and a bad one are refused.
func TestRsvResReq(t *testing.T) {
	m := startMbd(t, writeCluster(t, 3, 1))
	now := time.Now()
	// Each reservation on a day of its own: none overlaps another.
	add := func(day int, hosts []string, req string, slots int32) *api.RsvReply {
		begin := now.Add(time.Duration(day+1) * 24 * time.Hour)
		return m.rsvCall("root", &api.RsvRequest{Op: api.RsvAdd, Type: api.RsvUser, Users: []string{"alice"}, Slots: slots,
			Hosts: hosts, ResReq: req, Begin: begin.Unix(), End: begin.Add(time.Hour).Unix()})
	}
	rsvHostsOf := func(id string) string {
		var out []string
		m.srv.st.View(func(v *state.View) {
			r, _ := v.Rsv(id)
			for _, h := range r.Hosts {
				out = append(out, h.Host+":"+strconv.Itoa(int(h.Slots)))
			}
		})
		return strings.Join(out, " ")
	}
	for i, tt := range []struct {
		name, req string
		hosts     []string
		slots     int32
		want      string // hosts of the reservation, or the refusal
	}{
		{"R alone", "select[hname == host2]", nil, 1, "host2:1"},
		{"R among m", "hname != host1", []string{"host1", "host3"}, 1, "host3:1"},
		{"R over several hosts", "select[ncpus >= 1]", nil, 2, "host1:1 host2:1"},
		{"m alone", "", []string{"host3"}, 1, "host3:1"},
		{"no host", "select[hname == nosuch]", nil, 1, "There are no qualified host found in cluster"},
		{"none of m", "hname == host1", []string{"host2"}, 1, "There are no qualified host found in cluster"},
		{"bad", "select[[", nil, 1, `Bad resource requirement syntax: Error near "select": missing ]`},
		{"unknown resource", "select[nosuchres > 1]", nil, 1, "Bad resource requirement syntax: "},
		{"not enough", "hname == host1", nil, 2, "Not enough job slots available on the hosts for the advance reservation"},
	} {
		r := add(i, tt.hosts, tt.req, tt.slots)
		got := ""
		if r.Status.Code != 0 {
			got = r.Status.Message
		} else {
			got = rsvHostsOf(r.ID)
		}
		if !strings.HasPrefix(got, tt.want) || tt.want == "" {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}
