package state

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/basalt-lsf/basalt/api"
)

// Advance reservations (brsvadd): the table holds each reservation as its
// last EvRsv (add or modify); a delete removes it. The events carry
// everything (ID, hosts and their slots, times), so applying one needs no
// clock and no configuration.

func (s *State) rsv(e *api.EvRsv) error {
	if e.ID == "" {
		return fmt.Errorf("advance reservation: no ID")
	}
	_, exists := s.rsvs.m[e.ID]
	switch e.Op {
	case api.RsvAdd:
		if exists {
			return fmt.Errorf("advance reservation %s: already exists", e.ID)
		}
	case api.RsvModify:
		if !exists {
			return fmt.Errorf("advance reservation %s: no such reservation", e.ID)
		}
	case api.RsvDelete:
		if !exists {
			return fmt.Errorf("advance reservation %s: no such reservation", e.ID)
		}
		delete(s.rsvs.w(s.gen), e.ID)
		return nil
	default:
		return fmt.Errorf("advance reservation: unknown operation %d", e.Op)
	}
	r := *e
	r.Op, r.Reason = 0, ""
	r.Users = slices.Clone(e.Users)
	r.Hosts = make([]*api.RsvHost, len(e.Hosts))
	for i, h := range e.Hosts {
		c := *h
		r.Hosts[i] = &c
	}
	s.rsvs.w(s.gen)[e.ID] = &r
	return nil
}

// Rsv returns the advance reservation id. The result is shared: do not
// modify it.
func (v *View) Rsv(id string) (*api.EvRsv, bool) {
	r, ok := v.s.rsvs.m[id]
	return r, ok
}

// NumRsvs is how many advance reservations there are.
func (v *View) NumRsvs() int { return len(v.s.rsvs.m) }

// Rsvs lists the advance reservations in ID order (shared: do not modify).
func (v *View) Rsvs() []*api.EvRsv {
	out := make([]*api.EvRsv, 0, len(v.s.rsvs.m))
	for _, id := range sortedKeys(v.s.rsvs.m) {
		out = append(out, v.s.rsvs.m[id])
	}
	return out
}

func (t *tables) snapRsvs() []*api.EvRsv {
	var out []*api.EvRsv
	for _, id := range sortedKeys(t.rsvs.m) {
		out = append(out, t.rsvs.m[id])
	}
	return out
}

func (s *State) restoreRsvs(rs []*api.EvRsv) {
	for _, r := range rs {
		s.rsvs.w(s.gen)[r.ID] = r
	}
}

// RsvWindow is a recurring reservation's window (brsvadd -t): minutes
// from the start of the week (Sunday 0:00) when Weekly, else from the
// start of the day. End may be below Begin: the window wraps.
type RsvWindow struct {
	Weekly     bool
	Begin, End int
}

// ParseRsvWindow reads -t "[day:]hour[:minute]-[day:]hour[:minute]"; both
// ends use the same form. Hours are 0-23 (24:0 ends a daily window at
// midnight), days 0-6 from Sunday.
func ParseRsvWindow(s string) (RsvWindow, error) {
	from, to, ok := strings.Cut(strings.TrimSpace(s), "-")
	if !ok {
		return RsvWindow{}, fmt.Errorf("%s: the time window has no '-'", s)
	}
	b, nb, err := rsvWindowEnd(from)
	if err != nil {
		return RsvWindow{}, fmt.Errorf("%s: begin: %w", s, err)
	}
	e, ne, err := rsvWindowEnd(to)
	if err != nil {
		return RsvWindow{}, fmt.Errorf("%s: end (at column %d): %w", s, len(from)+2, err)
	}
	if nb != ne {
		return RsvWindow{}, fmt.Errorf("%s: the begin and end times must use the same form", s)
	}
	if b == e {
		return RsvWindow{}, fmt.Errorf("%s: the window is empty", s)
	}
	return RsvWindow{Weekly: nb == 3, Begin: b, End: e}, nil
}

// rsvWindowEnd reads one end: the minutes it names and how many fields
// it had (1 hour, 2 hour:minute, 3 day:hour:minute).
func rsvWindowEnd(s string) (int, int, error) {
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

// RsvSpan is the reservation's current window at now, or its next one:
// active is true when now lies inside [begin, end). A one-time
// reservation whose window has passed returns its window, inactive.
func RsvSpan(r *api.EvRsv, now time.Time) (begin, end time.Time, active bool) {
	if r.Window == "" {
		begin, end = time.Unix(r.Begin, 0), time.Unix(r.End, 0)
		return begin, end, !now.Before(begin) && now.Before(end)
	}
	w, err := ParseRsvWindow(r.Window)
	if err != nil {
		return time.Time{}, time.Time{}, false
	}
	return w.Span(now)
}

// Span is the window's occurrence holding now, or the next one.
func (w RsvWindow) Span(now time.Time) (begin, end time.Time, active bool) {
	y, mo, d := now.Date()
	base := time.Date(y, mo, d, 0, 0, 0, 0, now.Location())
	period := 24 * 60
	if w.Weekly {
		base = base.AddDate(0, 0, -int(now.Weekday()))
		period = 7 * 24 * 60
	}
	length := (w.End - w.Begin + period) % period
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
