package rpc

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/api/wire"
)

// ErrClosed is returned for calls on a closed or broken connection.
var ErrClosed = &Error{Code: Unavailable, Msg: "rpc: connection closed"}

// MaxClientStreams bounds a client's calls in flight on one connection,
// the server's default MaxStreams: a call past it waits (for a slot, its
// context, or the connection's end) before it is sent.
const MaxClientStreams = 4096

// Client is one connection to a server; safe for concurrent use.
type Client struct {
	conn net.Conn

	wmu sync.Mutex
	w   *bufio.Writer
	buf []byte

	peer    atomic.Int32  // the server's protocol: 0 until its first frame
	slots   chan struct{} // one per stream in flight
	closing chan struct{} // closed by Close

	mu        sync.Mutex
	streams   map[uint64]*ClientStream
	nextID    uint64
	err       error // set once the connection is broken
	done      chan struct{}
	closeOnce sync.Once
}

// Dial connects to addr and sends hello.
func Dial(ctx context.Context, addr string, hello *api.ConnHello) (*Client, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, &Error{Code: Unavailable, Msg: err.Error()}
	}
	return NewClient(conn, hello)
}

// NewClient runs the protocol over an established connection.
func NewClient(conn net.Conn, hello *api.ConnHello) (*Client, error) {
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
		_ = tc.SetKeepAlivePeriod(15 * time.Second)
	}
	c := &Client{conn: conn, w: bufio.NewWriterSize(conn, 32<<10), streams: map[uint64]*ClientStream{},
		done: make(chan struct{}), closing: make(chan struct{}), slots: make(chan struct{}, MaxClientStreams)}
	h := api.ConnHello{}
	if hello != nil {
		h = *hello
	}
	h.Proto = protoVersion
	// The hello is buffered and goes out with the first request: no extra
	// round trip per connection.
	c.buf = appendFrame(c.buf[:0], &frame{typ: frameHello, payload: wire.Marshal(&h)})
	if _, err := c.w.Write(c.buf); err != nil {
		conn.Close()
		return nil, &Error{Code: Unavailable, Msg: err.Error()}
	}
	go c.readLoop()
	return c, nil
}

// Close closes the connection; outstanding calls fail with ErrClosed.
func (c *Client) Close() error {
	c.closeOnce.Do(func() { close(c.closing) })
	err := c.conn.Close()
	<-c.done
	return err
}

// Done is closed when the connection is gone.
func (c *Client) Done() <-chan struct{} { return c.done }

// recvFlow reports whether the server grants and takes window frames.
func (c *Client) recvFlow() bool { return c.peer.Load() >= protoV2 }

// sendFlow reports whether sends wait for credit: until the server's first
// frame tells its version, a client assumes version 2's initial window.
func (c *Client) sendFlow() bool { return c.peer.Load() != protoV1 }

func (c *Client) setPeer(v int32) {
	c.peer.Store(v)
	c.mu.Lock()
	for _, st := range c.streams {
		st.out.wake()
	}
	c.mu.Unlock()
}

// remove forgets a stream and frees its slot (once).
func (c *Client) remove(id uint64) {
	c.mu.Lock()
	if _, ok := c.streams[id]; ok {
		delete(c.streams, id)
		<-c.slots
	}
	c.mu.Unlock()
}

func (c *Client) readLoop() {
	r := bufio.NewReaderSize(c.conn, 32<<10)
	var err error
	for {
		var f *frame
		f, err = readFrame(r)
		if err != nil {
			break
		}
		if f.typ == frameHello {
			var sh api.ServerHello
			if sh.UnmarshalWire(f.payload) == nil && c.peer.Load() == 0 {
				c.setPeer(max(protoV1, min(sh.Proto, protoVersion)))
			}
			continue
		}
		if c.peer.Load() == 0 {
			c.setPeer(protoV1) // a version-2 server says hello first
		}
		c.mu.Lock()
		st := c.streams[f.stream]
		c.mu.Unlock()
		if st == nil {
			continue
		}
		switch f.typ {
		case frameData:
			if c.recvFlow() {
				if e := st.in.push(f.payload, true); e != nil {
					_ = c.write(&frame{typ: frameCancel, stream: st.id})
					st.finish(e)
					c.remove(st.id)
				}
				continue
			}
			if st.in.waitSpace(st.end, c.closing) {
				_ = st.in.push(f.payload, false)
			}
		case frameWindow:
			st.out.grant(f.grant)
		case frameEnd:
			var s api.Status
			if e := s.UnmarshalWire(f.payload); e != nil {
				st.finish(&Error{Code: Internal, Msg: e.Error()})
			} else {
				st.finish(errorOf(&s))
			}
			c.remove(f.stream)
		}
	}
	if err == io.EOF || errors.Is(err, net.ErrClosed) {
		err = ErrClosed
	} else {
		err = &Error{Code: Unavailable, Msg: "rpc: " + err.Error()}
	}
	c.mu.Lock()
	c.err = err
	streams := c.streams
	c.streams = map[uint64]*ClientStream{}
	for range streams {
		<-c.slots
	}
	c.mu.Unlock()
	for _, st := range streams {
		st.finish(err)
	}
	c.conn.Close()
	close(c.done)
}

func (c *Client) write(f *frame) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.buf = appendFrame(c.buf[:0], f)
	if _, err := c.w.Write(c.buf); err != nil {
		return &Error{Code: Unavailable, Msg: err.Error()}
	}
	if err := c.w.Flush(); err != nil {
		return &Error{Code: Unavailable, Msg: err.Error()}
	}
	return nil
}

// ctxError is the RPC error for a context that ended.
func ctxError(err error) error {
	if err == context.DeadlineExceeded {
		return &Error{Code: DeadlineExceeded, Msg: "rpc: deadline exceeded"}
	}
	return &Error{Code: Canceled, Msg: "rpc: canceled"}
}

func (c *Client) open(ctx context.Context, method string, req wire.Message) (*ClientStream, error) {
	if method == "" {
		return nil, &Error{Code: InvalidArgument, Msg: "rpc: a method outside the service description"}
	}
	select {
	case c.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctxError(ctx.Err())
	case <-c.done:
		return nil, ErrClosed
	}
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		<-c.slots
		c.mu.Unlock()
		return nil, err
	}
	c.nextID++
	st := &ClientStream{c: c, id: c.nextID, ctx: ctx, end: make(chan struct{})}
	st.in.init()
	st.out.init()
	c.streams[st.id] = st
	c.mu.Unlock()
	f := &frame{typ: frameRequest, stream: st.id, method: method}
	if dl, ok := ctx.Deadline(); ok {
		f.deadline = dl.UnixNano()
	}
	if req != nil {
		f.payload = wire.Marshal(req)
	}
	if err := c.write(f); err != nil {
		c.remove(st.id)
		return nil, err
	}
	return st, nil
}

// Call makes a unary call: req in, resp out. (A server-streaming method
// may be called so when one reply is expected.)
func (c *Client) Call(ctx context.Context, m api.MethodDesc, req, resp wire.Message) error {
	method := m.RPCMethod().Name()
	if m.RPCMethod().Kind() == api.KindBidi {
		return &Error{Code: InvalidArgument, Msg: "rpc: " + method + " is bidirectional: use Bidi"}
	}
	st, err := c.open(ctx, method, req)
	if err != nil {
		return err
	}
	if err := st.Recv(resp); err != nil {
		if err == io.EOF {
			return &Error{Code: Internal, Msg: "rpc: " + method + ": no reply"}
		}
		return err
	}
	// Wait for the end frame so errors after the reply are not lost.
	if err := st.Recv(nil); err != io.EOF {
		if err == nil {
			return &Error{Code: Internal, Msg: "rpc: " + method + ": more than one reply"}
		}
		return err
	}
	return nil
}

// Stream opens a server-streaming call; read replies with Recv until io.EOF.
func (c *Client) Stream(ctx context.Context, m api.MethodDesc, req wire.Message) (*ClientStream, error) {
	return c.open(ctx, m.RPCMethod().Name(), req)
}

// Bidi opens a bidirectional call with an optional opening request.
func (c *Client) Bidi(ctx context.Context, m api.MethodDesc, req wire.Message) (*ClientStream, error) {
	return c.open(ctx, m.RPCMethod().Name(), req)
}

// ClientStream is the client side of one call.
type ClientStream struct {
	c   *Client
	id  uint64
	ctx context.Context
	in  inbox  // the server's messages
	out outbox // credit for ours

	mu     sync.Mutex
	ended  bool
	err    error
	end    chan struct{}
	sentCl bool
}

func (st *ClientStream) finish(err error) {
	st.mu.Lock()
	if st.ended {
		st.mu.Unlock()
		return
	}
	st.ended = true
	st.err = err
	close(st.end)
	st.mu.Unlock()
	st.in.close()
}

func (st *ClientStream) endErr() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.err
}

// Recv receives the next message into m. It returns io.EOF when the server
// ended the stream successfully, or the stream's error. m may be nil to
// discard. Messages the server sent before the stream ended are received
// first.
func (st *ClientStream) Recv(m wire.Message) error {
	for {
		b, ok, closed, grant := st.in.pop(st.c.recvFlow())
		if grant > 0 {
			_ = st.c.write(&frame{typ: frameWindow, stream: st.id, grant: grant})
		}
		if ok {
			if m == nil {
				return nil
			}
			return m.UnmarshalWire(b)
		}
		if closed {
			if err := st.endErr(); err != nil {
				return err
			}
			return io.EOF
		}
		select {
		case <-st.in.ready:
		case <-st.ctx.Done():
			st.Cancel()
			return ctxError(st.ctx.Err())
		}
	}
}

// Send sends one message on a bidirectional stream. It waits while the
// server has not granted room for it (its handler is not reading), until
// the stream's context ends.
func (st *ClientStream) Send(m wire.Message) error {
	select {
	case <-st.end:
		if err := st.endErr(); err != nil {
			return err
		}
		return ErrClosed
	default:
	}
	b := wire.Marshal(m)
	if err := st.out.acquire(st.ctx, st.end, msgCost(b), st.c.sendFlow); err != nil {
		if err == errStreamDone {
			if e := st.endErr(); e != nil {
				return e
			}
			return ErrClosed
		}
		return ctxError(err)
	}
	return st.c.write(&frame{typ: frameData, stream: st.id, payload: b})
}

// CloseSend tells the server no more messages follow.
func (st *ClientStream) CloseSend() error {
	st.mu.Lock()
	if st.sentCl {
		st.mu.Unlock()
		return nil
	}
	st.sentCl = true
	st.mu.Unlock()
	return st.c.write(&frame{typ: frameEnd, stream: st.id})
}

// Cancel abandons the stream.
func (st *ClientStream) Cancel() {
	st.mu.Lock()
	ended := st.ended
	st.mu.Unlock()
	if !ended {
		_ = st.c.write(&frame{typ: frameCancel, stream: st.id})
		st.finish(&Error{Code: Canceled, Msg: "rpc: canceled"})
		st.c.remove(st.id)
	}
}

// Done is closed when the stream has ended.
func (st *ClientStream) Done() <-chan struct{} { return st.end }
