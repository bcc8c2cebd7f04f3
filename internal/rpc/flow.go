package rpc

import (
	"context"
	"sync"
)

// Flow control (protocol 2). Each stream has, in each direction, a window
// of StreamWindow bytes: the sender may send a message while its credit is
// positive (so one message larger than the window still goes, alone), and
// each message costs its payload plus msgOverhead bytes, so empty messages
// are bounded too. The receiver queues what arrives and, as its consumer
// takes messages, grants the consumed bytes back in window frames, in steps
// of at least half a window. A stream's receive queue therefore never holds
// more than StreamWindow plus one message, and a consumer that stops
// reading stalls only its own stream's sender: the connection's reader
// never waits for it. A peer that sends without credit breaks the protocol:
// its stream fails with ResourceExhausted.
//
// With a protocol-1 peer, which knows no window frames, the receiver falls
// back to what version 1 did on the server: a delivery to a full queue
// blocks the connection's reader (TCP pushes back on the peer) until the
// consumer takes a message or the stream ends.

// StreamWindow is the per-stream, per-direction window in bytes.
const StreamWindow = 256 << 10

// msgOverhead is what each message costs beyond its payload.
const msgOverhead = 32

func msgCost(b []byte) int64 { return int64(len(b)) + msgOverhead }

func kick(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// inbox is one stream's receive queue. The connection's reader pushes; one
// consumer pops.
type inbox struct {
	mu      sync.Mutex
	q       [][]byte // q[head:] are queued
	head    int
	bytes   int64 // cost of what q holds
	credit  int64 // what the peer may still send: window + granted - received
	unacked int64 // consumed and not granted back yet
	closed  bool  // the peer sent its last message
	ready   chan struct{}
	space   chan struct{} // made by waitSpace (protocol 1 only); nil never fires
}

func newInbox() *inbox {
	in := &inbox{}
	in.init()
	return in
}

// init readies an inbox in place (streams embed theirs: one allocation
// fewer per call).
func (in *inbox) init() {
	in.credit, in.ready = StreamWindow, make(chan struct{}, 1)
}

// push queues b. With enforce (a protocol-2 peer), a message the peer had
// no credit for is refused with errFlowControl. Messages after close are
// dropped.
func (in *inbox) push(b []byte, enforce bool) error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.closed {
		return nil
	}
	c := msgCost(b)
	if enforce {
		if in.credit <= 0 {
			return errFlowControl
		}
		in.credit -= c
	}
	in.q = append(in.q, b)
	in.bytes += c
	kick(in.ready)
	return nil
}

// waitSpace blocks while the queue holds a window or more (protocol 1),
// until a message is taken or done or gone is closed; false then.
func (in *inbox) waitSpace(done, gone <-chan struct{}) bool {
	for {
		in.mu.Lock()
		if in.space == nil {
			in.space = make(chan struct{}, 1)
		}
		space := in.space
		full := in.bytes >= StreamWindow && !in.closed
		in.mu.Unlock()
		if !full {
			return true
		}
		select {
		case <-space:
		case <-done:
			return false
		case <-gone:
			return false
		}
	}
}

// close marks the end of the peer's messages; queued ones can still be
// taken.
func (in *inbox) close() {
	in.mu.Lock()
	in.closed = true
	space := in.space
	in.mu.Unlock()
	kick(in.ready)
	if space != nil {
		kick(space)
	}
}

// pop takes the next message: ok is false when none is queued, and closed
// then tells whether none will come. With flow control, grant is the credit
// to give back to the peer in a window frame (0: none yet).
func (in *inbox) pop(flow bool) (b []byte, ok, closed bool, grant int64) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.head == len(in.q) {
		return nil, false, in.closed, 0
	}
	b = in.q[in.head]
	in.q[in.head] = nil
	in.head++
	if in.head == len(in.q) {
		in.q, in.head = in.q[:0], 0 // reuse the array
	} else {
		kick(in.ready)
	}
	c := msgCost(b)
	in.bytes -= c
	if !flow && in.space != nil {
		kick(in.space) // a protocol-1 reader may wait in waitSpace
	}
	if flow && !in.closed {
		in.unacked += c
		if in.unacked >= StreamWindow/2 {
			grant, in.unacked = in.unacked, 0
			in.credit += grant
		}
	}
	return b, true, false, grant
}

// outbox is one stream's send credit.
type outbox struct {
	mu     sync.Mutex
	credit int64
	kick   chan struct{}
}

func (o *outbox) init() { o.credit, o.kick = StreamWindow, make(chan struct{}, 1) }

// grant adds credit from a window frame.
func (o *outbox) grant(n int64) {
	o.mu.Lock()
	o.credit += n
	o.mu.Unlock()
	kick(o.kick)
}

// acquire waits until the stream has credit, then spends cost. While
// enabled reports false (a protocol-1 peer) it spends nothing. It returns
// ctx's error if ctx ends first, or errStreamDone if done is closed.
func (o *outbox) acquire(ctx context.Context, done <-chan struct{}, cost int64, enabled func() bool) error {
	for {
		if !enabled() {
			return nil
		}
		o.mu.Lock()
		if o.credit > 0 {
			o.credit -= cost
			o.mu.Unlock()
			return nil
		}
		o.mu.Unlock()
		select {
		case <-o.kick:
		case <-ctx.Done():
			return ctx.Err()
		case <-done:
			return errStreamDone
		}
	}
}

// wake releases waiters to look at enabled again.
func (o *outbox) wake() { kick(o.kick) }
