package sbd

import (
	"context"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/clock"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

// session is one open "MBatchd.SbdSession" call.
type session struct {
	id     int
	out    chan *api.SbdMessage
	cancel context.CancelFunc
	// drain asks the writer to send what is queued and close drained
	// (a shutdown's last acknowledgements reach mbatchd).
	drain, drained chan struct{}
}

// flush sends what is queued, waiting at most d by clk.
func (s *session) flush(clk clock.Clock, d time.Duration) {
	close(s.drain)
	t := clk.NewTimer(d)
	defer t.Stop()
	select {
	case <-s.drained:
	case <-t.C():
	}
}

// sessEvent is what the session goroutines tell the main loop.
type sessEvent struct {
	up   *session
	msg  *api.MbdMessage
	down *session
	err  error
}

// outQueue bounds the messages waiting to be written to mbatchd; a
// session that falls that far behind is dropped and reopened.
const outQueue = 4096

// runSessions keeps a session with mbatchd open, reconnecting with
// exponential backoff, until ctx ends.
func (d *Daemon) runSessions(ctx context.Context) {
	delay := d.cfg.RetryMin
	id := 0
	for ctx.Err() == nil {
		id++
		started := d.cfg.Clock.Now()
		err := d.session(ctx, id)
		if ctx.Err() != nil {
			return
		}
		if d.cfg.Clock.Now().Sub(started) > max(delay, d.cfg.RetryMin) {
			// A session that had been up (not a connection refused at
			// once): the master failed or moved; look for it again soon.
			delay = d.cfg.RetryMin
		}
		d.cfg.Log.Warn("session with mbatchd lost; retrying", "err", err, "in", delay)
		t := d.cfg.Clock.NewTimer(delay)
		select {
		case <-t.C():
		case <-ctx.Done():
			t.Stop()
			return
		}
		if rpc.CodeOf(err) != rpc.FailedPrecondition {
			// A replica that is not the master (a failover under way)
			// is asked again soon: the master is being elected.
			delay = min(2*delay, d.cfg.RetryMax)
		}
	}
}

// session runs one session to its end.
func (d *Daemon) session(ctx context.Context, id int) error {
	addr, err := d.cfg.Master.Master(ctx)
	if err != nil {
		return err
	}
	cl, err := d.cfg.Dial(ctx, addr)
	if err != nil {
		return err
	}
	defer cl.Close()
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st, err := cl.Bidi(sctx, api.MBatchdSbdSession, nil)
	if err != nil {
		return err
	}
	s := &session{id: id, out: make(chan *api.SbdMessage, outQueue), cancel: cancel,
		drain: make(chan struct{}), drained: make(chan struct{})}
	go func() {
		defer close(s.drained) // drained, or gone: nothing more will be sent
		for {
			select {
			case m := <-s.out:
				if err := st.Send(m); err != nil {
					cancel()
					return
				}
			case <-s.drain:
				for {
					select {
					case m := <-s.out:
						if st.Send(m) != nil {
							return
						}
					default:
						return
					}
				}
			case <-sctx.Done():
				return
			}
		}
	}()
	if !d.post(ctx, sessEvent{up: s}) {
		return ctx.Err()
	}
	for {
		m := &api.MbdMessage{}
		if err = st.Recv(m); err != nil {
			break
		}
		if !d.post(ctx, sessEvent{msg: m}) {
			return ctx.Err()
		}
	}
	cancel()
	d.post(ctx, sessEvent{down: s, err: err})
	return err
}

func (d *Daemon) post(ctx context.Context, ev sessEvent) bool {
	select {
	case d.sessCh <- ev:
		return true
	case <-ctx.Done():
		return false
	}
}

// sendMbd queues a message to mbatchd; false when no session is up (the
// next hello carries the state) or the session is hopelessly behind.
func (d *Daemon) sendMbd(m *api.SbdMessage) bool {
	if d.sess == nil {
		return false
	}
	select {
	case d.sess.out <- m:
		return true
	default:
		d.cfg.Log.Warn("session with mbatchd is behind; reconnecting", "messages", outQueue)
		d.sess.cancel()
		d.sess = nil
		return false
	}
}
