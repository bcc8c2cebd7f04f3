package state

import (
	"fmt"
	"slices"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/config/timewin"
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

// RsvSpan is the reservation's current window at now, or its next one:
// active is true when now lies inside [begin, end). A one-time
// reservation whose window has passed returns its window, inactive.
func RsvSpan(r *api.EvRsv, now time.Time) (begin, end time.Time, active bool) {
	if r.Window == "" {
		begin, end = time.Unix(r.Begin, 0), time.Unix(r.End, 0)
		return begin, end, !now.Before(begin) && now.Before(end)
	}
	w, err := timewin.ParseRecurring(r.Window)
	if err != nil {
		return time.Time{}, time.Time{}, false
	}
	return w.Span(now)
}
