package state

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

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

func TestParseRsvWindow(t *testing.T) {
	for _, c := range []struct {
		in   string
		want RsvWindow
		err  string
	}{
		{"8-17", RsvWindow{Begin: 8 * 60, End: 17 * 60}, ""},
		{"8:30-17:0", RsvWindow{Begin: 8*60 + 30, End: 17 * 60}, ""},
		{"0:0-24:0", RsvWindow{Begin: 0, End: 24 * 60}, ""},
		{"5:18:0-5:20:0", RsvWindow{Weekly: true, Begin: 5*1440 + 18*60, End: 5*1440 + 20*60}, ""},
		{"22:0-2:0", RsvWindow{Begin: 22 * 60, End: 2 * 60}, ""},
		{"8:0", RsvWindow{}, "has no '-'"},
		{"8:0-9", RsvWindow{}, "same form"},
		{"7:8:0-7:9:0", RsvWindow{}, "begin: \"7:8:0\": day 7 is not 0-6"},
		{"8:0-x:0", RsvWindow{}, "end (at column 5): \"x:0\": field 1 is not a number"},
		{"8:61-9:0", RsvWindow{}, "not a time of day"},
		{"24:1-3:0", RsvWindow{}, "not a time of day"},
		{"8:0-8:0", RsvWindow{}, "empty"},
		{"1:2:3:4-1:2:3:5", RsvWindow{}, "too many fields"},
	} {
		got, err := ParseRsvWindow(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseRsvWindow(%q) error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ParseRsvWindow(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
}

func TestRsvWindowSpan(t *testing.T) {
	loc := time.UTC
	at := func(d, h, m int) time.Time { return time.Date(2026, 11, d, h, m, 0, 0, loc) } // Nov 29 2026 is a Sunday
	daily, _ := ParseRsvWindow("8:0-17:0")
	wrap, _ := ParseRsvWindow("22:0-2:0")
	weekly, _ := ParseRsvWindow("1:9:0-1:10:0") // Monday
	for _, c := range []struct {
		w          RsvWindow
		now, b, e  time.Time
		wantActive bool
	}{
		{daily, at(29, 7, 0), at(29, 8, 0), at(29, 17, 0), false},
		{daily, at(29, 8, 0), at(29, 8, 0), at(29, 17, 0), true},
		{daily, at(29, 17, 0), at(30, 8, 0), at(30, 17, 0), false},
		{wrap, at(29, 1, 0), at(28, 22, 0), at(29, 2, 0), true},
		{wrap, at(29, 3, 0), at(29, 22, 0), at(30, 2, 0), false},
		{weekly, at(29, 12, 0), at(30, 9, 0), at(30, 10, 0), false},
		{weekly, at(30, 9, 30), at(30, 9, 0), at(30, 10, 0), true},
	} {
		b, e, a := c.w.Span(c.now)
		if !b.Equal(c.b) || !e.Equal(c.e) || a != c.wantActive {
			t.Errorf("%+v at %v: %v-%v %v, want %v-%v %v", c.w, c.now, b, e, a, c.b, c.e, c.wantActive)
		}
	}
}

func FuzzParseRsvWindow(f *testing.F) {
	for _, s := range []string{"8-17", "5:18:0-5:20:0", "0:0-24:0", "-", "::-::"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, err := ParseRsvWindow(s)
		if err == nil {
			w.Span(time.Unix(0, 0))
		}
	})
}
