package mbd

import (
	"context"
	"testing"

	"github.com/basalt-lsf/basalt/api"
)

// TestUsersAll: busers all lists every user with jobs in the system, those
// whose jobs have all finished too (nothing counted), and only the
// unfinished jobs are counted.
func TestUsersAll(t *testing.T) {
	dir := writeCluster(t, 1, 4)
	m := startMbd(t, dir)
	sbd := connectSbd(t, m, "host1", nil)
	m.submit("alice", spec("true"))
	sbd.waitRunning(1)
	sbd.finish(1, 0)
	m.waitState(1, api.StateDone)
	held := spec("sleep 100")
	held.Hold = true
	m.submit("bob", held)

	c := m.client("root")
	defer c.Close()
	var reply api.UsersReply
	if err := c.Call(context.Background(), api.MBatchdUsers, &api.UsersRequest{Users: []string{"all"}}, &reply); err != nil {
		t.Fatal(err)
	}
	got := map[string]*api.UserInfo{}
	for _, u := range reply.Users {
		got[u.Name] = u
	}
	if a := got["alice"]; a == nil || a.NJobs != 0 {
		t.Errorf("alice (one finished job): %+v, want listed with no jobs", a)
	}
	if b := got["bob"]; b == nil || b.NJobs != 1 || b.Pend != 1 {
		t.Errorf("bob (one held job): %+v, want 1 job, 1 pending", b)
	}
}
