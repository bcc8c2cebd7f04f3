package timewin

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Recurring is one recurring window, as brsvadd -t gives it: minutes
// from the start of the week (Sunday 0:00) when Weekly, else from the
// start of the day. End may be below Begin: the window wraps.
type Recurring struct {
	Weekly     bool
	Begin, End int
}

// ParseRecurring reads -t "[day:]hour[:minute]-[day:]hour[:minute]"; both
// ends use the same form. Hours are 0-23 (24:0 ends a daily window at
// midnight), days 0-6 from Sunday.
func ParseRecurring(s string) (Recurring, error) {
	from, to, ok := strings.Cut(strings.TrimSpace(s), "-")
	if !ok {
		return Recurring{}, fmt.Errorf("%s: the time window has no '-'", s)
	}
	b, nb, err := recurringEnd(from)
	if err != nil {
		return Recurring{}, fmt.Errorf("%s: begin: %w", s, err)
	}
	e, ne, err := recurringEnd(to)
	if err != nil {
		return Recurring{}, fmt.Errorf("%s: end (at column %d): %w", s, len(from)+2, err)
	}
	if nb != ne {
		return Recurring{}, fmt.Errorf("%s: the begin and end times must use the same form", s)
	}
	if b == e {
		return Recurring{}, fmt.Errorf("%s: the window is empty", s)
	}
	return Recurring{Weekly: nb == 3, Begin: b, End: e}, nil
}

// recurringEnd reads one end: the minutes it names and how many fields
// it had (1 hour, 2 hour:minute, 3 day:hour:minute).
func recurringEnd(s string) (int, int, error) {
	parts := strings.Split(s, ":")
	if len(parts) > 3 {
		return 0, 0, fmt.Errorf("%q: too many fields", s)
	}
	n := make([]int, len(parts))
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || v < 0 {
			return 0, 0, fmt.Errorf("%q: field %d is not a number", s, i+1)
		}
		n[i] = v
	}
	day, hour, minute := 0, 0, 0
	switch len(n) {
	case 1:
		hour = n[0]
	case 2:
		hour, minute = n[0], n[1]
	case 3:
		day, hour, minute = n[0], n[1], n[2]
		if day > 6 {
			return 0, 0, fmt.Errorf("%q: day %d is not 0-6", s, day)
		}
	}
	if hour > 24 || hour == 24 && minute != 0 || minute > 59 {
		return 0, 0, fmt.Errorf("%q: not a time of day", s)
	}
	return day*24*60 + hour*60 + minute, len(n), nil
}

// Span is the window's occurrence holding now, or the next one.
func (w Recurring) Span(now time.Time) (begin, end time.Time, active bool) {
	y, mo, d := now.Date()
	base := time.Date(y, mo, d, 0, 0, 0, 0, now.Location())
	period := 24 * 60
	if w.Weekly {
		base = base.AddDate(0, 0, -int(now.Weekday()))
		period = 7 * 24 * 60
	}
	length := w.End - w.Begin
	if length <= 0 {
		length += period
	}
	// The occurrence that began last (possibly in the previous period).
	for _, k := range []int{-1, 0, 1} {
		b := base.Add(time.Duration(k*period+w.Begin) * time.Minute)
		e := b.Add(time.Duration(length) * time.Minute)
		if now.Before(e) {
			return b, e, !now.Before(b)
		}
	}
	b := base.Add(time.Duration(2*period+w.Begin) * time.Minute)
	return b, b.Add(time.Duration(length) * time.Minute), false
}
