package rpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/api/wire"
)

// TestLengthPrefixCostsNoMemory: a frame's length prefix alone does not
// make the reader allocate what it announces (issue: 8 silent connections
// announcing 64 MiB each took mbatchd from 102 to 453 MB).
func TestLengthPrefixCostsNoMemory(t *testing.T) {
	var hdr [4]byte
	binary.BigEndian.PutUint32(hdr[:], MaxFrameSize)
	in := append(hdr[:], bytes.Repeat([]byte{1}, 100)...)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := readFrame(bufio.NewReader(bytes.NewReader(in)))
	runtime.ReadMemStats(&after)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("err = %v, want unexpected EOF", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Fatalf("a 64 MiB length prefix followed by 100 bytes allocated %d bytes", got)
	}
}

// TestReadFrameGrows: frames larger than the first chunk still arrive whole.
func TestReadFrameGrows(t *testing.T) {
	for _, n := range []int{0, 1, frameChunk - 1, frameChunk, frameChunk + 1, 5*frameChunk + 17} {
		payload := bytes.Repeat([]byte{7}, n)
		b := appendFrame(nil, &frame{typ: frameData, stream: 3, payload: payload})
		f, err := readFrame(bufio.NewReader(bytes.NewReader(b)))
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		if !bytes.Equal(f.payload, payload) {
			t.Fatalf("%d bytes: payload of %d bytes differs", n, len(f.payload))
		}
	}
}

// closedWithin reports whether the server closes conn within d.
func closedWithin(conn net.Conn, d time.Duration) bool {
	_ = conn.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, conn)
	var ne net.Error
	return err == nil || !(errors.As(err, &ne) && ne.Timeout())
}

func rawTCP(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestSilentPeerClosed: a peer that connects and sends nothing, or half a
// hello, is closed after the hello timeout.
func TestSilentPeerClosed(t *testing.T) {
	s := testServer()
	s.HelloTimeout = 200 * time.Millisecond
	addr := startServer(t, s)
	silent := rawTCP(t, addr)
	half := rawTCP(t, addr)
	b := appendFrame(nil, &frame{typ: frameHello, payload: wire.Marshal(&api.ConnHello{User: "alice"})})
	if _, err := half.Write(b[:len(b)/2]); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]net.Conn{"silent": silent, "half a hello": half} {
		if !closedWithin(c, 10*time.Second) {
			t.Errorf("%s peer still open after the hello timeout", name)
		}
	}
	callsComplete(t, dial(t, addr), 2)
}

// TestHelloSizeBound: a hello larger than maxHello closes the connection
// before its bytes are read.
func TestHelloSizeBound(t *testing.T) {
	addr := startServer(t, testServer())
	c := rawTCP(t, addr)
	var hdr [4]byte
	binary.BigEndian.PutUint32(hdr[:], maxHello+1)
	if _, err := c.Write(hdr[:]); err != nil {
		t.Fatal(err)
	}
	if !closedWithin(c, 10*time.Second) {
		t.Fatal("connection announcing an oversized hello still open")
	}
}

// TestUnauthenticatedBound: a peer that failed authentication gets its
// requests refused, cannot send large frames, and is closed after the
// hello timeout.
func TestUnauthenticatedBound(t *testing.T) {
	s := testServer()
	s.Auth = denyAll{}
	s.HelloTimeout = 300 * time.Millisecond
	addr := startServer(t, s)

	big := rawDial(t, addr, &api.ConnHello{Proto: protoV2})
	big.send(&frame{typ: frameRequest, stream: 1, method: tEcho.Name(), payload: bytes.Repeat([]byte{0}, maxHello+10)})
	if !closedWithin(big.Conn, 10*time.Second) {
		t.Fatal("unauthenticated peer sending a large frame still open")
	}

	idle := rawDial(t, addr, &api.ConnHello{Proto: protoV2})
	idle.send(&frame{typ: frameRequest, stream: 1, method: tEcho.Name(), payload: wire.Marshal(&api.JobRef{JobID: 1})})
	var sh api.ServerHello
	if f := idle.recv(); f.typ != frameHello || sh.UnmarshalWire(f.payload) != nil {
		t.Fatalf("first frame %d, want the server hello", f.typ)
	}
	f := idle.recv()
	var st api.Status
	if f.typ != frameEnd || st.UnmarshalWire(f.payload) != nil || Code(st.Code) != Unauthenticated {
		t.Fatalf("reply %d %+v, want Unauthenticated", f.typ, &st)
	}
	if !closedWithin(idle.Conn, 10*time.Second) {
		t.Fatal("unauthenticated peer still open after the hello timeout")
	}
}

// TestPendingPerPeer: one address may hold only MaxPendingPerPeer
// connections that have not authenticated; authenticated ones do not count.
func TestPendingPerPeer(t *testing.T) {
	s := testServer()
	s.MaxPendingPerPeer = 2
	addr := startServer(t, s)
	good := dial(t, addr)
	callsComplete(t, good, 1)
	a, b := rawTCP(t, addr), rawTCP(t, addr)
	third := rawTCP(t, addr) // accepted after a and b

	if !closedWithin(third, 10*time.Second) {
		t.Fatal("third silent connection from one address was kept")
	}
	for _, c := range []net.Conn{a, b} {
		if closedWithin(c, 100*time.Millisecond) {
			t.Fatal("a silent connection within the bound was closed before the hello timeout")
		}
	}
	callsComplete(t, good, 2)
}

// flakyListener fails its first n Accepts with EMFILE.
type flakyListener struct {
	net.Listener
	n int
}

func (l *flakyListener) Accept() (net.Conn, error) {
	if l.n > 0 {
		l.n--
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: syscall.EMFILE}
	}
	return l.Listener.Accept()
}

// TestAcceptErrorsRetried: running out of descriptors does not close the
// listener for good (LIM's listener did, while lsload still said ok).
func TestAcceptErrorsRetried(t *testing.T) {
	s := testServer()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serveOn(t, s, &flakyListener{Listener: ln, n: 4})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := Dial(ctx, ln.Addr().String(), &api.ConnHello{User: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Call(ctx, tEcho, &api.JobRef{JobID: 5}, &api.Status{}); err != nil {
		t.Fatalf("call after accept errors: %v", err)
	}
	if got := s.AcceptErrors.Load(); got != 4 {
		t.Fatalf("AcceptErrors = %d, want 4", got)
	}
	if s.AcceptFailing(time.Now(), time.Hour) {
		t.Error("AcceptFailing after an accept succeeded")
	}
}

// TestAcceptFailingReported: while accepting keeps failing the server says
// so, and stops saying so once the window has passed without a failure.
func TestAcceptFailingReported(t *testing.T) {
	s := testServer()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serveOn(t, s, &flakyListener{Listener: ln, n: 1 << 30})
	deadline := time.Now().Add(20 * time.Second)
	for s.AcceptErrors.Load() < 3 {
		if time.Now().After(deadline) {
			t.Fatal("no accept errors")
		}
		time.Sleep(5 * time.Millisecond)
	}
	now := time.Now()
	if !s.AcceptFailing(now, 5*time.Second) {
		t.Error("AcceptFailing is false while every accept fails")
	}
	if s.AcceptFailing(now.Add(time.Minute), 5*time.Second) {
		t.Error("AcceptFailing a minute after the last failure with a 5 s window")
	}
}
