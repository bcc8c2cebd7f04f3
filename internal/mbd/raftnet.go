package mbd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/raft"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

// raftUpgrade is the rpc upgrade that carries the replicas' raft traffic on
// mbatchd's own port, after the connection's hello authenticated the peer.
const raftUpgrade = "raft"

// raftStreams is hashicorp/raft's StreamLayer for the replicas: raft
// addresses are "<host>:<LSB_MBD_PORT>"; a connection to a peer is an rpc
// upgrade on its mbatchd port, authenticated as this host's mbatchd, and
// an incoming one is accepted only from the mbatchd of a replica host.
type raftStreams struct {
	self  raftAddr
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
	// dial connects to the mbatchd of host at the address given.
	dial func(ctx context.Context, host, port string) (net.Conn, error)
	// replica reports whether host runs a replica of this cluster.
	replica func(host string) bool
}

// raftAddr is a replica's raft address.
type raftAddr string

func (a raftAddr) Network() string { return "basalt-raft" }
func (a raftAddr) String() string  { return string(a) }

// replicaAddr is host's raft address.
func replicaAddr(host string, port int) raft.ServerAddress {
	return raft.ServerAddress(net.JoinHostPort(host, strconv.Itoa(port)))
}

func newRaftStreams(self raft.ServerAddress, replica func(string) bool,
	dial func(ctx context.Context, host, port string) (net.Conn, error)) *raftStreams {
	return &raftStreams{self: raftAddr(self), conns: make(chan net.Conn), done: make(chan struct{}), dial: dial, replica: replica}
}

// upgrade is the rpc server's handler of raftUpgrade.
func (r *raftStreams) upgrade(id auth.Identity) (func(net.Conn), error) {
	if id.Daemon != auth.KindMbatchd || !r.replica(id.Host) {
		return nil, fmt.Errorf("raft traffic is taken only from the mbatchd of a master replica host, not from %s", describePeer(id))
	}
	return func(c net.Conn) {
		select {
		case r.conns <- c:
		case <-r.done:
			c.Close()
		}
	}, nil
}

func describePeer(id auth.Identity) string {
	who := id.User
	if id.Daemon != "" {
		who = id.Daemon
	}
	if id.Host != "" {
		return who + "@" + id.Host
	}
	return who + " at " + id.Addr.String()
}

// Accept implements net.Listener.
func (r *raftStreams) Accept() (net.Conn, error) {
	select {
	case c := <-r.conns:
		return c, nil
	case <-r.done:
		return nil, net.ErrClosed
	}
}

// Close implements net.Listener.
func (r *raftStreams) Close() error {
	r.once.Do(func() { close(r.done) })
	return nil
}

// Addr implements net.Listener: this replica's raft address.
func (r *raftStreams) Addr() net.Addr { return r.self }

// Dial implements raft.StreamLayer.
func (r *raftStreams) Dial(address raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	host, port, err := net.SplitHostPort(string(address))
	if err != nil {
		return nil, fmt.Errorf("raft address %q: %w", address, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	go func() {
		select {
		case <-r.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	return r.dial(ctx, host, port)
}

// dialReplica returns the dialer of raftStreams: the peer's address from
// resolve, a hello from creds (this host's mbatchd, to the mbatchd of
// host).
func dialReplica(creds auth.Credentials, resolve func(ctx context.Context, host string) (string, error)) func(ctx context.Context, host, port string) (net.Conn, error) {
	return func(ctx context.Context, host, port string) (net.Conn, error) {
		ip, err := resolve(ctx, host)
		if err != nil {
			return nil, fmt.Errorf("address of replica %s: %w", host, err)
		}
		var hello *api.ConnHello
		if creds != nil {
			if hello, err = creds.Hello(ctx, auth.KindMbatchd, host); err != nil {
				return nil, fmt.Errorf("credentials for replica %s: %w", host, err)
			}
		}
		return rpc.DialUpgrade(ctx, net.JoinHostPort(ip, port), hello, raftUpgrade)
	}
}

// ErrDeposed is Run's error when a replica loses the leadership: its
// process exits and is started again as a follower.
var ErrDeposed = errors.New("this mbatchd lost the raft leadership")

// sameHost compares cluster host names as LSF does (case-insensitively).
func sameHost(a, b string) bool { return strings.EqualFold(a, b) }

var _ raft.StreamLayer = (*raftStreams)(nil)
