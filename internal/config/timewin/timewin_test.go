package timewin

import (
	"strings"
	"testing"
	"time"
)

// 2024-01-07 is a Sunday.
func at(day int, hm string) time.Time {
	t, err := time.Parse("15:04", hm)
	if err != nil {
		panic(err)
	}
	return time.Date(2024, 1, 7+day, t.Hour(), t.Minute(), 0, 0, time.UTC)
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in     string
		offset int
		msg    string
	}{
		{"8", 0, "expected begin_time-end_time"},
		{"8-", 0, "end time: missing time"},
		{"-8", 0, "begin time: missing time"},
		{"8-9-10", 0, "more than one '-'"},
		{"24:00-8", 0, "begin time: hour 24 out of range 0-23"},
		{"8:60-9", 0, "begin time: minute 60 out of range 0-59"},
		{"7:8:00-1:9", 0, "begin time: day 7 out of range 0-6"},
		{"5:19:00-8:30", 0, "if either time specifies a day, the other must specify a day"},
		{"8:00-8:00", 0, "begin and end times are equal"},
		{"1:8:00-1:8:0", 0, "begin and end times are equal"},
		{"8:30-9 a-b", 7, "begin time: bad number <a> in <a>"},
		{"1:2:3:4-5", 0, "begin time: too many fields in <1:2:3:4>"},
		{"08:300-9", 0, "begin time: bad number <300> in <08:300>"},
		{"8:-9", 0, "begin time: bad number <> in <8:>"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.in)
		e, ok := err.(*Error)
		if !ok {
			t.Errorf("Parse(%q) error = %v, want *Error", tt.in, err)
			continue
		}
		if e.Offset != tt.offset || e.Msg != tt.msg {
			t.Errorf("Parse(%q) = offset %d %q, want offset %d %q", tt.in, e.Offset, e.Msg, tt.offset, tt.msg)
		}
	}
}

func TestString(t *testing.T) {
	w := MustParse("  5:19:00-1:8:30\t 20:00-8:30 ")
	if got := w.String(); got != "5:19:00-1:8:30 20:00-8:30" {
		t.Errorf("String = %q", got)
	}
	if (Window{}).String() != "" || !MustParse("   ").Always() {
		t.Error("empty window should be always open with empty text")
	}
}

func TestOpen(t *testing.T) {
	tests := []struct {
		spec string
		at   time.Time
		open bool
	}{
		{"", at(3, "12:00"), true},
		{"8:30-17", at(1, "08:29"), false},
		{"8:30-17", at(1, "08:30"), true},
		{"8:30-17", at(1, "16:59"), true},
		{"8:30-17", at(1, "17:00"), false},
		// overnight wrap
		{"20:00-8:30", at(2, "19:59"), false},
		{"20:00-8:30", at(2, "20:00"), true},
		{"20:00-8:30", at(3, "03:00"), true},
		{"20:00-8:30", at(0, "08:29"), true}, // Sunday morning: from Saturday 20:00
		{"20:00-8:30", at(0, "08:30"), false},
		// weekly, Fri 19:00 to Mon 08:30, wrapping past the end of the week
		{"5:19:00-1:8:30", at(5, "18:59"), false},
		{"5:19:00-1:8:30", at(5, "19:00"), true},
		{"5:19:00-1:8:30", at(6, "12:00"), true},
		{"5:19:00-1:8:30", at(0, "12:00"), true},
		{"5:19:00-1:8:30", at(1, "08:29"), true},
		{"5:19:00-1:8:30", at(1, "08:30"), false},
		{"5:19:00-1:8:30", at(3, "12:00"), false},
		// the seed's example: weekends plus nights
		{"5:19:00-1:8:30 20:00-8:30", at(3, "22:00"), true},
		{"5:19:00-1:8:30 20:00-8:30", at(3, "12:00"), false},
		{"5:19:00-1:8:30 20:00-8:30", at(6, "12:00"), true},
		// weekly without wrap, one field per hour
		{"1:9:0-1:17:0", at(1, "09:00"), true},
		{"1:9:0-1:17:0", at(2, "09:00"), false},
		// hour-only forms
		{"9-17", at(4, "09:00"), true},
		{"23-0", at(4, "23:30"), true},
		{"23-0", at(5, "00:00"), false},
		// a week-long window wrapping to the same day is open nearly always
		{"0:0:0-6:23:59", at(6, "23:58"), true},
		{"0:0:0-6:23:59", at(6, "23:59"), false},
	}
	for _, tt := range tests {
		w := MustParse(tt.spec)
		if got := w.Open(tt.at); got != tt.open {
			t.Errorf("%q.Open(%s) = %v, want %v", tt.spec, tt.at.Format("Mon 15:04"), got, tt.open)
		}
	}
}

func TestNext(t *testing.T) {
	tests := []struct {
		spec string
		from time.Time
		want time.Time
	}{
		{"8:30-17", at(1, "08:00"), at(1, "08:30")},
		{"8:30-17", at(1, "08:30"), at(1, "17:00")},
		{"8:30-17", at(1, "17:00"), at(2, "08:30")},
		{"8:30-17", at(6, "18:00"), at(7, "08:30")}, // next week's Sunday
		{"20:00-8:30", at(2, "21:00"), at(3, "08:30")},
		{"5:19:00-1:8:30", at(3, "12:00"), at(5, "19:00")},
		{"5:19:00-1:8:30", at(6, "12:00"), at(8, "08:30")}, // no transition at the week boundary
		{"5:19:00-1:8:30 20:00-8:30", at(5, "08:30"), at(5, "19:00")},
		{"5:19:00-1:8:30 20:00-8:30", at(5, "19:00"), at(8, "08:30")},
		{"0:0:0-6:23:59", at(6, "23:59"), at(7, "00:00")},
	}
	for _, tt := range tests {
		w := MustParse(tt.spec)
		if got := w.Next(tt.from); !got.Equal(tt.want) {
			t.Errorf("%q.Next(%s) = %s, want %s", tt.spec, tt.from.Format("Mon Jan 2 15:04"), got.Format("Mon Jan 2 15:04"), tt.want.Format("Mon Jan 2 15:04"))
		}
	}
	// Seconds within a minute: the transition is at the start of the minute.
	w := MustParse("8:30-17")
	from := at(1, "08:29").Add(30 * time.Second)
	if got := w.Next(from); !got.Equal(at(1, "08:30")) {
		t.Errorf("Next(08:29:30) = %s", got)
	}
	if !(Window{}).Next(at(1, "08:00")).IsZero() {
		t.Error("always-open window must have no transition")
	}
	if got := MustParse("0:0:0-6:23:59 6:23:00-0:1:00").Next(at(3, "12:00")); !got.IsZero() {
		t.Errorf("a window covering the week must have no transition, got %s", got)
	}
}

func TestNextDaylightSaving(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skip("no tz data:", err)
	}
	// 2024-03-10 02:00 does not exist in New York (clocks jump to 03:00).
	w := MustParse("2:30-4")
	from := time.Date(2024, 3, 10, 1, 0, 0, 0, ny)
	got := w.Next(from)
	if !got.After(from) {
		t.Fatalf("Next = %s, not after %s", got, from)
	}
	if got.Sub(from) > 3*time.Hour {
		t.Errorf("Next = %s, too far from %s", got, from)
	}
	// In the fall-back week the transition still comes after the start.
	from = time.Date(2024, 11, 3, 0, 30, 0, 0, ny)
	got = MustParse("1:30-3").Next(from)
	if !got.After(from) || got.Sub(from) > 2*time.Hour {
		t.Errorf("Next across fall-back = %s from %s", got, from)
	}
}

// TestNextIsTransition checks Next against Open minute by minute over a
// whole week for a set of specifications.
func TestNextIsTransition(t *testing.T) {
	specs := []string{"8:30-17", "20:00-8:30", "5:19:00-1:8:30 20:00-8:30", "1:9:0-1:17:0 3:9:0-3:17:0", "0:0:0-0:0:1", "23:59-0"}
	for _, spec := range specs {
		w := MustParse(spec)
		start := at(0, "00:00")
		for m := 0; m < weekMinutes; m += 7 {
			now := start.Add(time.Duration(m) * time.Minute)
			next := w.Next(now)
			if !next.After(now) {
				t.Fatalf("%q: Next(%s) = %s not after", spec, now, next)
			}
			if w.Open(next) == w.Open(now) && w.Open(next.Add(-time.Minute)) == w.Open(next) {
				t.Fatalf("%q: Next(%s) = %s is not a transition", spec, now, next)
			}
			// No transition strictly between now and next.
			for probe := now.Truncate(time.Minute).Add(time.Minute); probe.Before(next); probe = probe.Add(time.Minute) {
				if w.Open(probe) != w.Open(now) {
					t.Fatalf("%q: state changes at %s before Next(%s) = %s", spec, probe, now, next)
				}
			}
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"8:30-17", "20:00-8:30", "5:19:00-1:8:30 20:00-8:30", "", "0:0:0-6:23:59", "1-2 3-4 5-6", "8-8", "7:1:1-1:1"} {
		f.Add(s, int64(0))
	}
	f.Fuzz(func(t *testing.T, s string, sec int64) {
		w, err := Parse(s)
		if err != nil {
			if e, ok := err.(*Error); !ok || e.Offset < 0 || e.Offset > len(s) || !strings.Contains(s, e.Text) {
				t.Fatalf("bad error %v for %q", err, s)
			}
			return
		}
		w2, err := Parse(w.String())
		if err != nil || w2.String() != w.String() {
			t.Fatalf("reparse of %q: %v %q", w.String(), err, w2.String())
		}
		now := time.Unix(sec%(1<<40), 0).UTC()
		next := w.Next(now)
		if w.Always() {
			if !next.IsZero() || !w.Open(now) {
				t.Fatalf("always window %q: next %s open %v", s, next, w.Open(now))
			}
			return
		}
		if !next.After(now) || next.Sub(now) > 8*24*time.Hour {
			t.Fatalf("%q: Next(%s) = %s", s, now, next)
		}
		if w.Open(next) == w.Open(next.Add(-time.Minute)) {
			t.Fatalf("%q: Next(%s) = %s is not a transition", s, now, next)
		}
	})
}

func BenchmarkOpen(b *testing.B) {
	w := MustParse("5:19:00-1:8:30 20:00-8:30 12:00-13:00")
	t := at(3, "12:30")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if !w.Open(t) {
			b.Fatal("closed")
		}
	}
}

func BenchmarkNext(b *testing.B) {
	w := MustParse("5:19:00-1:8:30 20:00-8:30 12:00-13:00")
	t := at(3, "12:30")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if w.Next(t).IsZero() {
			b.Fatal("no transition")
		}
	}
}
