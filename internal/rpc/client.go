package rpc

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/api/wire"
)

// ErrClosed is returned for calls on a closed or broken connection.
var ErrClosed = &Error{Code: Unavailable, Msg: "rpc: connection closed"}

// Client is one connection to a server; safe for concurrent use.
type Client struct {
	conn net.Conn

	wmu sync.Mutex
	w   *bufio.Writer
	buf []byte

	mu      sync.Mutex
	streams map[uint64]*ClientStream
	nextID  uint64
	err     error // set once the connection is broken
	done    chan struct{}
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
	c := &Client{conn: conn, w: bufio.NewWriterSize(conn, 32<<10), streams: map[uint64]*ClientStream{}, done: make(chan struct{})}
	if hello == nil {
		hello = &api.ConnHello{}
	}
	// The hello is buffered and goes out with the first request: no extra
	// round trip per connection.
	c.buf = appendFrame(c.buf[:0], &frame{typ: frameHello, payload: wire.Marshal(hello)})
	if _, err := c.w.Write(c.buf); err != nil {
		conn.Close()
		return nil, &Error{Code: Unavailable, Msg: err.Error()}
	}
	go c.readLoop()
	return c, nil
}

// Close closes the connection; outstanding calls fail with ErrClosed.
func (c *Client) Close() error {
	err := c.conn.Close()
	<-c.done
	return err
}

// Done is closed when the connection is gone.
func (c *Client) Done() <-chan struct{} { return c.done }

func (c *Client) readLoop() {
	r := bufio.NewReaderSize(c.conn, 32<<10)
	var err error
	for {
		var f *frame
		f, err = readFrame(r)
		if err != nil {
			break
		}
		c.mu.Lock()
		st := c.streams[f.stream]
		c.mu.Unlock()
		if st == nil {
			continue
		}
		switch f.typ {
		case frameData:
			st.deliver(f.payload)
		case frameEnd:
			var s api.Status
			if e := s.UnmarshalWire(f.payload); e != nil {
				st.finish(&Error{Code: Internal, Msg: e.Error()})
			} else {
				st.finish(errorOf(&s))
			}
			c.mu.Lock()
			delete(c.streams, f.stream)
			c.mu.Unlock()
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

func (c *Client) open(ctx context.Context, method string, req wire.Message) (*ClientStream, error) {
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return nil, err
	}
	c.nextID++
	st := &ClientStream{c: c, id: c.nextID, in: make(chan []byte, 4), end: make(chan struct{})}
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
		c.mu.Lock()
		delete(c.streams, st.id)
		c.mu.Unlock()
		return nil, err
	}
	st.ctx = ctx
	return st, nil
}

// Call makes a unary call: req in, resp out.
func (c *Client) Call(ctx context.Context, method string, req, resp wire.Message) error {
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
func (c *Client) Stream(ctx context.Context, method string, req wire.Message) (*ClientStream, error) {
	return c.open(ctx, method, req)
}

// Bidi opens a bidirectional call with an optional opening request.
func (c *Client) Bidi(ctx context.Context, method string, req wire.Message) (*ClientStream, error) {
	return c.open(ctx, method, req)
}

// ClientStream is the client side of one call.
type ClientStream struct {
	c   *Client
	id  uint64
	ctx context.Context

	mu     sync.Mutex
	in     chan []byte
	queue  [][]byte // overflow when in is full; never blocks the read loop
	ended  bool
	err    error
	end    chan struct{}
	sentCl bool
}

func (st *ClientStream) deliver(b []byte) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if len(st.queue) == 0 {
		select {
		case st.in <- b:
			return
		default:
		}
	}
	st.queue = append(st.queue, b)
}

func (st *ClientStream) finish(err error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.ended {
		return
	}
	st.ended = true
	st.err = err
	close(st.end)
}

// next returns the next queued payload, if any. The channel is looked at
// under the lock deliver holds: looked at before it, a channel that was
// empty could fill and overflow into the queue before the queue is read,
// and a newer payload would be returned first.
func (st *ClientStream) next() ([]byte, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	select {
	case b := <-st.in:
		return b, true
	default:
	}
	if len(st.queue) > 0 {
		b := st.queue[0]
		st.queue = st.queue[1:]
		return b, true
	}
	return nil, false
}

// Recv receives the next message into m. It returns io.EOF when the server
// ended the stream successfully, or the stream's error. m may be nil to
// discard.
func (st *ClientStream) Recv(m wire.Message) error {
	for {
		if b, ok := st.next(); ok {
			if m == nil {
				return nil
			}
			return m.UnmarshalWire(b)
		}
		select {
		case b := <-st.in:
			if m == nil {
				return nil
			}
			return m.UnmarshalWire(b)
		case <-st.end:
			if b, ok := st.next(); ok {
				if m == nil {
					return nil
				}
				return m.UnmarshalWire(b)
			}
			if st.err != nil {
				return st.err
			}
			return io.EOF
		case <-st.ctx.Done():
			st.Cancel()
			if st.ctx.Err() == context.DeadlineExceeded {
				return &Error{Code: DeadlineExceeded, Msg: "rpc: deadline exceeded"}
			}
			return &Error{Code: Canceled, Msg: "rpc: canceled"}
		}
	}
}

// Send sends one message on a bidirectional stream.
func (st *ClientStream) Send(m wire.Message) error {
	select {
	case <-st.end:
		if st.err != nil {
			return st.err
		}
		return ErrClosed
	default:
	}
	return st.c.write(&frame{typ: frameData, stream: st.id, payload: wire.Marshal(m)})
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
		st.c.mu.Lock()
		delete(st.c.streams, st.id)
		st.c.mu.Unlock()
	}
}

// Done is closed when the stream has ended.
func (st *ClientStream) Done() <-chan struct{} { return st.end }
