package rpc

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/api/wire"
	"github.com/basalt-lsf/basalt/internal/auth"
)

// Handler serves one stream.
type Handler func(ctx context.Context, st *ServerStream) error

// msgPtr constrains a type parameter to a pointer to a wire message.
type msgPtr[T any] interface {
	*T
	wire.Message
}

// Server dispatches calls to registered handlers.
type Server struct {
	// Auth authenticates each connection; required.
	Auth auth.Authenticator
	// Log, when set, receives connection-level problems.
	Log *slog.Logger
	// MaxStreams bounds concurrent streams per connection (default 4096).
	MaxStreams int
	// MaxConns bounds open connections (default 16384): past it Serve
	// stops accepting until one closes, and new peers wait in the
	// listener's backlog.
	MaxConns int
	// HelloTimeout bounds the time a new connection has to send its hello
	// (default 10 s): a peer that connects and stays silent, or sends half
	// a hello, is closed.
	HelloTimeout time.Duration
	// MaxPendingPerPeer bounds the connections of one peer address that
	// have not yet been authenticated (default 64); past it new ones are
	// closed at once.
	MaxPendingPerPeer int
	// Gate, when set, is asked before each call is handled; its error
	// refuses the call (an mbatchd replica that does not lead refuses
	// all but a few methods). Set it before Serve.
	Gate func(method string) error
	// Timed, when set, is told how long each call's handler ran (the
	// daemons' timing level: lsadmin limtime, badmin mbdtime ...). Set it
	// before Serve.
	Timed func(method string, took time.Duration)
	// AcceptErrors counts accept errors Serve retried (descriptors
	// exhausted, ...); a daemon may report it in its status.
	AcceptErrors atomic.Int64
	// lastAcceptErr is when the last accept failed (unix nanoseconds), 0
	// once an accept has succeeded since: see AcceptFailing.
	lastAcceptErr atomic.Int64

	mu        sync.Mutex
	handlers  map[string]Handler
	upgrades  map[string]UpgradeHandler
	listeners map[net.Listener]struct{}
	conns     map[*serverConn]struct{}
	shutdown  bool
	connSlots chan struct{}      // one per open connection
	pending   map[netip.Addr]int // connections not yet authenticated, per peer address
	base      context.Context
	cancel    context.CancelFunc
	wg        sync.WaitGroup // handlers and connection loops
}

// NewServer returns a server authenticating with a.
func NewServer(a auth.Authenticator) *Server {
	ctx, cancel := context.WithCancel(context.Background())
	return &Server{Auth: a, handlers: map[string]Handler{}, listeners: map[net.Listener]struct{}{},
		conns: map[*serverConn]struct{}{}, base: ctx, cancel: cancel}
}

// AcceptFailing reports whether the server cannot take new connections:
// an accept failed within window before now and none has succeeded since.
// Serve retries a failing accept at most a second apart, so a listener
// that keeps failing stays reported; a daemon says so in its status (a
// LIM's host shows unavail, an sbatchd's unreach).
func (s *Server) AcceptFailing(now time.Time, window time.Duration) bool {
	t := s.lastAcceptErr.Load()
	return t != 0 && now.Sub(time.Unix(0, t)) < window
}

// Handle registers a raw stream handler for m (bidirectional methods).
func (s *Server) Handle(m api.MethodDesc, h Handler) {
	method := m.RPCMethod().Name()
	if method == "" {
		panic("rpc: a method outside the service description")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.handlers[method]; dup {
		panic("rpc: duplicate handler for " + method)
	}
	s.handlers[method] = h
}

// HandleUnary registers a request/response method.
func HandleUnary[Req, Resp any, PReq msgPtr[Req], PResp msgPtr[Resp]](s *Server, m api.Unary[Req, Resp],
	h func(ctx context.Context, id auth.Identity, req PReq) (PResp, error)) {
	method := m.Name()
	s.Handle(m, func(ctx context.Context, st *ServerStream) error {
		req := PReq(new(Req))
		if err := req.UnmarshalWire(st.request); err != nil {
			return Errorf(InvalidArgument, "%s: %v", method, err)
		}
		resp, err := h(ctx, st.ident, req)
		if err != nil {
			return err
		}
		return st.sendLast(resp)
	})
}

// HandleStream registers a server-streaming method: one request, any number
// of replies.
func HandleStream[Req, Resp any, PReq msgPtr[Req], PResp msgPtr[Resp]](s *Server, m api.ServerStream[Req, Resp],
	h func(ctx context.Context, id auth.Identity, req PReq, send func(PResp) error) error) {
	method := m.Name()
	s.Handle(m, func(ctx context.Context, st *ServerStream) error {
		req := PReq(new(Req))
		if err := req.UnmarshalWire(st.request); err != nil {
			return Errorf(InvalidArgument, "%s: %v", method, err)
		}
		return h(ctx, st.ident, req, func(m PResp) error { return st.Send(m) })
	})
}

func (s *Server) warn(msg string, args ...any) {
	if s.Log != nil {
		s.Log.Warn(msg, args...)
	}
}

// Serve accepts connections on ln until Shutdown or until ln is closed,
// and then returns nil. Other accept errors are retried with back-off.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.shutdown {
		s.mu.Unlock()
		ln.Close()
		return nil
	}
	s.listeners[ln] = struct{}{}
	if s.connSlots == nil {
		n := s.MaxConns
		if n <= 0 {
			n = 16384
		}
		s.connSlots = make(chan struct{}, n)
	}
	slots := s.connSlots
	s.mu.Unlock()
	var backoff time.Duration
	for {
		select {
		case slots <- struct{}{}:
		case <-s.base.Done(): // Shutdown
			s.mu.Lock()
			delete(s.listeners, ln)
			s.mu.Unlock()
			return nil
		}
		c, err := ln.Accept()
		if err != nil {
			<-slots
			s.mu.Lock()
			down := s.shutdown
			s.mu.Unlock()
			if down || errors.Is(err, net.ErrClosed) {
				s.mu.Lock()
				delete(s.listeners, ln)
				s.mu.Unlock()
				return nil
			}
			// Out of descriptors (EMFILE, ENFILE), a connection reset
			// before it was accepted...: back off and accept again, as
			// net/http does, instead of leaving the listener closed while
			// the daemon stays up.
			s.AcceptErrors.Add(1)
			s.lastAcceptErr.Store(time.Now().UnixNano())
			if backoff == 0 {
				backoff = 5 * time.Millisecond
			} else {
				backoff = min(2*backoff, time.Second)
			}
			s.warn("rpc: accept; retrying", "err", err, "in", backoff)
			select {
			case <-time.After(backoff):
			case <-s.base.Done():
			}
			continue
		}
		backoff = 0
		if s.lastAcceptErr.Load() != 0 {
			s.lastAcceptErr.Store(0)
		}
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetKeepAlivePeriod(15 * time.Second)
			_ = tc.SetNoDelay(true)
		}
		sc := &serverConn{srv: s, conn: c, w: bufio.NewWriterSize(c, 32<<10), streams: map[uint64]*ServerStream{}}
		s.mu.Lock()
		if s.shutdown {
			s.mu.Unlock()
			c.Close()
			<-slots
			return nil
		}
		if !s.addPending(sc) {
			s.mu.Unlock()
			c.Close()
			<-slots
			continue
		}
		s.conns[sc] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go sc.serve()
	}
}

// maxHello bounds the hello frame and every frame of a connection whose
// authentication failed: what a peer that has not proved who it is may
// make a daemon read at once (credentials of site eauth programs, Kerberos
// tickets included, are a few kilobytes).
const maxHello = 64 << 10

// addPending counts sc among its peer address's connections that have not
// been authenticated yet; false when the peer already has too many. Called
// with s.mu held.
func (s *Server) addPending(sc *serverConn) bool {
	ap, err := netip.ParseAddrPort(sc.conn.RemoteAddr().String())
	if err != nil {
		return true // not an IP connection (a pipe in tests)
	}
	max := s.MaxPendingPerPeer
	if max <= 0 {
		max = 64
	}
	a := ap.Addr().Unmap()
	if s.pending[a] >= max {
		s.warn("rpc: too many connections waiting for authentication; closing", "peer", a)
		return false
	}
	if s.pending == nil {
		s.pending = map[netip.Addr]int{}
	}
	s.pending[a]++
	sc.pendingAddr = a
	return true
}

// donePending ends sc's count among its peer's unauthenticated connections.
func (s *Server) donePending(sc *serverConn) {
	if !sc.pendingAddr.IsValid() {
		return
	}
	s.mu.Lock()
	if s.pending[sc.pendingAddr]--; s.pending[sc.pendingAddr] <= 0 {
		delete(s.pending, sc.pendingAddr)
	}
	s.mu.Unlock()
	sc.pendingAddr = netip.Addr{}
}

// Shutdown stops accepting connections, cancels every stream's context, and
// waits for handlers to return or ctx to end, then closes all connections.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.shutdown = true
	for ln := range s.listeners {
		ln.Close()
	}
	s.mu.Unlock()
	s.cancel()
	done := make(chan struct{})
	go func() {
		s.mu.Lock()
		conns := make([]*serverConn, 0, len(s.conns))
		for c := range s.conns {
			conns = append(conns, c)
		}
		s.mu.Unlock()
		for _, c := range conns {
			c.waitHandlers()
			c.conn.Close()
		}
		s.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		s.mu.Lock()
		for c := range s.conns {
			c.conn.Close()
		}
		s.mu.Unlock()
		return ctx.Err()
	}
}

type serverConn struct {
	srv   *Server
	conn  net.Conn
	ident auth.Identity
	// pendingAddr is the peer address counted in srv.pending until the
	// connection is authenticated (owned by the connection's goroutine).
	pendingAddr netip.Addr

	wmu sync.Mutex
	w   *bufio.Writer
	buf []byte

	proto int32 // the client's protocol version

	mu       sync.Mutex
	streams  map[uint64]*ServerStream
	handlers sync.WaitGroup
	closing  bool // set by waitHandlers: no handler starts after it
}

// waitHandlers waits for the connection's handlers; none starts after it
// is called (a WaitGroup's Add must not race with its Wait).
func (c *serverConn) waitHandlers() {
	c.mu.Lock()
	c.closing = true
	c.mu.Unlock()
	c.handlers.Wait()
}

func (c *serverConn) write(f *frame) error { return c.writeFrame(f, true) }

// flow reports whether the client speaks protocol 2 (window frames).
func (c *serverConn) flow() bool { return c.proto >= protoV2 }

// writeFrame writes f, and sends what is buffered when flush is set. A
// frame left unflushed goes with the next flushed one: a unary reply goes
// out in one write with the end frame that follows it.
func (c *serverConn) writeFrame(f *frame, flush bool) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.buf = appendFrame(c.buf[:0], f)
	if _, err := c.w.Write(c.buf); err != nil {
		return err
	}
	if !flush {
		return nil
	}
	return c.w.Flush()
}

func (c *serverConn) serve() {
	defer c.srv.wg.Done()
	defer func() { <-c.srv.connSlots }()
	handedOver := false
	defer func() {
		if !handedOver {
			c.conn.Close()
		}
		c.mu.Lock()
		for _, st := range c.streams {
			st.cancel()
			st.in.close()
		}
		c.mu.Unlock()
		c.handlers.Wait()
		c.srv.mu.Lock()
		delete(c.srv.conns, c)
		c.srv.mu.Unlock()
	}()
	defer c.srv.donePending(c)
	helloTimeout := c.srv.HelloTimeout
	if helloTimeout <= 0 {
		helloTimeout = 10 * time.Second
	}
	_ = c.conn.SetReadDeadline(time.Now().Add(helloTimeout))
	r := bufio.NewReaderSize(c.conn, 32<<10)
	f, err := readFrameMax(r, maxHello)
	if err != nil {
		if err != io.EOF {
			c.srv.warn("rpc: reading hello", "peer", c.conn.RemoteAddr(), "err", err)
		}
		return
	}
	if f.typ != frameHello {
		c.srv.warn("rpc: first frame is not a hello", "peer", c.conn.RemoteAddr())
		return
	}
	var hello api.ConnHello
	if err := hello.UnmarshalWire(f.payload); err != nil {
		c.srv.warn("rpc: connection", "peer", c.conn.RemoteAddr(), "err", err)
		return
	}
	c.proto = max(protoV1, min(hello.Proto, protoVersion))
	if c.flow() && hello.Upgrade == "" {
		// Before any other frame, so the client knows it may use window
		// frames before it reads a stream's first message. It leaves with
		// the first reply.
		_ = c.writeFrame(&frame{typ: frameHello, payload: wire.Marshal(&api.ServerHello{Proto: c.proto})}, false)
	}
	actx, acancel := context.WithTimeout(c.srv.base, helloTimeout)
	ident, authErr := c.srv.Auth.Authenticate(actx, c.conn, &hello)
	acancel()
	c.ident = ident
	c.srv.donePending(c)
	if hello.Upgrade != "" {
		handedOver = c.upgrade(r, &hello, ident, authErr)
		return
	}
	limit := uint32(MaxFrameSize)
	if authErr != nil {
		// A peer that failed to authenticate gets its requests refused
		// for at most one more hello timeout, in frames no larger than a
		// hello, and is then closed.
		limit = maxHello
		// (The Authenticator logs why: eauth's says it once, with
		// the reason its answer to the peer leaves out.)
		_ = c.conn.SetReadDeadline(time.Now().Add(helloTimeout))
	} else {
		_ = c.conn.SetReadDeadline(time.Time{})
	}
	for {
		f, err := readFrameMax(r, limit)
		if err != nil {
			var fe *FrameError
			if errors.As(err, &fe) || errors.Is(err, errFrameTooLarge) {
				c.srv.warn("rpc: connection", "peer", c.conn.RemoteAddr(), "err", err)
			}
			return
		}
		switch f.typ {
		case frameRequest:
			if authErr != nil {
				_ = c.write(&frame{typ: frameEnd, stream: f.stream, payload: wire.Marshal(statusOf(Errorf(Unauthenticated, "%v", authErr)))})
				continue
			}
			c.startStream(f)
		case frameData:
			c.mu.Lock()
			st := c.streams[f.stream]
			c.mu.Unlock()
			if st != nil {
				c.deliver(st, f.payload)
			}
		case frameWindow:
			c.mu.Lock()
			st := c.streams[f.stream]
			c.mu.Unlock()
			if st != nil {
				st.out.grant(f.grant)
			}
		case frameEnd:
			c.mu.Lock()
			st := c.streams[f.stream]
			c.mu.Unlock()
			if st != nil {
				st.in.close()
			}
		case frameCancel:
			c.mu.Lock()
			st := c.streams[f.stream]
			c.mu.Unlock()
			if st != nil {
				st.cancel()
			}
		default:
			c.srv.warn("rpc: unexpected frame type", "peer", c.conn.RemoteAddr(), "type", f.typ)
			return
		}
	}
}

func (c *serverConn) startStream(f *frame) {
	c.srv.mu.Lock()
	h := c.srv.handlers[f.method]
	c.srv.mu.Unlock()
	if h == nil {
		_ = c.write(&frame{typ: frameEnd, stream: f.stream, payload: wire.Marshal(statusOf(Errorf(Unimplemented, "rpc: unknown method %q", f.method)))})
		return
	}
	if gate := c.srv.Gate; gate != nil {
		if err := gate(f.method); err != nil {
			_ = c.write(&frame{typ: frameEnd, stream: f.stream, payload: wire.Marshal(statusOf(err))})
			return
		}
	}
	max := c.srv.MaxStreams
	if max == 0 {
		max = 4096
	}
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		_ = c.write(&frame{typ: frameEnd, stream: f.stream, payload: wire.Marshal(statusOf(Errorf(Unavailable, "rpc: server shutting down")))})
		return
	}
	if _, dup := c.streams[f.stream]; dup || len(c.streams) >= max {
		c.mu.Unlock()
		_ = c.write(&frame{typ: frameEnd, stream: f.stream, payload: wire.Marshal(statusOf(Errorf(Unavailable, "rpc: too many streams or duplicate stream id")))})
		return
	}
	ctx, cancel := context.WithCancel(c.srv.base)
	if f.deadline != 0 {
		var dcancel context.CancelFunc
		ctx, dcancel = context.WithDeadline(ctx, time.Unix(0, f.deadline))
		prev := cancel
		cancel = func() { dcancel(); prev() }
	}
	st := &ServerStream{conn: c, id: f.stream, method: f.method, ident: c.ident, request: f.payload,
		ctx: ctx, cancel: cancel}
	st.in.init()
	st.out.init()
	c.streams[f.stream] = st
	c.handlers.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.handlers.Done()
		start := time.Now()
		err := safeCall(h, ctx, st)
		if timed := c.srv.Timed; timed != nil {
			timed(f.method, time.Since(start))
		}
		if e := st.failure(); e != nil {
			err = e
		} else if err == nil && ctx.Err() == context.DeadlineExceeded {
			err = Errorf(DeadlineExceeded, "rpc: %s: deadline exceeded", f.method)
		}
		c.mu.Lock()
		delete(c.streams, f.stream)
		c.mu.Unlock()
		cancel()
		_ = c.write(&frame{typ: frameEnd, stream: f.stream, payload: wire.Marshal(statusOf(err))})
	}()
}

// safeCall runs a handler, turning a panic into an Internal error: a daemon
// never dies of a bad request.
func safeCall(h Handler, ctx context.Context, st *ServerStream) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = Errorf(Internal, "rpc: %s: internal error: %v", st.method, r)
			st.conn.srv.warn("rpc: panic in handler", "method", st.method, "panic", r)
		}
	}()
	return h(ctx, st)
}

// ServerStream is the server side of one call.
type ServerStream struct {
	conn    *serverConn
	id      uint64
	method  string
	ident   auth.Identity
	request []byte
	ctx     context.Context
	cancel  context.CancelFunc
	in      inbox  // the client's messages
	out     outbox // credit for ours

	failMu sync.Mutex
	fail   error // the client broke flow control
}

// Identity is the authenticated identity of the caller.
func (st *ServerStream) Identity() auth.Identity { return st.ident }

// Context is the stream's context: canceled when the client cancels, the
// deadline passes or the server shuts down.
func (st *ServerStream) Context() context.Context { return st.ctx }

// Request decodes the message that opened the stream into m.
func (st *ServerStream) Request(m wire.Message) error { return m.UnmarshalWire(st.request) }

// Send sends one message to the client. It waits while the client has not
// granted room for it (its caller is not reading), until the stream's
// context ends.
func (st *ServerStream) Send(m wire.Message) error { return st.send(m, true) }

// sendLast is Send for a stream's last message: the end frame, which the
// handler's return writes at once, flushes it.
func (st *ServerStream) sendLast(m wire.Message) error { return st.send(m, false) }

func (st *ServerStream) send(m wire.Message, flush bool) error {
	if err := st.ctx.Err(); err != nil {
		return err
	}
	b := wire.Marshal(m)
	if err := st.out.acquire(st.ctx, nil, msgCost(b), st.conn.flow); err != nil {
		return err
	}
	return st.conn.writeFrame(&frame{typ: frameData, stream: st.id, payload: b}, flush)
}

// Recv receives the client's next message into m (bidirectional calls). It
// returns io.EOF once the client has finished sending.
func (st *ServerStream) Recv(m wire.Message) error {
	for {
		b, ok, closed, grant := st.in.pop(st.conn.flow())
		if grant > 0 {
			_ = st.conn.write(&frame{typ: frameWindow, stream: st.id, grant: grant})
		}
		if ok {
			return m.UnmarshalWire(b)
		}
		if closed {
			return io.EOF
		}
		select {
		case <-st.in.ready:
		case <-st.ctx.Done():
			return st.ctx.Err()
		}
	}
}

func (st *ServerStream) failure() error {
	st.failMu.Lock()
	defer st.failMu.Unlock()
	return st.fail
}

// deliver queues a client message for st. A protocol-2 client that sends
// past its window fails the stream; for a protocol-1 client the read loop
// waits while the stream's queue is full (as protocol 1 did).
func (c *serverConn) deliver(st *ServerStream, b []byte) {
	if c.flow() {
		if err := st.in.push(b, true); err != nil {
			st.failMu.Lock()
			st.fail = err
			st.failMu.Unlock()
			st.in.close()
			st.cancel()
		}
		return
	}
	if st.in.waitSpace(st.ctx.Done(), nil) {
		_ = st.in.push(b, false)
	}
}
