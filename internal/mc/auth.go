package mc

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/auth/eauth"
)

// Scheme is the ConnHello.Scheme of a cluster's connection; KindCluster
// the credential's client kind and the Identity's Daemon.
const (
	Scheme      = "mc"
	KindCluster = "cluster"
	daemon      = "mbatchd@"
)

// Credentials seal the hellos of this cluster's master (on LocalHost) to
// the masters of Peer.
type Credentials struct {
	Local, LocalHost, Peer string
	Key                    *eauth.Key
	Now                    func() time.Time // nil: time.Now
}

// Hello implements auth.Credentials: a fresh credential for the master of
// the peer cluster on host.
func (c *Credentials) Hello(_ context.Context, _ string, host string) (*api.ConnHello, error) {
	now := time.Now()
	if c.Now != nil {
		now = c.Now()
	}
	cr := eauth.Cred{User: c.Local, ClientHost: c.LocalHost, ClientKind: KindCluster,
		ServerDaemon: daemon + c.Peer, ServerHost: host, Issued: now.Truncate(time.Millisecond), TTL: eauth.DefaultTTL}
	if _, err := rand.Read(cr.Nonce[:]); err != nil {
		return nil, err
	}
	text, err := eauth.Seal(c.Key, cr)
	if err != nil {
		return nil, err
	}
	return &api.ConnHello{Scheme: Scheme, User: c.Local, Host: c.LocalHost, Daemon: KindCluster, Credential: text}, nil
}

// Refusals of the Authenticator (for the log; the peer is answered "User
// permission denied").
var (
	ErrNotConfigured = errors.New("cluster is not configured in lsf.shared")
	ErrNotMaster     = errors.New("connection is not from a master candidate of the cluster")
)

// Authenticator authenticates the connections of peer clusters' masters
// on mbatchd's MultiCluster listener; nothing else is accepted there.
type Authenticator struct {
	// Local and Host are this cluster and this master's host: credentials
	// must be for them.
	Local, Host string
	// Servers returns the master candidates of a configured peer cluster
	// (lsf.shared's Servers); false for a cluster not configured.
	Servers func(cluster string) ([]string, bool)
	// Keys returns the key shared with a peer.
	Keys func(cluster string) (*eauth.Key, error)
	// Addrs resolves a host (hosts file, then resolver).
	Addrs func(ctx context.Context, host string) ([]netip.Addr, error)
	// Cache refuses replays; nil skips the check (tests only).
	Cache *eauth.ReplayCache
	Now   func() time.Time
	Log   *slog.Logger
}

// Authenticate implements auth.Authenticator.
func (a *Authenticator) Authenticate(ctx context.Context, conn net.Conn, hello *api.ConnHello) (auth.Identity, error) {
	id, err := a.authenticate(ctx, conn, hello)
	if err != nil {
		if a.Log != nil {
			a.Log.Warn("cluster connection refused", "peer", conn.RemoteAddr(), "err", err)
		}
		return auth.Identity{}, auth.ErrDenied
	}
	return id, nil
}

func (a *Authenticator) authenticate(ctx context.Context, conn net.Conn, hello *api.ConnHello) (auth.Identity, error) {
	if hello == nil || hello.Scheme != Scheme {
		return auth.Identity{}, errors.New("not a cluster's hello: this port takes MultiCluster connections only")
	}
	src, err := netip.ParseAddrPort(conn.RemoteAddr().String())
	if err != nil {
		return auth.Identity{}, fmt.Errorf("source address %v: %w", conn.RemoteAddr(), err)
	}
	peer := hello.User
	servers, ok := a.Servers(peer)
	if !ok || peer == a.Local {
		return auth.Identity{}, fmt.Errorf("%w: <%s>", ErrNotConfigured, peer)
	}
	key, err := a.Keys(peer)
	if err != nil {
		return auth.Identity{}, err
	}
	now := time.Now()
	if a.Now != nil {
		now = a.Now()
	}
	c, err := eauth.Open(&eauth.Keyring{Current: key}, hello.Credential, now)
	if err != nil {
		return auth.Identity{}, fmt.Errorf("cluster <%s>: %w", peer, err)
	}
	if c.User != peer || c.ClientKind != KindCluster {
		return auth.Identity{}, fmt.Errorf("cluster <%s>: credential of %s %q", peer, c.ClientKind, c.User)
	}
	if c.ServerDaemon != daemon+a.Local || c.ServerHost != a.Host {
		return auth.Identity{}, fmt.Errorf("%w: for %s on %s, this is %s%s on %s", eauth.ErrWrongPeer, c.ServerDaemon, c.ServerHost, daemon, a.Local, a.Host)
	}
	if !a.fromServer(ctx, servers, c.ClientHost, src.Addr()) {
		return auth.Identity{}, fmt.Errorf("%w <%s>: %s from %s", ErrNotMaster, peer, c.ClientHost, src.Addr())
	}
	if a.Cache != nil {
		if err := a.Cache.Check(c.Nonce, c.Expiry(), now); err != nil {
			return auth.Identity{}, fmt.Errorf("cluster <%s>: %w", peer, err)
		}
	}
	return auth.Identity{User: peer, UID: -1, GID: -1, Host: c.ClientHost, Daemon: KindCluster, Addr: src}, nil
}

// fromServer reports whether host is one of servers and src one of its
// addresses (a loopback source for a loopback host: clusters sharing a
// machine).
func (a *Authenticator) fromServer(ctx context.Context, servers []string, host string, src netip.Addr) bool {
	for _, s := range servers {
		name, _ := splitServer(s)
		if name != host {
			continue
		}
		addrs, err := a.Addrs(ctx, name)
		if err != nil {
			return false
		}
		src = src.Unmap()
		for _, x := range addrs {
			x = x.Unmap()
			if x == src || x.IsLoopback() && src.IsLoopback() {
				return true
			}
		}
	}
	return false
}
