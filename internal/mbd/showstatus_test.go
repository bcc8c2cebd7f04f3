package mbd

import (
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
)

func TestStatusTrackerPeaks(t *testing.T) {
	var tr statusTracker
	if got := tr.observe(hostCounts{clients: 1, servers: 3, cpus: 6, cores: 6, slots: 12}); got != (hostCounts{1, 3, 6, 6, 12}) {
		t.Fatalf("first %+v", got)
	}
	// A host goes: the peaks stay; each figure is its own peak.
	if got := tr.observe(hostCounts{clients: 2, servers: 2, cpus: 4, cores: 4, slots: 16}); got != (hostCounts{2, 3, 6, 6, 16}) {
		t.Errorf("after a host left %+v", got)
	}
	if !tr.lastReconfig().IsZero() {
		t.Errorf("reconfig %v before any", tr.lastReconfig())
	}
	at := time.Unix(1800000000, 0)
	tr.reconfigured(at)
	if !tr.lastReconfig().Equal(at) {
		t.Errorf("reconfig %v, want %v", tr.lastReconfig(), at)
	}
}

func TestAvailableHostsAndServers(t *testing.T) {
	cfg := &config.Config{Base: &config.Base{Cluster: &config.ClusterFile{Hosts: []*config.Host{
		{Name: "m", Server: true}, {Name: "s1", Server: true}, {Name: "s2", Server: true}, {Name: "s3", Server: true},
		{Name: "s4", Server: true}, {Name: "c1"}, {Name: "c2"},
	}}}}
	hosts := []*api.HostInfo{
		{Name: "m", Status: "ok", NCPUs: 4, Max: 4},
		{Name: "s1", Status: "closed_Adm", NCPUs: 2, Max: 8},
		{Name: "s2", Status: "closed_Full", NCPUs: 2, Max: -1}, // no MXJ: its CPUs
		{Name: "s3", Status: "unreach", NCPUs: 16, Max: 16},
		{Name: "s4", Status: "unavail", NCPUs: 16, Max: 16},
	}
	if got, want := availableHosts(cfg, hosts), (hostCounts{clients: 2, servers: 3, cpus: 8, cores: 8, slots: 14}); got != want {
		t.Errorf("available %+v, want %+v", got, want)
	}
	var r api.ShowStatusReply
	tallyServers(&r, hosts)
	if r.NumServers != 5 || r.Ok != 1 || r.Closed != 2 || r.Unreachable != 1 || r.Unavailable != 1 {
		t.Errorf("servers %d ok %d closed %d unreach %d unavail %d, want 5 1 2 1 1",
			r.NumServers, r.Ok, r.Closed, r.Unreachable, r.Unavailable)
	}
}

func TestTallyJobs(t *testing.T) {
	jobs := []*state.Job{
		{User: "ann", State: api.StateRun}, {User: "ann", State: api.StatePend},
		{User: "bob", State: api.StatePSusp}, {User: "bob", State: api.StateUSusp}, {User: "bob", State: api.StateSSusp},
		{User: "cy", State: api.StateDone}, {User: "cy", State: api.StateExit},
		{User: "dee", State: api.StateRun}, {User: "eve", State: api.StateUnkwn},
	}
	var r api.ShowStatusReply
	tallyJobs(&r, func(fn func(*state.Job) bool) {
		for _, j := range jobs {
			if !fn(j) {
				return
			}
		}
	})
	if r.NumJobs != 9 || r.Running != 2 || r.Suspended != 3 || r.Pending != 1 || r.Finished != 2 {
		t.Errorf("jobs %d run %d susp %d pend %d finished %d, want 9 2 3 1 2", r.NumJobs, r.Running, r.Suspended, r.Pending, r.Finished)
	}
	if r.NumUsers != 5 || r.ActiveUsers != 2 {
		t.Errorf("users %d active %d, want 5 2", r.NumUsers, r.ActiveUsers)
	}
}
