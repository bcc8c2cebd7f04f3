package auth

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/basalt-lsf/basalt/api"
)

// Identity is an authenticated principal.
type Identity struct {
	User string
	UID  int
	GID  int
	// Host is the cluster host the peer runs on: proven by its credential
	// under LSF_AUTH=eauth, said by its hello under ident.
	Host string
	// Daemon is the kind of a peer daemon ("lim", "sbatchd", "mbatchd",
	// "res"), empty for a user's command. Under eauth only a holder of the
	// cluster key can claim one; under ident only root or the daemons' own
	// user.
	Daemon string
	// Addr is the connection's source address.
	Addr netip.AddrPort
}

// IsDaemon reports whether the identity is the daemon kind of host.
func (id Identity) IsDaemon(kind, host string) bool {
	return id.Daemon == kind && id.Host == host
}

// Credentials makes the hello that opens a new connection to the daemon
// kind on host (a fresh credential under LSF_AUTH=eauth).
type Credentials interface {
	Hello(ctx context.Context, daemon, host string) (*api.ConnHello, error)
}

// Daemon kinds, as LSF names them in LSF_EAUTH_CLIENT/LSF_EAUTH_SERVER.
const (
	KindUser    = "user"
	KindLIM     = "lim"
	KindSbatchd = "sbatchd"
	KindMbatchd = "mbatchd"
	KindRES     = "res"
)

// IsRoot reports whether the identity is the superuser.
func (id Identity) IsRoot() bool { return id.UID == 0 }

// Authenticator authenticates the peer of a newly accepted connection, given
// the hello the peer sent.
type Authenticator interface {
	Authenticate(ctx context.Context, conn net.Conn, hello *api.ConnHello) (Identity, error)
}

// ErrDenied is returned when a peer cannot be authenticated. LSF's message
// for it is "User permission denied".
var ErrDenied = errors.New("User permission denied")

// Ident identifies local peers by the owner of their socket.
type Ident struct {
	// ProcRoot is the proc file system root ("/proc" when empty).
	ProcRoot string

	mu    sync.Mutex
	users map[int]userEntry
}

type userEntry struct {
	name string
	gid  int
}

// Authenticate implements Authenticator.
func (a *Ident) Authenticate(_ context.Context, conn net.Conn, hello *api.ConnHello) (Identity, error) {
	peer, ok1 := conn.RemoteAddr().(*net.TCPAddr)
	local, ok2 := conn.LocalAddr().(*net.TCPAddr)
	if !ok1 || !ok2 {
		return Identity{}, fmt.Errorf("%w: ident needs a TCP connection", ErrDenied)
	}
	uid, err := a.SocketOwner(peer.AddrPort(), local.AddrPort())
	if err != nil {
		return Identity{}, fmt.Errorf("%w: %v", ErrDenied, err)
	}
	name, gid, err := a.lookup(uid)
	if err != nil {
		return Identity{}, fmt.Errorf("%w: %v", ErrDenied, err)
	}
	id := Identity{User: name, UID: uid, GID: gid, Addr: peer.AddrPort()}
	if hello != nil {
		id.Host = hello.Host
		// One machine: root and the daemons' own user are trusted to say
		// which daemon they are.
		if hello.Daemon != "" && hello.Daemon != KindUser && (uid == 0 || uid == os.Geteuid()) {
			id.Daemon = hello.Daemon
		}
	}
	return id, nil
}

// SocketOwner returns the uid owning the TCP socket whose local address is
// peer and whose remote address is local: the far end of a connection this
// process accepted.
func (a *Ident) SocketOwner(peer, local netip.AddrPort) (int, error) {
	root := a.ProcRoot
	if root == "" {
		root = "/proc"
	}
	for _, name := range []string{"net/tcp", "net/tcp6"} {
		f, err := os.Open(filepath.Join(root, name))
		if err != nil {
			continue
		}
		uid, found, err := FindSocketOwner(f, peer, local)
		f.Close()
		if err != nil {
			return 0, fmt.Errorf("reading %s: %w", name, err)
		}
		if found {
			return uid, nil
		}
	}
	return 0, fmt.Errorf("connection from %s is not from a local process", peer)
}

// FindSocketOwner scans a /proc/net/tcp{,6} table for the socket with the
// given local and remote addresses and returns its uid.
func FindSocketOwner(r io.Reader, local, remote netip.AddrPort) (uid int, found bool, err error) {
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		if line == 1 {
			continue // header
		}
		f := strings.Fields(sc.Text())
		if len(f) < 8 {
			return 0, false, fmt.Errorf("line %d: %d fields, want at least 8", line, len(f))
		}
		la, err := ParseProcAddr(f[1])
		if err != nil {
			return 0, false, fmt.Errorf("line %d: local address: %w", line, err)
		}
		ra, err := ParseProcAddr(f[2])
		if err != nil {
			return 0, false, fmt.Errorf("line %d: remote address: %w", line, err)
		}
		if sameAddrPort(la, local) && sameAddrPort(ra, remote) {
			u, err := strconv.Atoi(f[7])
			if err != nil {
				return 0, false, fmt.Errorf("line %d: uid %q: %w", line, f[7], err)
			}
			return u, true, nil
		}
	}
	return 0, false, sc.Err()
}

func sameAddrPort(a, b netip.AddrPort) bool {
	return a.Port() == b.Port() && a.Addr().Unmap() == b.Addr().Unmap()
}

// ParseProcAddr parses an address of /proc/net/tcp ("0100007F:1F90") or
// /proc/net/tcp6 (32 hex digits, four little-endian words, then ":port").
func ParseProcAddr(s string) (netip.AddrPort, error) {
	host, port, ok := strings.Cut(s, ":")
	if !ok {
		return netip.AddrPort{}, fmt.Errorf("%q: missing port", s)
	}
	p, err := strconv.ParseUint(port, 16, 16)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("%q: bad port", s)
	}
	switch len(host) {
	case 8:
		v, err := strconv.ParseUint(host, 16, 32)
		if err != nil {
			return netip.AddrPort{}, fmt.Errorf("%q: bad IPv4 address", s)
		}
		b := [4]byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)}
		return netip.AddrPortFrom(netip.AddrFrom4(b), uint16(p)), nil
	case 32:
		var b [16]byte
		for w := 0; w < 4; w++ {
			v, err := strconv.ParseUint(host[w*8:w*8+8], 16, 32)
			if err != nil {
				return netip.AddrPort{}, fmt.Errorf("%q: bad IPv6 address", s)
			}
			b[w*4], b[w*4+1], b[w*4+2], b[w*4+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
		}
		return netip.AddrPortFrom(netip.AddrFrom16(b), uint16(p)), nil
	}
	return netip.AddrPort{}, fmt.Errorf("%q: bad address length", s)
}

func (a *Ident) lookup(uid int) (string, int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if e, ok := a.users[uid]; ok {
		return e.name, e.gid, nil
	}
	u, err := user.LookupId(strconv.Itoa(uid))
	if err != nil {
		return "", 0, fmt.Errorf("uid %d has no user name: %w", uid, err)
	}
	gid, _ := strconv.Atoi(u.Gid)
	if a.users == nil {
		a.users = map[int]userEntry{}
	}
	a.users[uid] = userEntry{name: u.Username, gid: gid}
	return u.Username, gid, nil
}

// Static authenticates every peer as the same identity; for in-process tests.
type Static Identity

// Authenticate implements Authenticator.
func (s Static) Authenticate(context.Context, net.Conn, *api.ConnHello) (Identity, error) {
	return Identity(s), nil
}
