package mbd

import (
	"testing"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
)

func TestClusterAllowed(t *testing.T) {
	for _, tt := range []struct {
		list    []string
		cluster string
		ok      bool
	}{
		{nil, "c1", true},
		{[]string{"all"}, "c1", true},
		{[]string{"all", "~c1"}, "c1", false},
		{[]string{"all", "~c1"}, "c2", true},
		{[]string{"c2", "c3"}, "c1", false},
		{[]string{"c2", "c1"}, "c1", true},
	} {
		if got := clusterAllowed(tt.list, tt.cluster); got != tt.ok {
			t.Errorf("clusterAllowed(%q, %s) = %v", tt.list, tt.cluster, got)
		}
	}
}

// TestMCUpdateOf: what a remote job's state changes here.
func TestMCUpdateOf(t *testing.T) {
	fwd := func(st api.JobState, hosts ...string) *state.Job {
		return &state.Job{Key: state.Key{ID: 7}, State: st, Fwd: &state.Forward{Cluster: "east", Key: "k", RemoteID: 3, ExecHosts: hosts, Active: true}}
	}
	for _, tt := range []struct {
		name  string
		j     *state.Job
		rs    *api.MCJobState
		check func(*api.EvJobFwdUpdate) bool
	}{
		{"unchanged", fwd(api.StateRun, "h1"), &api.MCJobState{Found: true, State: api.StateRun, ExecHosts: []string{"h1"}},
			func(u *api.EvJobFwdUpdate) bool { return u == nil }},
		{"started", fwd(api.StatePend), &api.MCJobState{Found: true, State: api.StateRun, ExecHosts: []string{"h1"}, StartTime: 5},
			func(u *api.EvJobFwdUpdate) bool {
				return u.State == api.StateRun && u.StartTime == 5 && len(u.ExecHosts) == 1 && u.Key == "k"
			}},
		{"finished", fwd(api.StateRun, "h1"), &api.MCJobState{Found: true, State: api.StateExit, ExitStatus: 256, ExecHosts: []string{"h1"}},
			func(u *api.EvJobFwdUpdate) bool { return u.State == api.StateExit && u.ExitStatus == 256 }},
		{"gone while pending", fwd(api.StatePend), &api.MCJobState{},
			func(u *api.EvJobFwdUpdate) bool { return u.Back && u.State == 0 }},
		{"gone while running", fwd(api.StateRun, "h1"), &api.MCJobState{},
			func(u *api.EvJobFwdUpdate) bool { return !u.Back && u.State == api.StateExit }},
		{"requeued remotely", fwd(api.StateRun, "h1"), &api.MCJobState{Found: true, State: api.StatePend},
			func(u *api.EvJobFwdUpdate) bool { return u == nil }},
	} {
		if u := mcUpdateOf(tt.j, tt.rs); !tt.check(u) {
			t.Errorf("%s: %+v", tt.name, u)
		}
	}
}
