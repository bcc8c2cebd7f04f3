package timewin

import (
	"strings"
	"testing"
	"time"
)

func TestParseRecurring(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Recurring
		err  string
	}{
		{"8-17", Recurring{Begin: 8 * 60, End: 17 * 60}, ""},
		{"8:30-17:0", Recurring{Begin: 8*60 + 30, End: 17 * 60}, ""},
		{"0:0-24:0", Recurring{Begin: 0, End: 24 * 60}, ""},
		{"5:18:0-5:20:0", Recurring{Weekly: true, Begin: 5*1440 + 18*60, End: 5*1440 + 20*60}, ""},
		{"22:0-2:0", Recurring{Begin: 22 * 60, End: 2 * 60}, ""},
		{"8:0", Recurring{}, "has no '-'"},
		{"8:0-9", Recurring{}, "same form"},
		{"7:8:0-7:9:0", Recurring{}, "begin: \"7:8:0\": day 7 is not 0-6"},
		{"8:0-x:0", Recurring{}, "end (at column 5): \"x:0\": field 1 is not a number"},
		{"8:61-9:0", Recurring{}, "not a time of day"},
		{"24:1-3:0", Recurring{}, "not a time of day"},
		{"8:0-8:0", Recurring{}, "empty"},
		{"1:2:3:4-1:2:3:5", Recurring{}, "too many fields"},
	} {
		got, err := ParseRecurring(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseRecurring(%q) error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ParseRecurring(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
}

func TestRecurringSpan(t *testing.T) {
	loc := time.UTC
	at := func(d, h, m int) time.Time { return time.Date(2026, 11, d, h, m, 0, 0, loc) } // Nov 29 2026 is a Sunday
	daily, _ := ParseRecurring("8:0-17:0")
	wrap, _ := ParseRecurring("22:0-2:0")
	weekly, _ := ParseRecurring("1:9:0-1:10:0") // Monday
	allDay, _ := ParseRecurring("0:0-24:0")
	for _, c := range []struct {
		w          Recurring
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
		{allDay, at(29, 23, 59), at(29, 0, 0), at(30, 0, 0), true},
	} {
		b, e, a := c.w.Span(c.now)
		if !b.Equal(c.b) || !e.Equal(c.e) || a != c.wantActive {
			t.Errorf("%+v at %v: %v-%v %v, want %v-%v %v", c.w, c.now, b, e, a, c.b, c.e, c.wantActive)
		}
	}
}

func FuzzParseRecurring(f *testing.F) {
	for _, s := range []string{"8-17", "5:18:0-5:20:0", "0:0-24:0", "-", "::-::"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, err := ParseRecurring(s)
		if err == nil {
			w.Span(time.Unix(0, 0))
		}
	})
}
