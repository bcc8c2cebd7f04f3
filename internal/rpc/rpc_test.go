package rpc

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
)

type denyAll struct{}

func (denyAll) Authenticate(context.Context, net.Conn, *api.ConnHello) (auth.Identity, error) {
	return auth.Identity{}, auth.ErrDenied
}

// startServer runs s on a loopback listener and returns its address.
func startServer(t *testing.T, s *Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serveOn(t, s, ln)
	return ln.Addr().String()
}

// serveOn runs s on ln until the test ends.
func serveOn(t *testing.T, s *Server, ln net.Listener) {
	t.Helper()
	go s.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
}

func dial(t *testing.T, addr string) *Client {
	t.Helper()
	c, err := Dial(context.Background(), addr, &api.ConnHello{User: "alice", Host: "host1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func testServer() *Server {
	s := NewServer(auth.Static{User: "alice", UID: 1001})
	HandleUnary(s, tEcho, func(ctx context.Context, id auth.Identity, req *api.JobRef) (*api.Status, error) {
		return &api.Status{Code: int32(req.JobID), Message: id.User}, nil
	})
	HandleUnary(s, tFail, func(ctx context.Context, id auth.Identity, req *api.JobRef) (*api.Status, error) {
		return nil, Errorf(PermissionDenied, "User permission denied")
	})
	HandleUnary(s, tPanic, func(ctx context.Context, id auth.Identity, req *api.JobRef) (*api.Status, error) {
		var m map[string]int
		m["boom"] = 1
		return nil, nil
	})
	HandleUnary(s, tBlock, func(ctx context.Context, id auth.Identity, req *api.JobRef) (*api.Status, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	HandleStream(s, tCount, func(ctx context.Context, id auth.Identity, req *api.JobRef, send func(*api.JobRef) error) error {
		for i := int64(1); i <= req.JobID; i++ {
			if err := send(&api.JobRef{JobID: i}); err != nil {
				return err
			}
		}
		if req.Index == 1 {
			return Errorf(Internal, "stopped after %d", req.JobID)
		}
		return nil
	})
	s.Handle(tSum, func(ctx context.Context, st *ServerStream) error {
		var sum int64
		for {
			var r api.JobRef
			err := st.Recv(&r)
			if err == io.EOF {
				return st.Send(&api.JobRef{JobID: sum})
			}
			if err != nil {
				return err
			}
			sum += r.JobID
			if err := st.Send(&api.JobRef{JobID: sum}); err != nil {
				return err
			}
		}
	})
	return s
}

func TestUnary(t *testing.T) {
	c := dial(t, startServer(t, testServer()))
	var resp api.Status
	if err := c.Call(context.Background(), tEcho, &api.JobRef{JobID: 42}, &resp); err != nil {
		t.Fatal(err)
	}
	if resp.Code != 42 || resp.Message != "alice" {
		t.Fatalf("resp = %+v", resp)
	}
}

func TestErrors(t *testing.T) {
	c := dial(t, startServer(t, testServer()))
	tests := []struct {
		method api.MethodDesc
		code   Code
		msg    string
	}{
		{tFail, PermissionDenied, "User permission denied"},
		{tPanic, Internal, "rpc: T.Panic: internal error: assignment to entry in nil map"},
		{tNope, Unimplemented, `rpc: unknown method "T.Nope"`},
	}
	for _, tc := range tests {
		err := c.Call(context.Background(), tc.method, &api.JobRef{}, &api.Status{})
		if CodeOf(err) != tc.code || err.Error() != tc.msg {
			t.Errorf("%s: err = %v (code %d), want %q (code %d)", tc.method, err, CodeOf(err), tc.msg, tc.code)
		}
	}
	// The connection survives handler failures.
	var resp api.Status
	if err := c.Call(context.Background(), tEcho, &api.JobRef{JobID: 1}, &resp); err != nil || resp.Code != 1 {
		t.Fatalf("after errors: %v %+v", err, resp)
	}
}

func TestUnauthenticated(t *testing.T) {
	s := testServer()
	s.Auth = denyAll{}
	c := dial(t, startServer(t, s))
	err := c.Call(context.Background(), tEcho, &api.JobRef{JobID: 1}, &api.Status{})
	if CodeOf(err) != Unauthenticated || !strings.Contains(err.Error(), "User permission denied") {
		t.Fatalf("err = %v", err)
	}
}

func TestServerStream(t *testing.T) {
	c := dial(t, startServer(t, testServer()))
	for _, n := range []int64{0, 1, 1000} {
		st, err := c.Stream(context.Background(), tCount, &api.JobRef{JobID: n})
		if err != nil {
			t.Fatal(err)
		}
		var got int64
		for {
			var r api.JobRef
			err := st.Recv(&r)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			got++
			if r.JobID != got {
				t.Fatalf("message %d out of order: %d", got, r.JobID)
			}
		}
		if got != n {
			t.Fatalf("got %d messages, want %d", got, n)
		}
	}
	// An error after some messages: the messages, then the error.
	st, _ := c.Stream(context.Background(), tCount, &api.JobRef{JobID: 3, Index: 1})
	n := 0
	var err error
	for err == nil {
		err = st.Recv(&api.JobRef{})
		if err == nil {
			n++
		}
	}
	if n != 3 || err.Error() != "stopped after 3" {
		t.Fatalf("n=%d err=%v", n, err)
	}
}

func TestBidi(t *testing.T) {
	c := dial(t, startServer(t, testServer()))
	st, err := c.Bidi(context.Background(), tSum, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(1); i <= 10; i++ {
		if err := st.Send(&api.JobRef{JobID: i}); err != nil {
			t.Fatal(err)
		}
		var r api.JobRef
		if err := st.Recv(&r); err != nil {
			t.Fatal(err)
		}
		if r.JobID != i*(i+1)/2 {
			t.Fatalf("running sum %d, want %d", r.JobID, i*(i+1)/2)
		}
	}
	if err := st.CloseSend(); err != nil {
		t.Fatal(err)
	}
	var r api.JobRef
	if err := st.Recv(&r); err != nil || r.JobID != 55 {
		t.Fatalf("final: %v %d", err, r.JobID)
	}
	if err := st.Recv(&r); err != io.EOF {
		t.Fatalf("after end: %v", err)
	}
}

func TestCancelAndDeadline(t *testing.T) {
	c := dial(t, startServer(t, testServer()))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := c.Call(ctx, tBlock, &api.JobRef{}, &api.Status{})
	if CodeOf(err) != DeadlineExceeded {
		t.Fatalf("err = %v", err)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	go func() { time.Sleep(20 * time.Millisecond); cancel2() }()
	if err := c.Call(ctx2, tBlock, &api.JobRef{}, &api.Status{}); CodeOf(err) != Canceled {
		t.Fatalf("err = %v", err)
	}
	// The server saw the cancellations: its handlers returned, so shutdown in
	// the cleanup does not hang, and the connection still works.
	if err := c.Call(context.Background(), tEcho, &api.JobRef{JobID: 5}, &api.Status{}); err != nil {
		t.Fatal(err)
	}
}

func TestConcurrentCalls(t *testing.T) {
	c := dial(t, startServer(t, testServer()))
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				var resp api.Status
				want := int64(g*1000 + i)
				if err := c.Call(context.Background(), tEcho, &api.JobRef{JobID: want}, &resp); err != nil {
					errs <- err
					return
				}
				if int64(resp.Code) != want {
					errs <- fmt.Errorf("got %d want %d", resp.Code, want)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func TestServerGoneFailsCalls(t *testing.T) {
	s := testServer()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln)
	c := dial(t, ln.Addr().String())
	st, err := c.Bidi(context.Background(), tSum, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := st.Recv(&api.JobRef{}); err == nil || err == io.EOF {
		t.Fatalf("Recv after server shutdown: %v", err)
	}
	<-c.Done()
	if err := c.Call(context.Background(), tEcho, &api.JobRef{}, &api.Status{}); CodeOf(err) != Unavailable {
		t.Fatalf("call on dead connection: %v", err)
	}
}

func TestParseFrame(t *testing.T) {
	req := appendFrame(nil, &frame{typ: frameRequest, stream: 7, method: "M.X", deadline: 99, payload: []byte("pay")})
	f, err := parseFrame(req[4:])
	if err != nil || f.typ != frameRequest || f.stream != 7 || f.method != "M.X" || f.deadline != 99 || string(f.payload) != "pay" {
		t.Fatalf("round trip: %+v %v", f, err)
	}
	tests := []struct {
		name string
		body []byte
		want string
	}{
		{"empty", nil, "rpc: bad frame at byte 0: empty frame"},
		{"unknown type", []byte{9, 1}, "rpc: bad frame at byte 0: unknown frame type 9"},
		{"truncated stream id", []byte{frameData, 0x80}, "rpc: bad frame at byte 1: bad stream id"},
		{"stream zero", []byte{frameData, 0}, "rpc: bad frame at byte 1: stream id 0"},
		{"hello on stream", []byte{frameHello, 3}, "rpc: bad frame at byte 1: hello frame on a stream"},
		{"method truncated", []byte{frameRequest, 1, 5, 'a'}, "rpc: bad frame at byte 2: bad method name"},
		{"method empty", []byte{frameRequest, 1, 0, 0}, "rpc: bad frame at byte 2: method name of 0 bytes"},
		{"deadline truncated", []byte{frameRequest, 1, 1, 'm', 0x80}, "rpc: bad frame at byte 4: bad deadline"},
		{"unknown type 7", []byte{7, 1}, "rpc: bad frame at byte 0: unknown frame type 7"},
		{"window on stream 0", []byte{frameWindow, 0, 1}, "rpc: bad frame at byte 1: stream id 0"},
		{"window without grant", []byte{frameWindow, 1}, "rpc: bad frame at byte 2: bad window grant"},
		{"window grant truncated", []byte{frameWindow, 1, 0x80}, "rpc: bad frame at byte 2: bad window grant"},
		{"window grant zero", []byte{frameWindow, 1, 0}, "rpc: bad frame at byte 2: window grant of 0 bytes"},
		{"window grant too large", []byte{frameWindow, 1, 0x81, 0x80, 0x80, 0x80, 0x08}, "rpc: bad frame at byte 2: window grant of 2147483649 bytes"},
		{"window trailing bytes", []byte{frameWindow, 1, 5, 0}, "rpc: bad frame at byte 3: trailing bytes after window grant"},
	}
	for _, tc := range tests {
		_, err := parseFrame(tc.body)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
	w := appendFrame(nil, &frame{typ: frameWindow, stream: 9, grant: StreamWindow})
	if f, err := parseFrame(w[4:]); err != nil || f.typ != frameWindow || f.stream != 9 || f.grant != StreamWindow || len(f.payload) != 0 {
		t.Fatalf("window round trip: %+v %v", f, err)
	}
	big := []byte{0xff, 0xff, 0xff, 0xff}
	if _, err := readFrame(bufio.NewReader(bytes.NewReader(big))); !errors.Is(err, errFrameTooLarge) {
		t.Errorf("oversized frame: %v", err)
	}
}

func FuzzParseFrame(f *testing.F) {
	f.Add(appendFrame(nil, &frame{typ: frameRequest, stream: 1, method: "MBatchd.Submit", payload: []byte{8, 1}})[4:])
	f.Add(appendFrame(nil, &frame{typ: frameHello})[4:])
	f.Add(appendFrame(nil, &frame{typ: frameWindow, stream: 3, grant: 1 << 17})[4:])
	f.Fuzz(func(t *testing.T, body []byte) {
		fr, err := parseFrame(body)
		if err != nil {
			return
		}
		if fr.typ == frameWindow && (fr.grant <= 0 || fr.grant > maxWindowGrant) {
			t.Fatalf("window frame with grant %d", fr.grant)
		}
		again, err := parseFrame(appendFrame(nil, fr)[4:])
		if err != nil || again.typ != fr.typ || again.stream != fr.stream || again.method != fr.method || again.grant != fr.grant || !bytes.Equal(again.payload, fr.payload) {
			t.Fatalf("re-encoded frame differs: %+v vs %+v (%v)", fr, again, err)
		}
	})
}

// TestMalformedPeer: garbage from a peer closes its connection but never
// takes the server down.
func TestMalformedPeer(t *testing.T) {
	addr := startServer(t, testServer())
	raw, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	raw.Write([]byte{0, 0, 0, 3, 9, 9, 9})
	buf := make([]byte, 1)
	raw.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := raw.Read(buf); err == nil {
		t.Fatal("server answered garbage")
	}
	raw.Close()
	c := dial(t, addr)
	if err := c.Call(context.Background(), tEcho, &api.JobRef{JobID: 3}, &api.Status{}); err != nil {
		t.Fatal(err)
	}
}

func BenchmarkUnaryCall(b *testing.B) {
	s := testServer()
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	go s.Serve(ln)
	defer s.Shutdown(context.Background())
	c, _ := Dial(context.Background(), ln.Addr().String(), nil)
	defer c.Close()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		var resp api.Status
		for pb.Next() {
			if err := c.Call(context.Background(), tEcho, &api.JobRef{JobID: 1}, &resp); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// countingListener counts the writes made on the connections it accepts.
type countingListener struct {
	net.Listener
	writes *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return countingConn{c, l.writes}, nil
}

type countingConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c countingConn) Write(b []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(b)
}

// TestUnaryReplyOneWrite: a unary reply and the end frame that closes its
// stream leave the server in one write (one system call, and one wake-up of
// the client's reader); a streaming handler's messages still go out one by
// one as they are sent.
func TestUnaryReplyOneWrite(t *testing.T) {
	var writes atomic.Int64
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serveOn(t, testServer(), countingListener{ln, &writes})
	c := dial(t, ln.Addr().String())
	for i := 1; i <= 10; i++ {
		before := writes.Load()
		var resp api.Status
		if err := c.Call(context.Background(), tEcho, &api.JobRef{JobID: int64(i)}, &resp); err != nil {
			t.Fatal(err)
		}
		if resp.Code != int32(i) {
			t.Fatalf("call %d: resp = %+v", i, resp)
		}
		if n := writes.Load() - before; n != 1 {
			t.Fatalf("call %d: the server wrote %d times, want 1 (reply and end together)", i, n)
		}
	}
	before := writes.Load()
	st, err := c.Stream(context.Background(), tCount, &api.JobRef{JobID: 3})
	if err != nil {
		t.Fatal(err)
	}
	for {
		var r api.JobRef
		if err := st.Recv(&r); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	if n := writes.Load() - before; n != 4 {
		t.Fatalf("a stream of 3 messages took %d writes, want 4 (each message, then the end)", n)
	}
}

// BenchmarkStream: one server stream of 1000 small messages per op.
func BenchmarkStream(b *testing.B) {
	s := testServer()
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	go s.Serve(ln)
	defer s.Shutdown(context.Background())
	c, _ := Dial(context.Background(), ln.Addr().String(), nil)
	defer c.Close()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		st, err := c.Stream(context.Background(), tCount, &api.JobRef{JobID: 1000})
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for {
			var r api.JobRef
			if err := st.Recv(&r); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != 1000 {
			b.Fatalf("%d messages", n)
		}
	}
}

// The tests' own service description.
var (
	tEcho  = api.NewUnary[api.JobRef, api.Status]("T.Echo")
	tFail  = api.NewUnary[api.JobRef, api.Status]("T.Fail")
	tPanic = api.NewUnary[api.JobRef, api.Status]("T.Panic")
	tBlock = api.NewUnary[api.JobRef, api.Status]("T.Block")
	tNope  = api.NewUnary[api.JobRef, api.Status]("T.Nope")
	tCount = api.NewServerStream[api.JobRef, api.JobRef]("T.Count")
	tFlood = api.NewServerStream[api.JobRef, api.Status]("T.Flood")
	tSum   = api.NewBidi[api.JobRef, api.JobRef]("T.Sum")
	tStall = api.NewBidi[api.Status, api.Status]("T.Stall")
	tOld   = api.NewBidi[api.Status, api.JobRef]("T.Old")
)
