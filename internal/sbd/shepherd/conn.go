package shepherd

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/api/wire"
	"github.com/basalt-lsf/basalt/internal/sbd/sbdwire"
)

// Frame types on a shepherd's socket. Each frame is a uvarint length (type
// byte included), the type byte and a wire-encoded message.
const (
	frameStatus  = 'S' // shepherd -> sbatchd: api.JobStatusReport, the job's whole state
	frameAck     = 'A' // shepherd -> sbatchd: sbdwire.Ack
	frameLaunch  = 'L' // shepherd -> sbatchd: api.JobLaunch, after the first state
	frameParams  = 'P' // shepherd -> sbatchd: sbdwire.Params, after the launch
	frameCommand = 'C' // sbatchd -> shepherd: sbdwire.Command
)

// maxFrame bounds a frame (a launch carries the job's environment and
// script).
const maxFrame = 64 << 20

// SocketName is the abstract unix socket of the shepherd of job key under
// sbatchd's state directory stateDir. It depends only on those, so sbatchd
// finds a job's shepherd even after losing the job's spool directory.
func SocketName(stateDir, key string) string {
	h := fnv.New64a()
	h.Write([]byte(stateDir))
	return "@basalt-shepherd-" + strconv.FormatUint(h.Sum64(), 16) + "-" + key
}

func writeFrame(w io.Writer, typ byte, m wire.Message) error {
	payload := wire.Marshal(m)
	buf := make([]byte, 0, binary.MaxVarintLen64+1+len(payload))
	buf = binary.AppendUvarint(buf, uint64(len(payload)+1))
	buf = append(buf, typ)
	buf = append(buf, payload...)
	_, err := w.Write(buf)
	return err
}

func readFrame(r *bufio.Reader) (byte, []byte, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return 0, nil, err
	}
	if n == 0 || n > maxFrame {
		return 0, nil, fmt.Errorf("shepherd: bad frame length %d", n)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r, buf); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return 0, nil, err
	}
	return buf[0], buf[1:], nil
}

// Event is one message from a shepherd; exactly one field is set.
type Event struct {
	Status *api.JobStatusReport
	Ack    *sbdwire.Ack
	Launch *api.JobLaunch
	Params *sbdwire.Params
}

// Client is sbatchd's connection to one shepherd.
type Client struct {
	conn net.Conn
	r    *bufio.Reader
	wmu  sync.Mutex
}

// Dial connects to the shepherd listening on the abstract socket name. It
// fails at once when no shepherd is listening (the shepherd is gone), and
// when the listener is not ours (dialUnix).
func Dial(ctx context.Context, name string) (*Client, error) {
	c, err := dialUnix(ctx, name)
	if err != nil {
		return nil, err
	}
	return NewClient(c), nil
}

// ErrNotShepherd: the process listening on a shepherd's socket name runs
// as another user than sbatchd. Abstract socket names are open to every
// local user, and these are predictable: a user who binds one while
// sbatchd or a shepherd restarts would otherwise receive launches and
// commands meant for another user's job and could forge its reports.
var ErrNotShepherd = errors.New("shepherd socket is held by a process of another user")

// dialUnix connects to an abstract socket and checks that the process that
// listens on it has sbatchd's own uid (the kernel's word, SO_PEERCRED).
func dialUnix(ctx context.Context, name string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", name)
	if err != nil {
		return nil, err
	}
	if err := checkListener(c, os.Geteuid()); err != nil {
		c.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return c, nil
}

// checkListener fails unless the peer of c (the listening process, for a
// connection we dialed) has uid want or is root.
func checkListener(c net.Conn, want int) error {
	uid, err := peerUID(c)
	if err != nil {
		return fmt.Errorf("peer credentials: %w", err)
	}
	if uid != want && uid != 0 {
		return fmt.Errorf("%w (uid %d)", ErrNotShepherd, uid)
	}
	return nil
}

// NewClient runs the protocol over an established connection.
func NewClient(c net.Conn) *Client { return &Client{conn: c, r: bufio.NewReaderSize(c, 32<<10)} }

// Recv reads the next event; io.EOF when the shepherd closed the socket
// (it exits after its final state).
func (c *Client) Recv() (Event, error) {
	typ, b, err := readFrame(c.r)
	if err != nil {
		if errors.Is(err, net.ErrClosed) || errors.Is(err, syscall.ECONNRESET) {
			err = io.EOF
		}
		return Event{}, err
	}
	var ev Event
	var m wire.Message
	switch typ {
	case frameStatus:
		ev.Status = &api.JobStatusReport{}
		m = ev.Status
	case frameAck:
		ev.Ack = &sbdwire.Ack{}
		m = ev.Ack
	case frameLaunch:
		ev.Launch = &api.JobLaunch{}
		m = ev.Launch
	case frameParams:
		ev.Params = &sbdwire.Params{}
		m = ev.Params
	default:
		return Event{}, fmt.Errorf("shepherd: unknown frame type %q", typ)
	}
	if err := m.UnmarshalWire(b); err != nil {
		return Event{}, fmt.Errorf("shepherd: frame %q: %w", typ, err)
	}
	return ev, nil
}

// Send sends a command.
func (c *Client) Send(cmd *sbdwire.Command) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_ = c.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	return writeFrame(c.conn, frameCommand, cmd)
}

// Close closes the connection.
func (c *Client) Close() error { return c.conn.Close() }

// Handshake reads what a shepherd sends first on a new connection: the job's
// state, launch and parameters (before deadline).
func (c *Client) Handshake(deadline time.Time) (*api.JobStatusReport, *api.JobLaunch, *sbdwire.Params, error) {
	if err := c.conn.SetReadDeadline(deadline); err != nil {
		return nil, nil, nil, err
	}
	defer c.conn.SetReadDeadline(time.Time{})
	var st *api.JobStatusReport
	var l *api.JobLaunch
	for {
		ev, err := c.Recv()
		if err != nil {
			return nil, nil, nil, err
		}
		switch {
		case ev.Status != nil:
			st = ev.Status
		case ev.Launch != nil:
			l = ev.Launch
		case ev.Params != nil:
			if st == nil || l == nil {
				return nil, nil, nil, fmt.Errorf("shepherd: handshake out of order")
			}
			return st, l, ev.Params, nil
		}
	}
}

// peerUID returns the uid of the process at the other end of a unix
// socket.
func peerUID(c net.Conn) (int, error) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return -1, fmt.Errorf("not a unix socket")
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return -1, err
	}
	var cred *syscall.Ucred
	var serr error
	if err := raw.Control(func(fd uintptr) {
		cred, serr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return -1, err
	}
	if serr != nil {
		return -1, serr
	}
	return int(cred.Uid), nil
}
