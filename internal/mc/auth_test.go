package mc

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"path/filepath"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/auth/eauth"
)

type addrConn struct {
	net.Conn
	addr net.Addr
}

func (c addrConn) RemoteAddr() net.Addr { return c.addr }

func from(s string) net.Conn {
	ap := netip.MustParseAddrPort(s)
	return addrConn{addr: net.TCPAddrFromAddrPort(ap)}
}

const secret = "0123456789abcdef0123456789abcdef"

// world: cluster "east" (master e1, 10.0.0.1) and "west" (master w1,
// 10.0.1.1) share a key; "north" is configured but shares none.
func newAuth(t *testing.T, now time.Time) *Authenticator {
	t.Helper()
	cache, err := eauth.OpenReplayCache(filepath.Join(t.TempDir(), "mc.replay"), now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cache.Close() })
	keys := NewKeys("west", map[string]string{KeyVar("east"): secret})
	servers := map[string][]string{"east": {"e0", "e1:7000"}, "west": {"w1"}, "north": {"n1"}}
	addrs := map[string]string{"e0": "10.0.0.9", "e1": "10.0.0.1", "w1": "10.0.1.1", "n1": "10.0.2.1"}
	return &Authenticator{
		Local: "west", Host: "w1",
		Servers: func(c string) ([]string, bool) { s, ok := servers[c]; return s, ok },
		Keys:    keys.For,
		Addrs: func(_ context.Context, h string) ([]netip.Addr, error) {
			a, ok := addrs[h]
			if !ok {
				return nil, errors.New("no such host")
			}
			return []netip.Addr{netip.MustParseAddr(a)}, nil
		},
		Cache: cache,
		Now:   func() time.Time { return now },
	}
}

func TestAuthenticate(t *testing.T) {
	now := time.Date(2026, 11, 29, 3, 0, 0, 0, time.UTC)
	good := &Credentials{Local: "east", LocalHost: "e1", Peer: "west", Key: PairKey(secret, "east", "west"), Now: func() time.Time { return now }}
	hello := func(c *Credentials, host string) *api.ConnHello {
		h, err := c.Hello(context.Background(), "mbatchd", host)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	tests := []struct {
		name  string
		hello func() *api.ConnHello
		src   string
		ok    bool
		why   error
	}{
		{"good", func() *api.ConnHello { return hello(good, "w1") }, "10.0.0.1:4000", true, nil},
		{"not configured", func() *api.ConnHello {
			c := *good
			c.Local = "south"
			return hello(&c, "w1")
		}, "10.0.0.1:4000", false, ErrNotConfigured},
		{"no shared key", func() *api.ConnHello {
			c := *good
			c.Local, c.LocalHost, c.Key = "north", "n1", PairKey(secret, "north", "west")
			return hello(&c, "w1")
		}, "10.0.2.1:4000", false, ErrNoPairKey},
		{"wrong key", func() *api.ConnHello {
			c := *good
			c.Key = PairKey("another secret of 32 characters.", "east", "west")
			return hello(&c, "w1")
		}, "10.0.0.1:4000", false, eauth.ErrUnknownKey},
		{"the cluster's own eauth key", func() *api.ConnHello {
			c := *good
			c.Key = eauth.NewKey(secret)
			return hello(&c, "w1")
		}, "10.0.0.1:4000", false, eauth.ErrUnknownKey},
		{"for another master", func() *api.ConnHello { return hello(good, "w2") }, "10.0.0.1:4000", false, eauth.ErrWrongPeer},
		{"not from a master candidate", func() *api.ConnHello { return hello(good, "w1") }, "10.0.0.5:4000", false, ErrNotMaster},
		{"claims another master's name", func() *api.ConnHello { return hello(good, "w1") }, "10.0.0.9:4000", false, ErrNotMaster},
		{"a user's hello", func() *api.ConnHello { return &api.ConnHello{Scheme: "eauth", User: "east"} }, "10.0.0.1:4000", false, nil},
		{"garbage credential", func() *api.ConnHello {
			return &api.ConnHello{Scheme: Scheme, User: "east", Credential: []byte("basalt1.AAAA")}
		}, "10.0.0.1:4000", false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newAuth(t, now)
			h := tt.hello()
			id, err := a.authenticate(context.Background(), from(tt.src), h)
			if tt.ok {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if id.Daemon != KindCluster || id.User != "east" || id.Host != "e1" || id.UID != -1 {
					t.Fatalf("identity %+v", id)
				}
				// The same hello again is a replay.
				if _, err := a.authenticate(context.Background(), from(tt.src), h); !errors.Is(err, eauth.ErrReplayed) {
					t.Fatalf("replayed hello: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted: %+v", id)
			}
			if tt.why != nil && !errors.Is(err, tt.why) {
				t.Fatalf("refused with %v, want %v", err, tt.why)
			}
			if _, err := a.Authenticate(context.Background(), from(tt.src), h); !errors.Is(err, auth.ErrDenied) {
				t.Fatalf("Authenticate answered %v, want %v", err, auth.ErrDenied)
			}
		})
	}
}

func TestPairKey(t *testing.T) {
	if PairKey(secret, "a", "b").ID != PairKey(secret, "b", "a").ID {
		t.Error("the pair key depends on the order of the names")
	}
	if PairKey(secret, "a", "b").ID == PairKey(secret, "a", "c").ID {
		t.Error("two pairs share a key")
	}
	if PairKey(secret, "a", "b").ID == eauth.NewKey(secret).ID {
		t.Error("the pair key is the eauth key of the same secret")
	}
	k := NewKeys("a", map[string]string{KeyVar("b"): "short"})
	if _, err := k.For("b"); err == nil {
		t.Error("a short secret accepted")
	}
	if _, err := k.For("c"); !errors.Is(err, ErrNoPairKey) {
		t.Errorf("no key: %v", err)
	}
}

func FuzzAuthenticate(f *testing.F) {
	now := time.Date(2026, 11, 29, 3, 0, 0, 0, time.UTC)
	good := &Credentials{Local: "east", LocalHost: "e1", Peer: "west", Key: PairKey(secret, "east", "west"), Now: func() time.Time { return now }}
	h, _ := good.Hello(context.Background(), "", "w1")
	f.Add("east", h.Credential)
	f.Add("north", []byte("basalt1."))
	f.Fuzz(func(t *testing.T, user string, cred []byte) {
		a := newAuth(t, now)
		a.Cache = nil
		id, err := a.authenticate(context.Background(), from("10.0.0.1:1"), &api.ConnHello{Scheme: Scheme, User: user, Credential: cred})
		if err == nil && (id.User != "east" || id.Daemon != KindCluster) {
			t.Fatalf("accepted %+v", id)
		}
	})
}
