package cli

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
)

// parseTimeInterval reads the time interval of bhist and bacct -C, -S and
// -D: "time0,time1", either end omitted for an open one, or a single time
// for the whole of its smallest unit (2026/11/22 is that day, 11/22/10: that
// hour). A time is
//
//	[year/][month/][day][/hour:minute|/hour:]
//
// in local time (a two-field date is month/day unless its first field has
// four digits: year/month), or "." for now and ".-N" for N days before now.
// The DataDog LSF check runs bhist -C start,end. from and to are Unix
// seconds, 0 for an open end.
func parseTimeInterval(s string, now time.Time) (from, to int64, err error) {
	bad := fmt.Errorf("%s: Bad time specification", s)
	t0, t1, comma := strings.Cut(s, ",")
	if !comma {
		lo, hi, err := timeRange(t0, now)
		if err != nil {
			return 0, 0, bad
		}
		return lo.Unix(), hi.Unix(), nil
	}
	if t0 == "" && t1 == "" {
		return 0, 0, bad
	}
	if t0 != "" {
		lo, _, err := timeRange(t0, now)
		if err != nil {
			return 0, 0, bad
		}
		from = lo.Unix()
	}
	if t1 != "" {
		_, hi, err := timeRange(t1, now)
		if err != nil {
			return 0, 0, bad
		}
		to = hi.Unix()
	}
	if to != 0 && from > to {
		return 0, 0, bad
	}
	return from, to, nil
}

// timeRange is the first and last second a time specification covers.
func timeRange(s string, now time.Time) (lo, hi time.Time, err error) {
	bad := fmt.Errorf("bad time %q", s)
	if s == "." {
		return now, now, nil
	}
	if days, ok := strings.CutPrefix(s, ".-"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n < 0 || n > 100000 {
			return lo, hi, bad
		}
		t := now.AddDate(0, 0, -n)
		return t, t, nil
	}
	parts := strings.Split(s, "/")
	clock := ""
	if last := parts[len(parts)-1]; strings.Contains(last, ":") {
		clock, parts = last, parts[:len(parts)-1]
	}
	num := func(p string, lo, hi int) (int, bool) {
		n, err := strconv.Atoi(p)
		return n, err == nil && n >= lo && n <= hi && p[0] != '+' && p[0] != '-'
	}
	y, mo, d := now.Date()
	m := int(mo)
	unit := "day" // what the specification leaves open at its end
	type field struct {
		v      *int
		lo, hi int
	}
	year, month, day := field{&y, 1970, 9999}, field{&m, 1, 12}, field{&d, 1, 31}
	var fields []field
	switch {
	case len(parts) == 1 && parts[0] == "" && clock != "": // "/10:30": today
	case len(parts) == 3:
		fields = []field{year, month, day}
	case len(parts) == 2 && len(parts[0]) == 4 && clock == "":
		fields, d, unit = []field{year, month}, 1, "month"
	case len(parts) == 2:
		fields = []field{month, day}
	case len(parts) == 1 && parts[0] != "":
		fields = []field{day}
	default:
		return lo, hi, bad
	}
	for i, f := range fields {
		v, ok := num(parts[i], f.lo, f.hi)
		if !ok {
			return lo, hi, bad
		}
		*f.v = v
	}
	mo = time.Month(m)
	hour, minute := 0, 0
	if clock != "" {
		h, m, _ := strings.Cut(clock, ":")
		var ok bool
		if hour, ok = num(h, 0, 23); !ok {
			return lo, hi, bad
		}
		unit = "hour"
		if m != "" {
			if minute, ok = num(m, 0, 59); !ok {
				return lo, hi, bad
			}
			unit = "minute"
		}
	}
	lo = time.Date(y, mo, d, hour, minute, 0, 0, now.Location())
	if lo.Day() != d || lo.Month() != mo {
		return lo, hi, bad // a day the month does not have
	}
	switch unit {
	case "month":
		hi = lo.AddDate(0, 1, 0)
	case "day":
		hi = lo.AddDate(0, 0, 1)
	case "hour":
		hi = lo.Add(time.Hour)
	default:
		hi = lo.Add(time.Minute)
	}
	return lo, hi.Add(-time.Second), nil
}

// timeWindows sets a bhist or bacct request's -C, -S and -D intervals;
// false once an error was printed.
func timeWindows(env *Env, cmd string, res *lsfopt.Result, req *api.JobsRequest) bool {
	now := env.Clock.Now()
	for _, w := range []struct {
		opt      string
		from, to *int64
	}{{"C", &req.CompletedFrom, &req.CompletedTo}, {"S", &req.Since, &req.Until}, {"D", &req.DispatchedFrom, &req.DispatchedTo}} {
		v, ok := res.Last(w.opt)
		if !ok {
			continue
		}
		from, to, err := parseTimeInterval(v, now)
		if err != nil {
			env.Errorf("%s: %v", cmd, err)
			return false
		}
		*w.from, *w.to = from, to
	}
	return true
}
