package state

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/basalt-lsf/basalt/api"
)

func rsvEv(op api.RsvOp, id string, slots int32, users ...string) *api.Event {
	return &api.Event{User: "root", Rsv: &api.EvRsv{Op: op, ID: id, Type: api.RsvUser, Users: users, Creator: "root",
		Hosts: []*api.RsvHost{{Host: "hostA", Slots: slots}}, Begin: 1000, End: 5000}}
}

func (l *logger) rsvs() []string {
	var out []string
	l.s.View(func(v *View) {
		for _, r := range v.Rsvs() {
			out = append(out, fmt.Sprintf("%s %s %s:%d", r.ID, strings.Join(r.Users, ","), r.Hosts[0].Host, r.Hosts[0].Slots))
		}
	})
	return out
}

// TestRsvs: brsvadd, brsvmod and brsvdel apply in order, a bad event is
// refused without changing anything, and the table survives a snapshot.
func TestRsvs(t *testing.T) {
	l := newLogger(t)
	l.must(rsvEv(api.RsvAdd, "user1#0", 2, "user1"), rsvEv(api.RsvAdd, "user2#0", 1, "user2"), rsvEv(api.RsvAdd, "system#0", 4))
	l.must(rsvEv(api.RsvModify, "user1#0", 3, "user3"))
	l.must(rsvEv(api.RsvDelete, "system#0", 0))
	want := []string{"user1#0 user3 hostA:3", "user2#0 user2 hostA:1"}
	if got := l.rsvs(); !reflect.DeepEqual(got, want) {
		t.Fatalf("reservations %q, want %q", got, want)
	}
	for _, e := range []*api.Event{
		rsvEv(api.RsvAdd, "user1#0", 1, "x"),
		rsvEv(api.RsvModify, "nope#0", 1, "x"),
		rsvEv(api.RsvDelete, "nope#0", 1),
		rsvEv(api.RsvAdd, "", 1),
		rsvEv(9, "z#0", 1),
	} {
		if errs := l.apply(e); errs[0] == nil {
			t.Errorf("%+v applied, want an error", e.Rsv)
		}
	}
	if got := l.rsvs(); !reflect.DeepEqual(got, want) {
		t.Fatalf("after refused events %q, want %q", got, want)
	}
	snap, idx := l.s.Snapshot()
	s2 := New()
	if err := s2.Restore(bytes.NewReader(snap), idx); err != nil {
		t.Fatal(err)
	}
	r := &logger{t: t, s: s2, idx: idx, now: l.now}
	if got := r.rsvs(); !reflect.DeepEqual(got, want) {
		t.Fatalf("restored %q, want %q", got, want)
	}
	r.s.View(func(v *View) {
		x, _ := v.Rsv("user1#0")
		if x.Begin != 1000 || x.End != 5000 || x.Creator != "root" {
			t.Errorf("restored user1#0 = %+v", x)
		}
	})
}
