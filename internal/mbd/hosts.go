package mbd

import (
	"context"
	"math"
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
	if !s.sess.connected(bh.Name) {
		if ld != nil && ld.Status != "unavail" {
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
	n := tab.Len()
	h := &resreq.Host{Num: make([]float64, n), Str: make([]string, n)}
	if ld != nil && len(ld.Num) == n {
		copy(h.Num, ld.Num)
		copy(h.Str, ld.Str)
	} else {
		for i := 0; i < n; i++ {
			d := tab.Def(i)
			if !d.Builtin {
				h.Num[i] = math.NaN()
			}
		}
		set := func(name string, v float64) {
			if i, ok := tab.Index(name); ok {
				h.Num[i] = v
			}
		}
		set("server", 1)
		set("it", 1e6)
		set("mem", 1e9)
		set("swp", 1e9)
		set("tmp", 1e9)
		set("maxmem", 1e9)
		set("maxswp", 1e9)
		set("maxtmp", 1e9)
		set("ncpus", 1)
		if m, ok := cfg.Shared.Model(bh.Model); ok {
			set("cpuf", m.CPUFactor)
		}
	}
	setS := func(name, v string) {
		if i, ok := tab.Index(name); ok && h.Str[i] == "" {
			h.Str[i] = v
		}
	}
	setS("type", bh.Type)
	setS("model", bh.Model)
	setS("hname", bh.Name)
	setS("status", "ok")
	if ch := cfg.Cluster.Host(bh.Name); ch != nil {
		for _, r := range ch.Resources {
			i, ok := tab.Index(r.Name)
			if !ok {
				continue
			}
			if r.Value == "" {
				h.Num[i] = 1
			} else if tab.Def(i).Type == resreq.String {
				h.Str[i] = r.Value
			} else if f, err := parseFloat(r.Value); err == nil {
				h.Num[i] = f
			}
			if r.Exclusive {
				h.Exclusive = append(h.Exclusive, i)
			}
		}
	}
	return h
}
