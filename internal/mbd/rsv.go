package mbd

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/config/timewin"
	"github.com/basalt-lsf/basalt/internal/job"
	"github.com/basalt-lsf/basalt/internal/lsberr"
	"github.com/basalt-lsf/basalt/internal/mbd/sched"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
	"github.com/basalt-lsf/basalt/internal/resreq"
)

// Advance reservations (brsvadd, brsvmod, brsvdel, brsvs). Only root and
// the cluster administrators create, modify and delete them (LSF's
// default; lsb.resources ResourceReservation policies are not read). The
// master decides a reservation's ID and the slots it holds on each host
// and records them in an EvRsv; the scheduler (sched/rsv.go) keeps other
// jobs off those slots during the window and runs the reservation's jobs
// (bsub -U) only there. rsvTick, on the master's clock, kills the running
// jobs of a closed reservation whose window has closed and deletes
// one-time reservations that have ended.

// rsvMinLength is LSF's shortest reservation.
const rsvMinLength = 10 * time.Minute

func rsvStatus(err error) *api.RsvReply { return &api.RsvReply{Status: lsbStatus(err)} }

func (s *Server) rsv(ctx context.Context, id auth.Identity, req *api.RsvRequest) (*api.RsvReply, error) {
	cfg := s.cfg.Current()
	now := s.clock.Now()
	var ev *api.EvRsv
	var refused error
	s.st.View(func(v *state.View) {
		switch req.Op {
		case api.RsvAdd:
			ev, refused = s.rsvAdd(v, cfg, id, req, now)
		case api.RsvModify:
			ev, refused = s.rsvModify(v, cfg, id, req, now)
		case api.RsvDelete:
			r, ok := v.Rsv(req.ID)
			switch {
			case !ok:
				refused = rsvNotFound(req.ID)
			case !s.mayManageRsv(cfg, id, r):
				refused = lsberr.New(lsberr.Permission)
			default:
				ev = &api.EvRsv{Op: api.RsvDelete, ID: r.ID}
			}
		default:
			refused = lsberr.Errorf(lsberr.BadArg, "advance reservation: unknown operation %d", req.Op)
		}
	})
	if refused != nil {
		return rsvStatus(refused), nil
	}
	if err := s.propose(ctx, &api.Event{User: id.User, UID: int32(id.UID), Rsv: ev}); err != nil {
		return nil, err
	}
	s.poke()
	return &api.RsvReply{Status: &api.Status{}, ID: ev.ID}, nil
}

func rsvNotFound(id string) error {
	return lsberr.Errorf(lsberr.BadArg, "%s: Advance reservation does not exist", id)
}

// mayManageRsv: root and cluster administrators manage every
// reservation; a creator its own.
func (s *Server) mayManageRsv(cfg *config.Config, id auth.Identity, r *api.EvRsv) bool {
	return s.isAdmin(id, cfg) || r.Creator == id.User
}

func (s *Server) rsvAdd(v *state.View, cfg *config.Config, id auth.Identity, req *api.RsvRequest, now time.Time) (*api.EvRsv, error) {
	if !s.isAdmin(id, cfg) {
		return nil, lsberr.New(lsberr.Permission)
	}
	ev := &api.EvRsv{Op: api.RsvAdd, Type: req.Type, Creator: id.User, Open: req.Open, Desc: req.Desc}
	prefix := "system"
	switch req.Type {
	case api.RsvSystem:
	case api.RsvUser, api.RsvGroup:
		if len(req.Users) == 0 {
			return nil, lsberr.Errorf(lsberr.BadArg, "No user or user group specified for the advance reservation")
		}
		ev.Users = slices.Clone(req.Users)
		ev.Type = api.RsvUser
		if len(req.Users) == 1 && cfg.UserGroup(req.Users[0]) != nil {
			ev.Type = api.RsvGroup
		} else if req.Type == api.RsvGroup {
			return nil, lsberr.Errorf(lsberr.BadUGroup, "%s: %s", req.Users[0], lsberr.BadUGroup.Text())
		}
		prefix = req.Users[0]
	default:
		return nil, lsberr.Errorf(lsberr.BadArg, "advance reservation: unknown type %d", req.Type)
	}
	if err := rsvTimes(req, ev, now); err != nil {
		return nil, err
	}
	hosts, err := s.rsvCandidates(v, cfg, req.Hosts, req.ResReq)
	if err != nil {
		return nil, err
	}
	if req.Type != api.RsvSystem && req.Slots <= 0 {
		return nil, lsberr.Errorf(lsberr.BadArg, "The number of job slots to reserve must be a positive integer")
	}
	ev.Hosts, err = s.rsvAllocate(v, cfg, ev, hosts, req.Slots, now)
	if err != nil {
		return nil, err
	}
	if req.ID != "" {
		// -N: the name is the ID.
		if !rsvNameOK(req.ID) {
			return nil, lsberr.Errorf(lsberr.BadArg, "%s: The advance reservation name must begin with a letter and hold at most 39 letters, digits, underscores and dashes", req.ID)
		}
		if _, ok := v.Rsv(req.ID); ok {
			return nil, lsberr.Errorf(lsberr.BadArg, "%s: The advance reservation name is already in use", req.ID)
		}
		ev.ID = req.ID
	} else {
		for n := 0; ; n++ {
			ev.ID = prefix + "#" + strconv.Itoa(n)
			if _, ok := v.Rsv(ev.ID); !ok {
				break
			}
		}
	}
	return ev, nil
}

// rsvNameOK is LSF's rule for brsvadd -N: a letter, then letters, digits,
// underscores and dashes, 39 characters at most.
func rsvNameOK(n string) bool {
	if len(n) == 0 || len(n) > 39 {
		return false
	}
	for i, c := range n {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (i == 0 || !(c >= '0' && c <= '9' || c == '_' || c == '-')) {
			return false
		}
	}
	return true
}

// rsvTimes checks -b/-e or -t and sets them on ev.
func rsvTimes(req *api.RsvRequest, ev *api.EvRsv, now time.Time) error {
	switch {
	case req.Window != "" && (req.Begin != 0 || req.End != 0):
		return lsberr.Errorf(lsberr.BadArg, "The -b/-e and -t options cannot be used together")
	case req.Window != "":
		w, err := timewin.ParseRecurring(req.Window)
		if err != nil {
			return lsberr.Errorf(lsberr.BadArg, "Bad time window: %v", err)
		}
		if b, e, _ := w.Span(now); e.Sub(b) < rsvMinLength {
			return lsberr.Errorf(lsberr.BadArg, "An advance reservation must be at least 10 minutes long")
		}
		ev.Window, ev.Begin, ev.End = req.Window, 0, 0
	case req.Begin != 0 && req.End != 0:
		if req.Begin < now.Add(-time.Minute).Unix() {
			return lsberr.Errorf(lsberr.BadArg, "The begin time of the advance reservation is earlier than the current time")
		}
		if req.End <= req.Begin {
			return lsberr.Errorf(lsberr.BadArg, "The end time of the advance reservation is not later than its begin time")
		}
		if time.Duration(req.End-req.Begin)*time.Second < rsvMinLength {
			return lsberr.Errorf(lsberr.BadArg, "An advance reservation must be at least 10 minutes long")
		}
		ev.Window, ev.Begin, ev.End = "", req.Begin, req.End
	default:
		return lsberr.Errorf(lsberr.BadArg, "Either -b and -e, or -t, must be specified for an advance reservation")
	}
	return nil
}

// rsvHosts resolves -m: host names and host groups, in order, once each.
func rsvHosts(cfg *config.Config, names []string) ([]string, error) {
	if len(names) == 0 {
		return nil, lsberr.Errorf(lsberr.BadArg, "No hosts specified for the advance reservation")
	}
	var out []string
	seen := map[string]bool{}
	add := func(h string) {
		if !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}
	for _, n := range names {
		if bh := cfg.BatchHost(n); bh != nil {
			add(bh.Name)
			continue
		}
		if g := cfg.HostGroup(n); g != nil {
			for _, h := range g.Members {
				add(h)
			}
			continue
		}
		return nil, lsberr.Errorf(lsberr.BadHost, "%s: %s", n, lsberr.BadHost.Text())
	}
	return out, nil
}

// rsvCandidates are the hosts a new reservation may take slots on: -m's
// hosts (host groups expanded) in order, or without -m every batch host in
// the cluster's order; with -R only those whose values, as the scheduler
// sees them, satisfy the requirement's select section (LSF uses no other
// section; the default type rule is type==any, as for lshosts).
func (s *Server) rsvCandidates(v *state.View, cfg *config.Config, names []string, req string) ([]string, error) {
	if strings.TrimSpace(req) == "" {
		return rsvHosts(cfg, names)
	}
	tab := cfg.ResourceTable()
	r, err := resreq.Parse(req, resreq.Options{Strict: cfg.Conf.StrictResReq(), Context: resreq.CtxLshosts, Table: tab, Unit: resreqUnit(cfg)})
	var c *resreq.Compiled
	if err == nil {
		c, err = r.Compile(tab, resreq.Local{})
	}
	if err != nil {
		return nil, lsberr.Errorf(lsberr.BadResReq, "%s: %s", lsberr.BadResReq.Text(), rsvFirstLine(err.Error()))
	}
	var hosts []string
	if len(names) > 0 {
		if hosts, err = rsvHosts(cfg, names); err != nil {
			return nil, err
		}
	} else {
		for _, bh := range cfg.BatchHosts {
			hosts = append(hosts, bh.Name)
		}
	}
	values := map[string]*resreq.Host{}
	for _, h := range s.schedHosts(cfg, v) {
		values[h.Name] = h.Values
	}
	var out []string
	for _, h := range hosts {
		if hv := values[h]; hv != nil && c.Select(hv) {
			out = append(out, h)
		}
	}
	if len(out) == 0 {
		return nil, lsberr.New(lsberr.RsvNoHost)
	}
	return out, nil
}

// rsvFirstLine is the first line of a message.
func rsvFirstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// rsvAllocate takes slots on hosts, in order, from what other
// reservations overlapping ev's time do not already hold: n slots for a
// user or group reservation, every free slot for a system one.
func (s *Server) rsvAllocate(v *state.View, cfg *config.Config, ev *api.EvRsv, hosts []string, n int32, now time.Time) ([]*api.RsvHost, error) {
	capOf := map[string]int32{}
	for _, h := range s.schedHosts(cfg, v) {
		c := h.MaxSlots
		if c < 0 {
			c = h.NCPUs
		}
		capOf[h.Name] = int32(c)
	}
	held := map[string]int32{}
	for _, r := range v.Rsvs() {
		if r.ID == ev.ID || !rsvOverlap(r, ev, now) {
			continue
		}
		for _, h := range r.Hosts {
			held[h.Host] += h.Slots
		}
	}
	var out []*api.RsvHost
	left := n
	for _, h := range hosts {
		free := capOf[h] - held[h]
		if ev.Type != api.RsvSystem {
			free = min(free, left)
		}
		if free <= 0 {
			continue
		}
		out = append(out, &api.RsvHost{Host: h, Slots: free})
		left -= free
		if ev.Type != api.RsvSystem && left == 0 {
			return out, nil
		}
	}
	if ev.Type == api.RsvSystem && len(out) == len(hosts) {
		return out, nil
	}
	return nil, lsberr.Errorf(lsberr.BadArg, "Not enough job slots available on the hosts for the advance reservation")
}

// rsvOverlap reports whether two reservations are active at a common
// time, at LSF's granularity of 10-minute periods, looking one week
// ahead of now for recurring ones.
func rsvOverlap(a, b *api.EvRsv, now time.Time) bool {
	if a.Window == "" && b.Window == "" {
		return rsvPeriod(a.Begin, false) < rsvPeriod(b.End, true) && rsvPeriod(b.Begin, false) < rsvPeriod(a.End, true)
	}
	from := now.Truncate(10 * time.Minute)
	until := from.Add(7 * 24 * time.Hour)
	for _, r := range []*api.EvRsv{a, b} {
		if r.Window == "" {
			from = time.Unix(rsvPeriod(r.Begin, false), 0)
			until = time.Unix(rsvPeriod(r.End, true), 0)
		}
	}
	for t := from; t.Before(until); t = t.Add(10 * time.Minute) {
		if rsvInPeriod(a, t) && rsvInPeriod(b, t) {
			return true
		}
	}
	return false
}

// rsvPeriod rounds a Unix time to a 10-minute period boundary.
func rsvPeriod(t int64, up bool) int64 {
	const p = 600
	if up && t%p != 0 {
		return t - t%p + p
	}
	return t - t%p
}

// rsvInPeriod: r is active at some time of the period starting at t.
func rsvInPeriod(r *api.EvRsv, t time.Time) bool {
	b, _, active := state.RsvSpan(r, t)
	return active || b.Before(t.Add(10*time.Minute))
}

func (s *Server) rsvModify(v *state.View, cfg *config.Config, id auth.Identity, req *api.RsvRequest, now time.Time) (*api.EvRsv, error) {
	r, ok := v.Rsv(req.ID)
	if !ok {
		return nil, rsvNotFound(req.ID)
	}
	if !s.mayManageRsv(cfg, id, r) {
		return nil, lsberr.New(lsberr.Permission)
	}
	ev := *r
	ev.Op = api.RsvModify
	ev.Users = slices.Clone(r.Users)
	ev.Hosts = slices.Clone(r.Hosts)
	if req.HasDesc {
		ev.Desc = req.Desc
	}
	switch {
	case req.Open:
		ev.Open = true
	case req.Closed:
		ev.Open = false
	}
	if req.HasUsers {
		if r.Type == api.RsvSystem {
			return nil, lsberr.Errorf(lsberr.BadArg, "The users of a system reservation cannot be changed")
		}
		ev.Users = slices.Clone(req.Users)
		ev.Type = api.RsvUser
		if len(req.Users) == 1 && cfg.UserGroup(req.Users[0]) != nil {
			ev.Type = api.RsvGroup
		}
	}
	if req.HasTime {
		t := *req
		if t.Window == "" {
			if req.BeginShift != 0 {
				t.Begin = r.Begin + req.BeginShift
			}
			if req.EndShift != 0 {
				t.End = r.End + req.EndShift
			}
			if t.Begin == 0 {
				t.Begin = r.Begin
			}
			if t.End == 0 {
				t.End = r.End
			}
			if r.Window != "" && (req.Begin == 0 || req.End == 0) {
				return nil, lsberr.Errorf(lsberr.BadArg, "A recurring reservation needs both -b and -e to become a one-time one")
			}
			if _, _, active := state.RsvSpan(r, now); active && t.Begin != r.Begin {
				return nil, lsberr.Errorf(lsberr.BadArg, "The begin time of an active advance reservation cannot be changed")
			}
			if t.Begin == r.Begin && t.Begin < now.Unix() {
				// An active reservation keeps its begin time.
				t.Begin = now.Unix()
				if err := rsvTimes(&t, &ev, now); err != nil {
					return nil, err
				}
				ev.Begin = r.Begin
			} else if err := rsvTimes(&t, &ev, now); err != nil {
				return nil, err
			}
		} else if err := rsvTimes(&t, &ev, now); err != nil {
			return nil, err
		}
		for _, o := range v.Rsvs() {
			if o.ID == r.ID || !rsvOverlap(o, &ev, now) {
				continue
			}
			for _, oh := range o.Hosts {
				for _, h := range ev.Hosts {
					if oh.Host == h.Host && !s.rsvFits(v, cfg, &ev, h, now) {
						return nil, lsberr.Errorf(lsberr.BadArg, "Not enough job slots available on the hosts for the advance reservation")
					}
				}
			}
		}
	}
	return &ev, nil
}

// rsvFits: the slots ev holds on h fit beside the other reservations that
// overlap ev.
func (s *Server) rsvFits(v *state.View, cfg *config.Config, ev *api.EvRsv, h *api.RsvHost, now time.Time) bool {
	got, err := s.rsvAllocate(v, cfg, &api.EvRsv{ID: ev.ID, Type: api.RsvUser, Begin: ev.Begin, End: ev.End, Window: ev.Window},
		[]string{h.Host}, h.Slots, now)
	return err == nil && len(got) == 1
}

// rsvs answers brsvs.
func (s *Server) rsvs(ctx context.Context, id auth.Identity, req *api.RsvsRequest) (*api.RsvsReply, error) {
	now := s.clock.Now()
	reply := &api.RsvsReply{}
	s.st.View(func(v *state.View) {
		byID := map[string]*api.RsvInfo{}
		for _, r := range v.Rsvs() {
			if len(req.IDs) > 0 && !slices.Contains(req.IDs, r.ID) {
				continue
			}
			b, e, active := state.RsvSpan(r, now)
			info := &api.RsvInfo{Rsv: r, Used: make([]int32, len(r.Hosts)), Active: active, NextBegin: b.Unix(), NextEnd: e.Unix()}
			byID[r.ID] = info
			reply.Rsvs = append(reply.Rsvs, info)
		}
		if len(byID) == 0 {
			return
		}
		v.Jobs(func(j *state.Job) bool {
			info := byID[j.Spec.Reservation]
			if info == nil {
				return true
			}
			switch {
			case job.Pending(j.State):
				info.Pend = append(info.Pend, j.ID)
			case j.State == api.StateRun:
				info.Run = append(info.Run, j.ID)
			case job.Started(j.State):
				info.Susp = append(info.Susp, j.ID)
			default:
				info.Finish = append(info.Finish, j.ID)
			}
			if job.Started(j.State) && info.Active {
				for _, eh := range j.ExecHosts {
					for i, h := range info.Rsv.Hosts {
						if h.Host == eh.Host {
							info.Used[i] += eh.Slots
						}
					}
				}
			}
			return true
		})
	})
	for _, id := range req.IDs {
		if !slices.ContainsFunc(reply.Rsvs, func(i *api.RsvInfo) bool { return i.Rsv.ID == id }) {
			return nil, rsvNotFound(id)
		}
	}
	return reply, nil
}

// rsvTick runs with housekeeping on the master: the started jobs of a
// closed reservation outside its window are killed (an open reservation's
// jobs go on as normal jobs), and a one-time reservation whose window has
// ended is deleted.
func (s *Server) rsvTick(ctx context.Context) {
	now := s.clock.Now()
	var kill []*api.JobRef
	var expired []*api.Event
	s.st.View(func(v *state.View) {
		ended := map[string]bool{}
		for _, r := range v.Rsvs() {
			_, _, active := state.RsvSpan(r, now)
			if !active && !r.Open {
				ended[r.ID] = true
			}
			if r.Window == "" && now.Unix() >= r.End {
				expired = append(expired, &api.Event{Rsv: &api.EvRsv{Op: api.RsvDelete, ID: r.ID, Reason: "expired"}})
			}
		}
		if len(ended) == 0 {
			return
		}
		v.Jobs(func(j *state.Job) bool {
			if ended[j.Spec.Reservation] && job.Started(j.State) {
				kill = append(kill, &api.JobRef{JobID: j.ID, Index: j.Index})
			}
			return true
		})
	})
	if len(kill) > 0 {
		if _, err := s.control(ctx, auth.Identity{User: "root"}, &api.ControlRequest{Op: api.OpKill, Jobs: kill}); err != nil {
			s.log.Warn("killing the jobs of ended advance reservations", "err", err)
		}
	}
	if len(expired) > 0 {
		if _, err := s.prop.Propose(ctx, expired...); err != nil {
			s.log.Warn("deleting expired advance reservations", "err", err)
		}
	}
}

// checkRsv is bsub -U's check: the reservation exists and the user is
// one of its users (or in its group).
func checkRsv(v *state.View, cfg *config.Config, user, id string) error {
	if id == "" {
		return nil
	}
	r, ok := v.Rsv(id)
	if !ok {
		return lsberr.Errorf(lsberr.BadArg, "%s: Advance reservation does not exist", id)
	}
	if !sched.RsvAllows(cfg, r, user) {
		return lsberr.Errorf(lsberr.BadArg, "%s: %s is not a user of the advance reservation", id, user)
	}
	return nil
}
