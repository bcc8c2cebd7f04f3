package cli

import (
	"strings"
	"testing"
	"time"
)

// TestParseTimeSpec: bsub -b/-t "[[[year:]month:]day:]hour:minute", the
// next such time; with a year (Open OnDemand's -b YYYY:MM:DD:HH:MM) the time
// as given.
func TestParseTimeSpec(t *testing.T) {
	now := time.Date(2026, 11, 23, 10, 30, 0, 0, time.UTC)
	at := func(y int, mo time.Month, d, h, mi int) int64 {
		return time.Date(y, mo, d, h, mi, 0, 0, time.UTC).Unix()
	}
	tests := []struct {
		in   string
		want int64 // 0: Bad time specification
	}{
		{"11:00", at(2026, 11, 23, 11, 0)},
		{"10:00", at(2026, 11, 24, 10, 0)}, // past today: tomorrow
		{"25:11:00", at(2026, 11, 25, 11, 0)},
		{"20:11:00", at(2026, 12, 20, 11, 0)}, // past this month: next month
		{"12:1:08:15", at(2026, 12, 1, 8, 15)},
		{"1:1:08:15", at(2027, 1, 1, 8, 15)}, // past this year: next year
		{"2027:03:31:14:46", at(2027, 3, 31, 14, 46)},
		{"2026:11:23:09:00", at(2026, 11, 23, 9, 0)}, // with a year, as given
		{"2:31:10:00", 0},
		{"2027:02:29:10:00", 0},
		{"24:00", 0}, {"10:60", 0}, {"13:1:10:00", 0}, {"0:10:00", 0},
		{"1969:01:01:00:00", 0}, {"10", 0}, {"1:2:3:4:5:6", 0}, {"a:b", 0}, {"-1:00", 0},
	}
	for _, tt := range tests {
		got, err := parseTimeSpec(tt.in, now)
		if tt.want == 0 {
			if err == nil || err.Error() != tt.in+": Bad time specification" {
				t.Errorf("parseTimeSpec(%q) = %v, %v; want Bad time specification", tt.in, time.Unix(got, 0).UTC(), err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("parseTimeSpec(%q) = %v, %v; want %v", tt.in, time.Unix(got, 0).UTC(), err, time.Unix(tt.want, 0).UTC())
		}
	}
}

func FuzzParseTimeSpec(f *testing.F) {
	for _, s := range []string{"11:00", "2027:03:31:14:46", "2:31:10:00", "::", "9999999999999999999:00"} {
		f.Add(s)
	}
	now := time.Date(2026, 11, 23, 10, 30, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		if got, err := parseTimeSpec(s, now); err == nil && got < 0 {
			t.Errorf("parseTimeSpec(%q) = %d", s, got)
		}
	})
}

// TestJobEnv: bsub -env, LSF's forms (Open OnDemand passes "all,VAR" and
// "none,VAR"; "all, ~VAR" leaves VAR out).
func TestJobEnv(t *testing.T) {
	env := &Env{Environ: func() []string { return []string{"A=1", "B=2", "C=3"} }}
	tests := []struct {
		mode string
		want string // joined with " "; "error" for an error
	}{
		{"", "A=1 B=2 C=3"},
		{"all", "A=1 B=2 C=3"},
		{"none", ""},
		{"none,B", "B=2"},
		{"none, B, D=4", "B=2 D=4"},
		{"all,B=9,D=4", "A=1 B=9 C=3 D=4"},
		{"all, ~B", "A=1 C=3"},
		{"all,~A,~C", "B=2"},
		{"B", "B=2"},
		{"none,~B", "error"},
		{"all,~B=1", "error"},
		{"none, T='x, y', A", "T=x, y A=1"},
		{"all,~'A'", "error"},
	}
	for _, tt := range tests {
		got, err := jobEnv(env, tt.mode)
		s := strings.Join(got, " ")
		if err != nil {
			s = "error"
		}
		if s != tt.want {
			t.Errorf("-env %q: %q (%v), want %q", tt.mode, s, err, tt.want)
		}
	}
}
