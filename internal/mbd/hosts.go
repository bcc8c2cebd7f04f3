package mbd

import (
	"context"
	"sync"
	"time"

	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/mbd/sched"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
	"github.com/basalt-lsf/basalt/internal/resreq"
)

// hostTable is mbatchd's volatile view of hosts: when each last took a job
// and the load LIM last reported.
type hostTable struct {
	mu           sync.Mutex
	lastDispatch map[string]time.Time
	load         map[string]*HostLoad
	loadAt       time.Time
}

func newHostTable() *hostTable {
	return &hostTable{lastDispatch: map[string]time.Time{}, load: map[string]*HostLoad{}}
}

func (t *hostTable) dispatched(host string, at time.Time) {
	t.mu.Lock()
	t.lastDispatch[host] = at
	t.mu.Unlock()
}

// refreshLoad asks the load source for new values, at most every period.
func (s *Server) refreshLoad(ctx context.Context, period time.Duration) {
	if s.opts.Load == nil {
		return
	}
	s.hosts.mu.Lock()
	fresh := s.clock.Now().Sub(s.hosts.loadAt) < period
	s.hosts.mu.Unlock()
	if fresh {
		return
	}
	lctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	load, err := s.opts.Load.Load(lctx, s.cfg.Current().ResourceTable())
	if err != nil {
		s.log.Warn("cannot get host load from LIM", "err", err)
		return
	}
	s.hosts.mu.Lock()
	s.hosts.load, s.hosts.loadAt = load, s.clock.Now()
	s.hosts.mu.Unlock()
}

// schedHosts builds the scheduler's view of every batch host.
func (s *Server) schedHosts(cfg *config.Config, v *state.View) []*sched.Host {
	tab := cfg.ResourceTable()
	s.hosts.mu.Lock()
	defer s.hosts.mu.Unlock()
	out := make([]*sched.Host, 0, len(cfg.BatchHosts))
	for _, bh := range cfg.BatchHosts {
		h := &sched.Host{Name: bh.Name, Cfg: bh, Type: bh.Type, Model: bh.Model, NCPUs: 1,
			LastDispatch: s.hosts.lastDispatch[bh.Name]}
		ld := s.hosts.load[bh.Name]
		h.Values = hostValues(tab, cfg, bh, ld)
		if ld != nil {
			h.GPUs = ld.GPUs
			if ld.NCPUs > 0 {
				h.NCPUs = ld.NCPUs
			}
			if ld.Type != "" {
				h.Type = ld.Type
			}
			if ld.Model != "" {
				h.Model = ld.Model
			}
		} else if n := s.sess.ncpus(bh.Name); n > 0 {
			h.NCPUs = n
		}
		h.MaxSlots = bh.MXJ
		if bh.MXJCPUs {
			h.MaxSlots = h.NCPUs
		}
		h.Status = s.hostStatus(cfg, v, bh, ld)
		out = append(out, h)
	}
	return out
}

// hostStatus is the status the scheduler filters on: "ok" or the reason
// the host takes no jobs at all.
func (s *Server) hostStatus(cfg *config.Config, v *state.View, bh *config.BatchHost, ld *HostLoad) string {
	if v.HostState(bh.Name).Closed {
		return "closed_Adm"
	}
	if !s.sess.serving(bh.Name) {
		if ld != nil && ld.Status != "unavail" || s.sess.connected(bh.Name) {
			return "unreach"
		}
		return "unavail"
	}
	if ld != nil {
		switch ld.Status {
		case "lockU", "lockU-":
			return "closed_Lock"
		case "unavail":
			return "closed_LIM"
		}
	}
	return "ok"
}

// hostValues builds a host's resreq vector from its configuration and LIM's
// load. Without load information, load indices read as an idle host.
func hostValues(tab *resreq.Table, cfg *config.Config, bh *config.BatchHost, ld *HostLoad) *resreq.Host {
	if ld == nil {
		return sched.HostValues(tab, cfg, bh, nil, nil)
	}
	return sched.HostValues(tab, cfg, bh, ld.Num, ld.Str)
}
