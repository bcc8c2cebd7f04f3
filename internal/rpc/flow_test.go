package rpc

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/api/wire"
	"github.com/basalt-lsf/basalt/internal/auth"
)

// bigRef is a message of about 1 KiB.
func bigRef(i int64) *api.Status {
	return &api.Status{Code: int32(i), Message: strings.Repeat("x", 1000)}
}

// queued is what an inbox holds, in bytes of cost.
func (in *inbox) queued() int64 {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.bytes
}

// flowServer is testServer plus a stream that floods and a bidi that never
// reads, which hands its stream to stalled.
func flowServer(stalled chan<- *ServerStream) *Server {
	s := testServer()
	HandleStream(s, tFlood, func(ctx context.Context, id auth.Identity, req *api.JobRef, send func(*api.Status) error) error {
		for i := int64(1); i <= req.JobID; i++ {
			if err := send(bigRef(i)); err != nil {
				return err
			}
		}
		return nil
	})
	s.Handle(tStall, func(ctx context.Context, st *ServerStream) error {
		stalled <- st
		<-ctx.Done()
		return ctx.Err()
	})
	return s
}

// callsComplete makes n unary calls on c, each bounded by a deadline.
func callsComplete(t *testing.T, c *Client, n int) {
	t.Helper()
	for i := 1; i <= n; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		var resp api.Status
		err := c.Call(ctx, tEcho, &api.JobRef{JobID: int64(i)}, &resp)
		cancel()
		if err != nil || resp.Code != int32(i) {
			t.Fatalf("unary call %d beside a stalled stream: %v %+v", i, err, resp)
		}
	}
}

// TestStalledClientConsumer: a caller that stops reading a server stream
// stalls only that stream's handler; unary calls on the same connection
// complete, and the client buffers at most a window plus one message.
func TestStalledClientConsumer(t *testing.T) {
	c := dial(t, startServer(t, flowServer(nil)))
	const n = 10000 // 10 MB, 40 windows
	st, err := c.Stream(context.Background(), tFlood, &api.JobRef{JobID: n})
	if err != nil {
		t.Fatal(err)
	}
	var r api.Status
	if err := st.Recv(&r); err != nil || r.Code != 1 {
		t.Fatalf("first message: %v %d", err, r.Code)
	}
	callsComplete(t, c, 200)
	bound := int64(StreamWindow) + msgCost(wire.Marshal(bigRef(n)))
	if q := st.in.queued(); q > bound || q < StreamWindow/2 {
		t.Fatalf("stalled stream buffers %d bytes, want between %d and %d", q, StreamWindow/2, bound)
	}
	// The stream resumes where it stopped and delivers everything in order.
	for i := int64(2); ; i++ {
		err := st.Recv(&r)
		if err == io.EOF {
			if i != n+1 {
				t.Fatalf("stream ended after %d messages, want %d", i-1, n)
			}
			break
		}
		if err != nil || int64(r.Code) != i {
			t.Fatalf("message %d: %v %d", i, err, r.Code)
		}
		if q := st.in.queued(); q > bound {
			t.Fatalf("stream buffers %d bytes, bound %d", q, bound)
		}
	}
}

// TestStalledServerConsumer: a handler that stops reading a bidirectional
// stream does not block the connection's reader (other calls complete),
// the server buffers at most a window plus one message for it, and the
// flooding client's Send waits instead of queueing.
func TestStalledServerConsumer(t *testing.T) {
	stalled := make(chan *ServerStream, 1)
	c := dial(t, startServer(t, flowServer(stalled)))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, err := c.Bidi(ctx, tStall, nil)
	if err != nil {
		t.Fatal(err)
	}
	var sent atomic.Int64
	sendErr := make(chan error, 1)
	go func() {
		for i := int64(1); ; i++ {
			if err := st.Send(bigRef(i)); err != nil {
				sendErr <- err
				return
			}
			sent.Add(1)
		}
	}()
	ss := <-stalled
	callsComplete(t, c, 200)
	cost := msgCost(wire.Marshal(bigRef(1)))
	// The sender runs out of credit: a window's worth plus at most one.
	deadline := time.Now().Add(10 * time.Second)
	for ss.in.queued() < StreamWindow-cost && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if q := ss.in.queued(); q < StreamWindow-cost || q > StreamWindow+cost {
		t.Fatalf("server buffers %d bytes for the stalled stream, want about %d", q, StreamWindow)
	}
	callsComplete(t, c, 10)
	if got, max := sent.Load(), (StreamWindow+cost)/cost+1; got > max {
		t.Fatalf("client sent %d messages to a stalled handler, at most %d fit the window", got, max)
	}
	select {
	case err := <-sendErr:
		t.Fatalf("Send failed while it should wait: %v", err)
	default:
	}
	cancel()
	if err := <-sendErr; CodeOf(err) != Canceled {
		t.Fatalf("Send after cancel: %v", err)
	}
}

// rawConn is a hand-driven peer.
type rawConn struct {
	t *testing.T
	net.Conn
	r *bufio.Reader
}

func rawDial(t *testing.T, addr string, hello *api.ConnHello) *rawConn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	rc := &rawConn{t, c, bufio.NewReader(c)}
	rc.send(&frame{typ: frameHello, payload: wire.Marshal(hello)})
	return rc
}

func (rc *rawConn) send(f *frame) {
	rc.t.Helper()
	if _, err := rc.Write(appendFrame(nil, f)); err != nil {
		rc.t.Fatal(err)
	}
}

func (rc *rawConn) recv() *frame {
	rc.t.Helper()
	f, err := readFrame(rc.r)
	if err != nil {
		rc.t.Fatal(err)
	}
	return f
}

// TestFlowControlViolation: a protocol-2 client that sends past its window
// has its stream ended with ResourceExhausted; the connection goes on.
func TestFlowControlViolation(t *testing.T) {
	stalled := make(chan *ServerStream, 1)
	rc := rawDial(t, startServer(t, flowServer(stalled)), &api.ConnHello{Proto: protoV2})
	rc.send(&frame{typ: frameRequest, stream: 1, method: "T.Stall"})
	<-stalled
	payload := wire.Marshal(bigRef(1))
	for i := 0; i <= StreamWindow/len(payload)+1; i++ {
		rc.send(&frame{typ: frameData, stream: 1, payload: payload})
	}
	// The server's hello leaves with its first reply, before it.
	var sh api.ServerHello
	if f := rc.recv(); f.typ != frameHello || f.stream != 0 || sh.UnmarshalWire(f.payload) != nil || sh.Proto != protoV2 {
		t.Fatalf("first frame from the server: %+v, want its hello", f)
	}
	f := rc.recv()
	var s api.Status
	if f.typ != frameEnd || f.stream != 1 || s.UnmarshalWire(f.payload) != nil || Code(s.Code) != ResourceExhausted {
		t.Fatalf("after flooding: frame %+v, status %+v", f, s)
	}
	rc.send(&frame{typ: frameRequest, stream: 2, method: "T.Echo", payload: wire.Marshal(&api.JobRef{JobID: 7})})
	if f := rc.recv(); f.typ != frameData || f.stream != 2 {
		t.Fatalf("call after the violation: %+v", f)
	}
}

// TestProtocol1Client: a client that predates flow control gets no server
// hello and no window frames, and its calls work as before.
func TestProtocol1Client(t *testing.T) {
	rc := rawDial(t, startServer(t, flowServer(nil)), &api.ConnHello{User: "old"})
	rc.send(&frame{typ: frameRequest, stream: 1, method: "T.Flood", payload: wire.Marshal(&api.JobRef{JobID: 600})})
	for i := int64(1); i <= 600; i++ {
		f := rc.recv()
		var r api.Status
		if f.typ != frameData || f.stream != 1 || r.UnmarshalWire(f.payload) != nil || int64(r.Code) != i {
			t.Fatalf("message %d: frame type %d stream %d code %d", i, f.typ, f.stream, r.Code)
		}
	}
	if f := rc.recv(); f.typ != frameEnd {
		t.Fatalf("after the stream: frame type %d", f.typ)
	}
}

// TestProtocol1Server: against a server that never says hello (protocol
// 1), a client sends without waiting for window frames it will never get.
func TestProtocol1Server(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan int, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		r := bufio.NewReader(c)
		n := 0
		for {
			f, err := readFrame(r)
			if err != nil {
				got <- n
				return
			}
			switch f.typ {
			case frameRequest: // answer at once, as a protocol-1 server's handler may
				c.Write(appendFrame(nil, &frame{typ: frameData, stream: f.stream, payload: wire.Marshal(&api.JobRef{})}))
			case frameData:
				n++
			case frameEnd:
				c.Write(appendFrame(nil, &frame{typ: frameEnd, stream: f.stream, payload: wire.Marshal(&api.Status{})}))
			case frameWindow:
				got <- -1
				return
			}
		}
	}()
	c := dial(t, ln.Addr().String())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := c.Bidi(ctx, tOld, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Recv(&api.JobRef{}); err != nil {
		t.Fatal(err)
	}
	const n = 2 * StreamWindow / 1000
	for i := int64(0); i < n; i++ {
		if err := st.Send(bigRef(i)); err != nil {
			t.Fatalf("send %d to a protocol-1 server: %v", i, err)
		}
	}
	st.CloseSend()
	if err := st.Recv(nil); err != io.EOF {
		t.Fatalf("end: %v", err)
	}
	c.Close()
	if m := <-got; m != n {
		t.Fatalf("server got %d messages, want %d (-1: a window frame)", m, n)
	}
}

// TestClientStreamBound: calls past the client's stream bound wait for a
// slot, and fail with their context if none frees.
func TestClientStreamBound(t *testing.T) {
	c := dial(t, startServer(t, testServer()))
	c.slots = make(chan struct{}, 2)
	ctx, cancel := context.WithCancel(context.Background())
	blocked := make(chan error, 2)
	for i := 0; i < 2; i++ {
		go func() { blocked <- c.Call(ctx, tBlock, &api.JobRef{}, &api.Status{}) }()
	}
	for len(c.slots) < 2 {
		time.Sleep(time.Millisecond)
	}
	short, cancelShort := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancelShort()
	if err := c.Call(short, tEcho, &api.JobRef{JobID: 1}, &api.Status{}); CodeOf(err) != DeadlineExceeded {
		t.Fatalf("call past the bound: %v", err)
	}
	cancel()
	for i := 0; i < 2; i++ {
		if err := <-blocked; CodeOf(err) != Canceled {
			t.Fatalf("blocked call: %v", err)
		}
	}
	callsComplete(t, c, 3)
	if n := len(c.slots); n != 0 {
		t.Fatalf("%d slots held with no call in flight", n)
	}
}

func TestInboxGrants(t *testing.T) {
	in := newInbox()
	msg := make([]byte, 1000)
	var pushed, granted int64
	for i := 0; ; i++ {
		if err := in.push(msg, true); err != nil {
			if !errors.Is(err, errFlowControl) {
				t.Fatal(err)
			}
			break
		}
		pushed += msgCost(msg)
	}
	if pushed < StreamWindow || pushed > StreamWindow+msgCost(msg) {
		t.Fatalf("accepted %d bytes without a grant, window %d", pushed, StreamWindow)
	}
	for {
		_, ok, _, g := in.pop(true)
		if !ok {
			break
		}
		granted += g
	}
	if granted < StreamWindow/2 || granted > pushed {
		t.Fatalf("granted %d of %d consumed bytes", granted, pushed)
	}
	in.close()
	if _, ok, closed, _ := in.pop(true); ok || !closed {
		t.Fatalf("pop after close: ok=%v closed=%v", ok, closed)
	}
}

// TestMaxConns: past MaxConns the server stops accepting; a new peer waits
// (in the listener's backlog) until a connection closes.
func TestMaxConns(t *testing.T) {
	s := testServer()
	s.MaxConns = 1
	addr := startServer(t, s)
	first := dial(t, addr)
	callsComplete(t, first, 1)
	second := dial(t, addr)
	short, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := second.Call(short, tEcho, &api.JobRef{JobID: 1}, &api.Status{}); CodeOf(err) != DeadlineExceeded {
		t.Fatalf("call on a connection past the bound: %v", err)
	}
	first.Close()
	callsComplete(t, second, 3)
}
