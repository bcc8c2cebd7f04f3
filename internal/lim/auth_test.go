package lim

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/auth/authsetup"
	"github.com/basalt-lsf/basalt/internal/auth/eauth"
	"github.com/basalt-lsf/basalt/internal/lim/limtest"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

// TestReportOnlyFromItsLIM: under LSF_AUTH=eauth the master takes a host's
// load report only from that host's LIM; a user's connection or another
// host's LIM is refused, and a credential that is replayed, sealed with
// another key or missing does not authenticate at all.
func TestReportOnlyFromItsLIM(t *testing.T) {
	h := newHarness(t, limtest.Options{Hosts: 3})
	h.start("host1", sampler(0))
	eventually(t, 10*time.Second, "master host1", func() bool {
		m, _, err := h.client("host1").Master(context.Background())
		return err == nil && m == "host1"
	})
	ctx := context.Background()
	addr, err := h.client("host1").Addr(ctx, "host1")
	if err != nil {
		t.Fatal(err)
	}
	keys, _, err := eauth.LoadKeyring(eauth.SudoersPath(h.l.EnvDir), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	creds := func(host, kind string) *eauth.Client {
		c := authsetup.Client(h.base.Conf, h.l.EnvDir, host, kind)
		c.Keys = keys
		return c
	}
	report := func(hello *api.ConnHello, host string) error {
		cl, err := rpc.Dial(ctx, addr, hello)
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		var r api.ReportReply
		return cl.Call(ctx, api.LIMReport, &api.LoadReport{Host: host, Seq: 1, Load: make([]float64, 11)}, &r)
	}
	hello := func(c *eauth.Client) *api.ConnHello {
		hl, err := c.Hello(ctx, auth.KindLIM, "host1")
		if err != nil {
			t.Fatal(err)
		}
		return hl
	}
	if err := report(hello(creds("host2", auth.KindLIM)), "host2"); err != nil {
		t.Fatalf("host2's LIM reporting host2: %v", err)
	}
	for name, tc := range map[string]struct {
		hello *api.ConnHello
		host  string
		code  rpc.Code
	}{
		"a user of host2":       {hello(creds("host2", auth.KindUser)), "host2", rpc.PermissionDenied},
		"host3's LIM for host2": {hello(creds("host3", auth.KindLIM)), "host2", rpc.PermissionDenied},
		"host2's sbatchd":       {hello(creds("host2", auth.KindSbatchd)), "host2", rpc.PermissionDenied},
		"no credential":         {&api.ConnHello{Scheme: "eauth", User: "root", Host: "host2", Daemon: "lim"}, "host2", rpc.Unauthenticated},
		"ident hello":           {&api.ConnHello{Scheme: "ident", User: "root", Host: "host2", Daemon: "lim"}, "host2", rpc.Unauthenticated},
		"another cluster's key": {func() *api.ConnHello {
			c := creds("host2", auth.KindLIM)
			c.Keys = &eauth.Keyring{Current: eauth.NewKey("other")}
			return hello(c)
		}(), "host2", rpc.Unauthenticated},
		"a host not in cluster": {hello(creds("host9", auth.KindLIM)), "host2", rpc.Unauthenticated},
	} {
		err := report(tc.hello, tc.host)
		if rpc.CodeOf(err) != tc.code || !strings.Contains(err.Error(), "User permission denied") {
			t.Errorf("%s: %v, want %v User permission denied", name, err, tc.code)
		}
	}
	// A replayed hello: the first connection authenticates, the second not.
	hl := hello(creds("host2", auth.KindLIM))
	if err := report(hl, "host2"); err != nil {
		t.Fatal(err)
	}
	if err := report(hl, "host2"); rpc.CodeOf(err) != rpc.Unauthenticated {
		t.Fatalf("replayed credential: %v", err)
	}
	// The same after the LIM restarts: its replay cache is on disk.
	hl = hello(creds("host2", auth.KindLIM))
	if err := report(hl, "host2"); err != nil {
		t.Fatal(err)
	}
	h.stop("host1")
	h.start("host1", sampler(0))
	eventually(t, 10*time.Second, "master host1 again", func() bool {
		m, _, err := h.client("host1").Master(context.Background())
		return err == nil && m == "host1"
	})
	if err := report(hl, "host2"); rpc.CodeOf(err) != rpc.Unauthenticated {
		t.Fatalf("credential replayed after a restart: %v", err)
	}
}
