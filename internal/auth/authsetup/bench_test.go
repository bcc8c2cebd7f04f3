package authsetup_test

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/auth/eauth"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

// BenchmarkAuthenticatedCall measures a new connection with its
// authentication and one unary request, as every command makes, against
// an in-process server, with each scheme in the same run: ident (the
// daemon reads /proc/net/tcp), eauth sealed by the client itself (root,
// daemons) and eauth sealed by the host's signing agent (users' commands),
// both verified with the replay cache on disk and the host check.
//
//	go test -run '^$' -bench AuthenticatedCall -benchtime 2000x ./internal/auth/authsetup/
func BenchmarkAuthenticatedCall(b *testing.B) {
	keys := &eauth.Keyring{Current: eauth.NewKey("bench-key")}
	cache, err := eauth.OpenReplayCache(filepath.Join(b.TempDir(), eauth.ReplayFile), time.Now())
	if err != nil {
		b.Fatal(err)
	}
	defer cache.Close()
	hosts := &eauth.HostCheck{
		InCluster: func(h string) (string, bool) { return h, h == "host1" },
		Addrs: func(context.Context, string) ([]netip.Addr, error) {
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		},
	}
	eauthSrv := &eauth.Authenticator{Verifier: &eauth.Verifier{Keys: keys, Cache: cache, Daemon: "mbatchd", Host: "host1"}, Hosts: hosts}
	agentAddr := fmt.Sprintf("@basalt-eauth-bench/%d", os.Getpid())
	aln, err := net.Listen("unix", agentAddr)
	if err != nil {
		b.Fatal(err)
	}
	actx, stop := context.WithCancel(context.Background())
	defer stop()
	go (&eauth.Agent{Keys: keys, Host: "host1"}).Serve(actx, aln)

	direct := &eauth.Client{Scheme: eauth.SchemeEauth, LocalHost: "host1", Keys: keys}
	agent := func(ctx context.Context) (*api.ConnHello, error) {
		cred, err := eauth.AskAgent(ctx, agentAddr, "mbatchd", "host1")
		return &api.ConnHello{Scheme: "eauth", Host: "host1", Credential: cred}, err
	}
	for _, v := range []struct {
		name  string
		auth  auth.Authenticator
		hello func(context.Context) (*api.ConnHello, error)
	}{
		{"ident", &auth.Ident{}, func(context.Context) (*api.ConnHello, error) {
			return &api.ConnHello{Scheme: "ident", User: "root", Host: "host1"}, nil
		}},
		{"eauth-sealed", eauthSrv, func(ctx context.Context) (*api.ConnHello, error) { return direct.Hello(ctx, "mbatchd", "host1") }},
		{"eauth-agent", eauthSrv, agent},
	} {
		b.Run(v.name, func(b *testing.B) {
			srv := rpc.NewServer(v.auth)
			rpc.HandleUnary(srv, api.LIMPing, func(_ context.Context, id auth.Identity, _ *api.PingRequest) (*api.PingReply, error) {
				return &api.PingReply{Master: id.User}, nil
			})
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			go srv.Serve(ln)
			defer srv.Shutdown(context.Background())
			ctx := context.Background()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				hello, err := v.hello(ctx)
				if err != nil {
					b.Fatal(err)
				}
				c, err := rpc.Dial(ctx, ln.Addr().String(), hello)
				if err != nil {
					b.Fatal(err)
				}
				var r api.PingReply
				if err := c.Call(ctx, api.LIMPing, &api.PingRequest{}, &r); err != nil {
					b.Fatal(err)
				}
				c.Close()
			}
		})
	}
}
