package mbd

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
	"github.com/basalt-lsf/basalt/internal/rpc"
	"github.com/basalt-lsf/basalt/internal/testutil"
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

// TestShowStatusAnswers: any user asks; with no sbatchd every host is
// unavailable and the jobs pend; the start is the master's MBD_START, the
// reconfiguration time follows badmin reconfig.
func TestShowStatusAnswers(t *testing.T) {
	m := startMbd(t, writeCluster(t, 2, 2))
	m.submit("alice", &api.JobSpec{Command: "sleep 1"}, &api.JobSpec{Command: "sleep 2"})
	m.submit("bob", &api.JobSpec{Command: "sleep 3"})
	ask := func() *api.ShowStatusReply {
		t.Helper()
		c := m.client("carol")
		defer c.Close()
		var r api.ShowStatusReply
		if err := c.Call(context.Background(), api.MBatchdShowStatus, &api.ShowStatusRequest{}, &r); err != nil {
			t.Fatal(err)
		}
		return &r
	}
	r := ask()
	if r.Servers != nil && r.Servers.Current != 0 || r.NumServers != 2 || r.Unavailable != 2 || r.Ok != 0 {
		t.Errorf("servers %+v of %d, %d ok, %d unavail; want none of 2 available, 2 unavail", r.Servers, r.NumServers, r.Ok, r.Unavailable)
	}
	if r.NumJobs != 3 || r.Pending != 3 || r.NumUsers != 2 || r.ActiveUsers != 0 {
		t.Errorf("jobs %d pending %d users %d active %d, want 3 3 2 0", r.NumJobs, r.Pending, r.NumUsers, r.ActiveUsers)
	}
	if r.PID != int32(os.Getpid()) {
		t.Errorf("PID %d, want %d", r.PID, os.Getpid())
	}
	var start int64
	m.srv.st.View(func(v *state.View) { start = v.MasterStart() })
	if start == 0 || r.Start != start || r.Reconfig != start {
		t.Errorf("start %d reconfig %d, want the MBD_START time %d for both", r.Start, r.Reconfig, start)
	}
	c := m.client("root")
	defer c.Close()
	var ar api.AdminReply
	if err := c.Call(context.Background(), api.MBatchdAdmin, &api.AdminRequest{Op: api.AdminReconfig}, &ar); err != nil || ar.Status != nil {
		t.Fatalf("reconfig: %v %v", err, ar.Status)
	}
	at := m.srv.status.lastReconfig()
	if at.IsZero() {
		t.Fatal("badmin reconfig not recorded")
	}
	if r := ask(); r.Reconfig != max(at.Unix(), start) {
		t.Errorf("reconfig %d after badmin reconfig at %d (start %d)", r.Reconfig, at.Unix(), start)
	}
}

// TestShowStatusMasterOnly: a follower replica refuses showstatus, naming
// the master, which answers.
func TestShowStatusMasterOnly(t *testing.T) {
	dir := writeReplicated(t, 3, 3)
	var rs []*replica
	for _, h := range []string{"host1", "host2", "host3"} {
		rs = append(rs, startReplica(t, dir, h))
	}
	lead := waitLeader(t, 30*time.Second, rs...)
	for _, r := range rs {
		var reply api.ShowStatusReply
		err := r.call(api.MBatchdShowStatus, &api.ShowStatusRequest{}, &reply)
		if r == lead {
			if err != nil || reply.NumServers != 3 || reply.PID == 0 {
				t.Errorf("master %s: %v, %d servers, PID %d", r.host, err, reply.NumServers, reply.PID)
			}
			continue
		}
		if rpc.CodeOf(err) != rpc.FailedPrecondition || !strings.Contains(err.Error(), "the master is "+lead.host) {
			t.Errorf("follower %s: %v, want refused naming %s", r.host, err, lead.host)
		}
	}
}

// TestShowStatusPeaks: housekeeping's sample counts a host that came and
// went; showstatus then shows it in the peak only.
func TestShowStatusPeaks(t *testing.T) {
	m := startMbd(t, writeCluster(t, 2, 2))
	f := connectSbd(t, m, "host1", nil)
	m.srv.sampleHosts(m.srv.cfg.Current())
	f.c.Close()
	if !testutil.Poll(10*time.Second, func() bool { return !m.srv.sess.connected("host1") }) {
		t.Fatal("host1's session still open")
	}
	c := m.client("carol")
	defer c.Close()
	var r api.ShowStatusReply
	if err := c.Call(context.Background(), api.MBatchdShowStatus, &api.ShowStatusRequest{}, &r); err != nil {
		t.Fatal(err)
	}
	if r.Unavailable != 2 {
		t.Errorf("%d of 2 hosts unavail", r.Unavailable)
	}
	if r.Servers == nil || r.Servers.Current != 0 || r.Servers.Peak != 1 || r.Slots == nil || r.Slots.Peak != 2 {
		t.Errorf("servers %+v slots %+v, want 0/1 and a peak of 2 slots", r.Servers, r.Slots)
	}
}
