package eauth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"strconv"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
)

// Verifier checks Basalt's credentials for one daemon.
type Verifier struct {
	Keys *Keyring
	// Cache refuses replays; nil skips the check (tests only).
	Cache *ReplayCache
	// Daemon and Host are this daemon's kind and host: a credential must
	// be for them.
	Daemon, Host string
	Now          func() time.Time // nil: time.Now
}

// Verify opens a printed credential and checks it is for this daemon and
// new.
func (v *Verifier) Verify(text []byte) (Cred, error) {
	now := time.Now()
	if v.Now != nil {
		now = v.Now()
	}
	c, err := Open(v.Keys, text, now)
	if err != nil {
		return Cred{}, err
	}
	if c.ServerDaemon != v.Daemon || c.ServerHost != v.Host {
		return Cred{}, fmt.Errorf("%w: for %s on %s, this is %s on %s", ErrWrongPeer, c.ServerDaemon, c.ServerHost, v.Daemon, v.Host)
	}
	if !knownKind(c.ClientKind) {
		return Cred{}, fmt.Errorf("credential: unknown client kind %q", c.ClientKind)
	}
	if v.Cache != nil {
		if err := v.Cache.Check(c.Nonce, c.Expiry(), now); err != nil {
			return Cred{}, err
		}
	}
	return c, nil
}

// HostCheck decides whether a connection's source address may speak for a
// host of the cluster.
type HostCheck struct {
	// InCluster returns the host's official name when it is a host of
	// lsf.cluster.<name>.
	InCluster func(host string) (string, bool)
	// Addrs returns the host's addresses (hosts file, then resolver).
	Addrs func(ctx context.Context, host string) ([]netip.Addr, error)
}

// ErrNotInCluster is the refusal of a client whose host is not a host of
// the cluster (LSF's message).
var ErrNotInCluster = errors.New("Host is not in the cluster")

// Check returns the official name of host when it is in the cluster and
// src is one of its addresses. A loopback source is accepted for a host
// whose address is a loopback one: the loopback hosts of a local cluster
// are all this machine.
func (h *HostCheck) Check(ctx context.Context, host string, src netip.Addr) (string, error) {
	name, ok := h.InCluster(host)
	if !ok {
		return "", fmt.Errorf("%w: %s", ErrNotInCluster, host)
	}
	addrs, err := h.Addrs(ctx, name)
	if err != nil {
		return "", fmt.Errorf("%w: %s: %v", ErrNotInCluster, name, err)
	}
	src = src.Unmap()
	for _, a := range addrs {
		a = a.Unmap()
		if a == src || a.IsLoopback() && src.IsLoopback() {
			return name, nil
		}
	}
	return "", fmt.Errorf("%w: connection from %s is not from %s (%v)", ErrNotInCluster, src, name, addrs)
}

// Authenticator authenticates connections under LSF_AUTH=eauth: Basalt's
// credentials verified in-process, or a site's eauth -s when Site is set;
// then the client's host must be a host of the cluster at the
// connection's source address.
type Authenticator struct {
	Verifier *Verifier
	Site     *SiteServer
	Hosts    *HostCheck
	Log      *slog.Logger // refusals, with their reasons
}

// Authenticate implements auth.Authenticator. Every refusal answers LSF's
// "User permission denied" (or "Host is not in the cluster" to a user on
// a host outside the cluster) and is logged with its reason.
func (a *Authenticator) Authenticate(ctx context.Context, conn net.Conn, hello *api.ConnHello) (auth.Identity, error) {
	id, err := a.authenticate(ctx, conn, hello)
	if err != nil {
		if a.Log != nil {
			a.Log.Warn("connection not authenticated", "peer", conn.RemoteAddr(), "err", err)
		}
		if errors.Is(err, ErrNotInCluster) && id.Daemon == "" && id.User != "" {
			return auth.Identity{}, ErrNotInCluster
		}
		return auth.Identity{}, auth.ErrDenied
	}
	return id, nil
}

func (a *Authenticator) authenticate(ctx context.Context, conn net.Conn, hello *api.ConnHello) (auth.Identity, error) {
	var src netip.AddrPort
	if ta, ok := conn.RemoteAddr().(*net.TCPAddr); ok {
		src = ta.AddrPort()
	} else if ap, err := netip.ParseAddrPort(conn.RemoteAddr().String()); err == nil {
		src = ap
	} else {
		return auth.Identity{}, fmt.Errorf("source address %v: %w", conn.RemoteAddr(), err)
	}
	if hello == nil {
		return auth.Identity{}, errors.New("no hello")
	}
	if hello.Scheme != "eauth" {
		return auth.Identity{}, fmt.Errorf("scheme %q, this daemon takes eauth (LSF_AUTH=eauth)", hello.Scheme)
	}
	var id auth.Identity
	if a.Site != nil {
		kind := hello.Daemon
		if kind == "" {
			kind = "user"
		}
		ok, err := a.Site.Check(ctx, &Request{UID: int(hello.UID), GID: int(hello.GID), User: hello.User, ClientAddr: src.Addr().Unmap().String(),
			ClientPort: int(src.Port()), EauthClient: kind, EauthServer: a.Site.Daemon, Data: hello.Credential})
		if err != nil {
			return auth.Identity{}, err
		}
		if !ok {
			return auth.Identity{}, fmt.Errorf("eauth -s refused uid %d (%s) from %s", hello.UID, hello.User, hello.Host)
		}
		id = auth.Identity{User: hello.User, UID: int(hello.UID), GID: int(hello.GID), Host: hello.Host}
		if kind != "user" {
			id.Daemon = kind
		}
	} else {
		c, err := a.Verifier.Verify(hello.Credential)
		if err != nil {
			return auth.Identity{}, err
		}
		id = auth.Identity{User: c.User, UID: int(c.UID), GID: int(c.GID), Host: c.ClientHost}
		if c.ClientKind != "user" {
			id.Daemon = c.ClientKind
		}
	}
	id.Addr = src
	if a.Hosts != nil {
		name, err := a.Hosts.Check(ctx, id.Host, src.Addr())
		if err != nil {
			return id, fmt.Errorf("%s (uid %s, %s): %w", id.User, strconv.Itoa(id.UID), kindOf(id), err)
		}
		id.Host = name
	}
	return id, nil
}

func kindOf(id auth.Identity) string {
	if id.Daemon == "" {
		return "user"
	}
	return id.Daemon
}
