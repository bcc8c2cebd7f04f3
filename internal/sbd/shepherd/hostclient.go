package shepherd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/basalt-lsf/basalt/internal/sbd/sbdwire"
)

// Frame types on the host socket (same framing as a job's socket).
const (
	frameHostHello   = 'H' // host -> sbatchd: sbdwire.HostHello, first
	frameHostRequest = 'Q' // sbatchd -> host: sbdwire.HostRequest
	frameHostReply   = 'R' // host -> sbatchd: sbdwire.HostReply
)

// HostSocketName is the abstract unix socket of the shepherd host serving
// the sbatchd whose state directory is stateDir.
func HostSocketName(stateDir string) string {
	h := fnv.New64a()
	h.Write([]byte(stateDir))
	return "@basalt-shepherds-" + strconv.FormatUint(h.Sum64(), 16)
}

// ErrHostGone: the connection to the shepherd host broke before the
// request was sent, or the host was retiring; a new host may be started
// and asked again.
var ErrHostGone = errors.New("shepherd host gone")

// ErrUnanswered: the connection broke after the request was sent, before
// the answer: the host may have carried it out.
var ErrUnanswered = errors.New("shepherd host gone before answering")

// HostClient is sbatchd's connection to a shepherd host. Its methods may
// be called concurrently.
type HostClient struct {
	conn  net.Conn
	Hello *sbdwire.HostHello

	wmu   sync.Mutex
	mu    sync.Mutex
	seq   uint64
	waits map[uint64]chan *sbdwire.HostReply
	err   error
	done  chan struct{}
}

// DialHost connects to the shepherd host listening on name and reads its
// hello (before deadline). It fails at once when no host listens.
func DialHost(ctx context.Context, name string, deadline time.Time) (*HostClient, error) {
	c, err := dialUnix(ctx, name)
	if err != nil {
		return nil, err
	}
	if err := c.SetReadDeadline(deadline); err != nil {
		c.Close()
		return nil, err
	}
	r := bufio.NewReader(c)
	typ, b, err := readFrame(r)
	if err == nil && typ != frameHostHello {
		err = fmt.Errorf("shepherd host: first frame %q, want a hello", typ)
	}
	hello := &sbdwire.HostHello{}
	if err == nil {
		err = hello.UnmarshalWire(b)
	}
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("%w: %v", ErrHostGone, err)
	}
	_ = c.SetReadDeadline(time.Time{})
	hc := &HostClient{conn: c, Hello: hello, waits: map[uint64]chan *sbdwire.HostReply{}, done: make(chan struct{})}
	go hc.read(r)
	return hc, nil
}

func (c *HostClient) read(r *bufio.Reader) {
	var err error
	for {
		var typ byte
		var b []byte
		typ, b, err = readFrame(r)
		if err != nil {
			break
		}
		rep := &sbdwire.HostReply{}
		if typ != frameHostReply || rep.UnmarshalWire(b) != nil {
			continue
		}
		c.mu.Lock()
		ch := c.waits[rep.Seq]
		delete(c.waits, rep.Seq)
		c.mu.Unlock()
		if ch != nil {
			ch <- rep
		}
	}
	c.mu.Lock()
	c.err = fmt.Errorf("%w: %v", ErrHostGone, err)
	c.mu.Unlock()
	close(c.done)
	c.conn.Close()
}

// Broken reports whether the connection has ended.
func (c *HostClient) Broken() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

func (c *HostClient) call(ctx context.Context, req *sbdwire.HostRequest) (*sbdwire.HostReply, error) {
	ch := make(chan *sbdwire.HostReply, 1)
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return nil, err
	}
	c.seq++
	req.Seq = c.seq
	c.waits[req.Seq] = ch
	c.mu.Unlock()
	c.wmu.Lock()
	_ = c.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	err := writeFrame(c.conn, frameHostRequest, req)
	c.wmu.Unlock()
	if err != nil {
		// Perhaps partly written: the host reads no request from a torn
		// frame.
		c.conn.Close()
		return nil, fmt.Errorf("%w: %v", ErrHostGone, err)
	}
	select {
	case rep := <-ch:
		if rep.Err == errRetired.Error() {
			return rep, fmt.Errorf("%w: %s", ErrHostGone, rep.Err)
		}
		return rep, nil
	case <-c.done:
		c.mu.Lock()
		err := c.err
		c.mu.Unlock()
		return nil, fmt.Errorf("%w: %v", ErrUnanswered, err)
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.waits, req.Seq)
		c.mu.Unlock()
		return nil, ctx.Err()
	}
}

// Start asks the host to start the shepherd of the job spooled in
// spoolDir, whose launch and parameters are given encoded; it returns once
// the job's socket is bound (the shepherd can be dialled), with the host's
// PID. ErrRunning when the job already has a live shepherd; ErrHostGone
// when the host did not get the request (or took no more jobs);
// ErrUnanswered when it went away before answering.
func (c *HostClient) Start(ctx context.Context, spoolDir string, launch, params []byte) (int, error) {
	rep, err := c.call(ctx, &sbdwire.HostRequest{Op: sbdwire.HostOpStart, SpoolDir: spoolDir, Launch: launch, Params: params})
	if err != nil {
		return 0, err
	}
	switch {
	case rep.Running:
		return int(rep.PID), fmt.Errorf("%w: %s", ErrRunning, rep.Err)
	case rep.Err != "":
		return int(rep.PID), errors.New(rep.Err)
	}
	return int(rep.PID), nil
}

// Retire tells the host to accept no more jobs and to exit once its jobs
// are done; its socket is closed when Retire returns.
func (c *HostClient) Retire(ctx context.Context) error {
	_, err := c.call(ctx, &sbdwire.HostRequest{Op: sbdwire.HostOpRetire})
	return err
}

// Close closes the connection.
func (c *HostClient) Close() error { return c.conn.Close() }
