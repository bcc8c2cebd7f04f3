package rpc

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/api/wire"
	"github.com/basalt-lsf/basalt/internal/auth"
)

// UpgradeHandler decides on a connection whose hello asked for an upgrade,
// once the peer is authenticated as id: an error refuses the peer, which
// is told why and closed; otherwise take is given the connection (after
// the peer was told yes), owns it from then on (it must close it) and
// returns at once.
type UpgradeHandler func(id auth.Identity) (take func(conn net.Conn), err error)

// HandleUpgrade registers h for hellos whose Upgrade is name: a protocol
// other than this package's frames (mbatchd replicas' raft transport) that
// shares the daemon's port and its authentication.
func (s *Server) HandleUpgrade(name string, h UpgradeHandler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.upgrades == nil {
		s.upgrades = map[string]UpgradeHandler{}
	}
	if _, dup := s.upgrades[name]; dup || name == "" {
		panic("rpc: duplicate or empty upgrade " + name)
	}
	s.upgrades[name] = h
}

// upgrade answers a hello asking for an upgrade; it reports whether the
// connection was handed over (the caller then must not close it).
func (c *serverConn) upgrade(r *bufio.Reader, hello *api.ConnHello, ident auth.Identity, authErr error) bool {
	c.srv.mu.Lock()
	h := c.srv.upgrades[hello.Upgrade]
	c.srv.mu.Unlock()
	refuse := func(err error) bool {
		_ = c.writeFrame(&frame{typ: frameEnd, stream: upgradeStream, payload: wire.Marshal(statusOf(err))}, true)
		return false
	}
	switch {
	case authErr != nil:
		return refuse(Errorf(Unauthenticated, "%v", authErr))
	case h == nil:
		return refuse(Errorf(Unimplemented, "rpc: unknown upgrade %q", hello.Upgrade))
	}
	take, err := h(ident)
	if err != nil {
		c.srv.warn("rpc: upgrade refused", "peer", c.conn.RemoteAddr(), "upgrade", hello.Upgrade, "err", err)
		return refuse(Errorf(PermissionDenied, "%v", err))
	}
	if err := c.writeFrame(&frame{typ: frameHello, payload: wire.Marshal(&api.ServerHello{Proto: c.proto, Upgraded: true})}, true); err != nil {
		return false
	}
	_ = c.conn.SetReadDeadline(time.Time{})
	take(&bufferedConn{Conn: c.conn, r: r})
	return true
}

// upgradeStream carries a refused upgrade's end frame (stream 0 is the
// connection's own).
const upgradeStream = 1

// bufferedConn reads what the server's reader already holds first.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (b *bufferedConn) Read(p []byte) (int, error) { return b.r.Read(p) }

// DialUpgrade connects to addr, sends hello asking for the upgrade name,
// and returns the connection once the server has authenticated it and
// handed it to its handler of that name.
func DialUpgrade(ctx context.Context, addr string, hello *api.ConnHello, name string) (net.Conn, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, &Error{Code: Unavailable, Msg: err.Error()}
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
		_ = tc.SetKeepAlivePeriod(15 * time.Second)
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	fail := func(err error) (net.Conn, error) {
		conn.Close()
		return nil, err
	}
	h := api.ConnHello{}
	if hello != nil {
		h = *hello
	}
	h.Proto, h.Upgrade = protoVersion, name
	if _, err := conn.Write(appendFrame(nil, &frame{typ: frameHello, payload: wire.Marshal(&h)})); err != nil {
		return fail(&Error{Code: Unavailable, Msg: err.Error()})
	}
	r := bufio.NewReaderSize(conn, 32<<10)
	f, err := readFrameMax(r, maxHello)
	if err != nil {
		return fail(&Error{Code: Unavailable, Msg: fmt.Sprintf("rpc: upgrade %s: %v", name, err)})
	}
	switch f.typ {
	case frameHello:
		var sh api.ServerHello
		if err := sh.UnmarshalWire(f.payload); err != nil || !sh.Upgraded {
			return fail(&Error{Code: Unavailable, Msg: fmt.Sprintf("rpc: upgrade %s: the server did not upgrade the connection", name)})
		}
	case frameEnd:
		var st api.Status
		if err := st.UnmarshalWire(f.payload); err != nil {
			return fail(&Error{Code: Unavailable, Msg: fmt.Sprintf("rpc: upgrade %s: %v", name, err)})
		}
		return fail(errorOf(&st))
	default:
		return fail(&Error{Code: Unavailable, Msg: fmt.Sprintf("rpc: upgrade %s: unexpected frame type %d", name, f.typ)})
	}
	_ = conn.SetDeadline(time.Time{})
	return &bufferedConn{Conn: conn, r: r}, nil
}
