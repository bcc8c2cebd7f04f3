package cli

import (
	"testing"
	"time"
)

// TestParseTimeInterval: bhist/bacct -C, -S, -D time intervals.
func TestParseTimeInterval(t *testing.T) {
	loc := time.FixedZone("test", 3600)
	now := time.Date(2026, 11, 23, 10, 30, 15, 0, loc)
	at := func(y int, mo time.Month, d, h, mi, s int) int64 { return time.Date(y, mo, d, h, mi, s, 0, loc).Unix() }
	tests := []struct {
		in       string
		from, to int64
		bad      bool
	}{
		{in: "2026/11/22", from: at(2026, 11, 22, 0, 0, 0), to: at(2026, 11, 22, 23, 59, 59)},
		{in: "2026/11/22/10:", from: at(2026, 11, 22, 10, 0, 0), to: at(2026, 11, 22, 10, 59, 59)},
		{in: "2026/11/22/10:05", from: at(2026, 11, 22, 10, 5, 0), to: at(2026, 11, 22, 10, 5, 59)},
		{in: "2026/11", from: at(2026, 11, 1, 0, 0, 0), to: at(2026, 11, 30, 23, 59, 59)},
		{in: "11/20,11/22", from: at(2026, 11, 20, 0, 0, 0), to: at(2026, 11, 22, 23, 59, 59)},
		{in: "2026/11/22/10:00,2026/11/22/11:00", from: at(2026, 11, 22, 10, 0, 0), to: at(2026, 11, 22, 11, 0, 59)},
		{in: "20,", from: at(2026, 11, 20, 0, 0, 0)},
		{in: ",21", to: at(2026, 11, 21, 23, 59, 59)},
		{in: "/09:00,.", from: at(2026, 11, 23, 9, 0, 0), to: now.Unix()},
		{in: ".-7,.", from: now.AddDate(0, 0, -7).Unix(), to: now.Unix()},
		{in: ",", bad: true}, {in: "", bad: true}, {in: "2026/13/01", bad: true}, {in: "2/30", bad: true},
		{in: "32", bad: true}, {in: "11/22/24:00", bad: true}, {in: "11/22/10:60", bad: true},
		{in: "11/22,11/20", bad: true}, {in: "x", bad: true}, {in: "1/2/3/4", bad: true}, {in: ".-x", bad: true},
		{in: "+1", bad: true}, {in: "2026/11/-1", bad: true},
	}
	for _, tt := range tests {
		from, to, err := parseTimeInterval(tt.in, now)
		if tt.bad {
			if err == nil || err.Error() != tt.in+": Bad time specification" {
				t.Errorf("%q: %d,%d %v; want Bad time specification", tt.in, from, to, err)
			}
			continue
		}
		if err != nil || from != tt.from || to != tt.to {
			t.Errorf("%q: %v,%v %v; want %v,%v", tt.in, time.Unix(from, 0).In(loc), time.Unix(to, 0).In(loc), err,
				time.Unix(tt.from, 0).In(loc), time.Unix(tt.to, 0).In(loc))
		}
	}
}

func FuzzParseTimeInterval(f *testing.F) {
	for _, s := range []string{"2026/11/22", "11/20,11/22", ".-7,.", "/09:00,", "2026/11/22/10:05", ",", "2026/11"} {
		f.Add(s)
	}
	now := time.Date(2026, 11, 23, 10, 30, 15, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		from, to, err := parseTimeInterval(s, now)
		if err == nil && to != 0 && from > to {
			t.Errorf("%q: from %d after to %d", s, from, to)
		}
	})
}
