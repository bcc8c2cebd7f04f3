package mbd

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
)

// badmin showstatus: the master's runtime summary (LSF's "LSF runtime
// mbatchd information"). Hosts are counted by their bhosts status
// (hostsInfo), jobs and users from the state; the peaks of the available
// hosts and the time of the last reconfiguration are known only to this
// mbatchd, in memory (statusTracker): a new master starts them afresh, as
// LSF's mbatchd does.

// hostCounts are the "Available local hosts" figures.
type hostCounts struct {
	clients, servers, cpus, cores, slots int32
}

// statusTracker holds what showstatus reports that no state records: the
// most hosts, CPUs, cores and slots available at once since this mbatchd
// started (sampled by housekeeping and at each showstatus), and when badmin
// reconfig or mbdrestart last reloaded the configuration.
type statusTracker struct {
	mu       sync.Mutex
	peak     hostCounts
	reconfig time.Time
}

// observe folds c into the peaks and returns them.
func (t *statusTracker) observe(c hostCounts) hostCounts {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := &t.peak
	p.clients, p.servers = max(p.clients, c.clients), max(p.servers, c.servers)
	p.cpus, p.cores, p.slots = max(p.cpus, c.cpus), max(p.cores, c.cores), max(p.slots, c.slots)
	return *p
}

// reconfigured records a reconfiguration at at.
func (t *statusTracker) reconfigured(at time.Time) {
	t.mu.Lock()
	t.reconfig = at
	t.mu.Unlock()
}

// lastReconfig is the time of the last reconfiguration, zero when none.
func (t *statusTracker) lastReconfig() time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.reconfig
}

// inService reports whether a host of that bhosts status is available:
// its sbatchd serves, whether it takes jobs (ok) or not (closed_*).
func inService(status string) bool {
	return status != "unavail" && status != "unreach"
}

// availableHosts counts the client-only hosts of the cluster and the batch
// hosts in service with their CPUs, cores (LIM's ncpus for both: mbatchd
// gets no socket count) and slots (MXJ; ncpus where MXJ is unlimited).
func availableHosts(cfg *config.Config, hosts []*api.HostInfo) hostCounts {
	var c hostCounts
	for _, h := range cfg.Cluster.Hosts {
		if !h.Server {
			c.clients++
		}
	}
	for _, h := range hosts {
		if !inService(h.Status) {
			continue
		}
		c.servers++
		c.cpus += h.NCPUs
		c.cores += h.NCPUs
		if h.Max >= 0 {
			c.slots += h.Max
		} else {
			c.slots += h.NCPUs
		}
	}
	return c
}

// tallyServers fills the server counts of r from the hosts' bhosts status.
func tallyServers(r *api.ShowStatusReply, hosts []*api.HostInfo) {
	r.NumServers = int32(len(hosts))
	for _, h := range hosts {
		switch {
		case h.Status == "ok":
			r.Ok++
		case strings.HasPrefix(h.Status, "closed"):
			r.Closed++
		case h.Status == "unreach":
			r.Unreachable++
		case h.Status == "unavail":
			r.Unavailable++
		}
	}
}

// tallyJobs fills the job and user counts of r; each calls fn for every
// job held until fn returns false (state.View.Jobs).
func tallyJobs(r *api.ShowStatusReply, each func(fn func(*state.Job) bool)) {
	users, active := map[string]bool{}, map[string]bool{}
	each(func(j *state.Job) bool {
		r.NumJobs++
		users[j.User] = true
		switch j.State {
		case api.StateRun:
			r.Running++
			active[j.User] = true
		case api.StatePSusp, api.StateUSusp, api.StateSSusp:
			r.Suspended++
		case api.StatePend:
			r.Pending++
		case api.StateDone, api.StateExit:
			r.Finished++
		}
		return true
	})
	r.NumUsers, r.ActiveUsers = int32(len(users)), int32(len(active))
}

// sampleHosts folds the hosts available now into the peaks
// (housekeeping). The scheduler's view of the hosts is enough: whether a
// host is closed does not matter to its availability.
func (s *Server) sampleHosts(cfg *config.Config) {
	var hosts []*api.HostInfo
	s.st.View(func(v *state.View) {
		for _, h := range s.schedHosts(cfg, v) {
			hosts = append(hosts, &api.HostInfo{Status: h.Status, NCPUs: int32(h.NCPUs), Max: int32(max(h.MaxSlots, -1))})
		}
	})
	s.status.observe(availableHosts(cfg, hosts))
}

// showStatus answers badmin showstatus; any user may ask.
func (s *Server) showStatus(ctx context.Context, id auth.Identity, req *api.ShowStatusRequest) (*api.ShowStatusReply, error) {
	cfg := s.cfg.Current()
	hr, err := s.hostsInfo(ctx, id, &api.HostsRequest{})
	if err != nil {
		return nil, fmt.Errorf("host status: %w", err)
	}
	hosts := hr.Hosts
	now := availableHosts(cfg, hosts)
	peak := s.status.observe(now)
	pair := func(n, p int32) *api.ShowStatusCounts { return &api.ShowStatusCounts{Current: n, Peak: p} }
	r := &api.ShowStatusReply{
		Clients: pair(now.clients, peak.clients), Servers: pair(now.servers, peak.servers),
		CPUs: pair(now.cpus, peak.cpus), Cores: pair(now.cores, peak.cores), Slots: pair(now.slots, peak.slots),
		PID: int32(os.Getpid()),
	}
	if cfg.Users != nil {
		r.NumUserGroups = int32(len(cfg.Users.Groups))
	}
	tallyServers(r, hosts)
	s.st.View(func(v *state.View) {
		tallyJobs(r, v.Jobs)
		r.Start = v.MasterStart()
	})
	if r.Start == 0 {
		r.Start = s.start.Unix()
	}
	r.Reconfig = r.Start
	if t := s.status.lastReconfig(); !t.IsZero() && t.Unix() > r.Start {
		r.Reconfig = t.Unix()
	}
	return r, nil
}
