package mbd

import (
	"context"
	"testing"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

// TestSbdSessionOnlyFromItsSbatchd: a session for host1 is taken only from
// host1's sbatchd: not from another host's sbatchd, not from a user (root
// included) nor from another daemon kind.
func TestSbdSessionOnlyFromItsSbatchd(t *testing.T) {
	m := startMbd(t, fastSbdCluster(t, 1, 2))
	for name, hello := range map[string]*api.ConnHello{
		"host2's sbatchd": {User: "root", Host: "host2", Daemon: "sbatchd"},
		"root's command":  {User: "root", Host: "host1"},
		"a user":          {User: "alice", Host: "host1", Daemon: "sbatchd"},
		"host1's LIM":     {User: "root", Host: "host1", Daemon: "lim"},
	} {
		c, err := rpc.Dial(context.Background(), m.addr, hello)
		if err != nil {
			t.Fatal(err)
		}
		st, err := c.Bidi(context.Background(), api.MBatchdSbdSession, nil)
		if err == nil {
			err = st.Send(&api.SbdMessage{Hello: &api.SbdHello{Host: "host1"}})
		}
		if err == nil {
			var w api.MbdMessage
			err = st.Recv(&w)
		}
		if rpc.CodeOf(err) != rpc.PermissionDenied {
			t.Errorf("%s: %v, want PermissionDenied", name, err)
		}
		c.Close()
	}
	// host1's own sbatchd is welcome.
	connectSbd(t, m, "host1", nil)
}
