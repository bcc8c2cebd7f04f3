package lim

import (
	"context"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/clock"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

// DefaultLeaderPoll is how often a replica host's LIM asks its mbatchd
// whether it leads (Options.LeaderPoll).
const DefaultLeaderPoll = 250 * time.Millisecond

// leaderTimeout bounds one MBatchd.Leader call, dial included: an mbatchd
// that does not answer in time does not lead as far as the LIM knows.
const leaderTimeout = time.Second

// leaderWatch polls this host's mbatchd replica with MBatchd.Leader: with
// mbatchd replicated, the LIM of a replica host is eligible for master
// exactly while its mbatchd leads the raft group. One goroutine (run)
// owns the connection and the state; Eligible reads the published value.
type leaderWatch struct {
	host    string
	addr    func(ctx context.Context) (string, error) // this host's mbatchd
	creds   auth.Credentials
	clk     clock.Clock
	every   time.Duration
	log     *slog.Logger
	changed func() // called from run after each change

	leads atomic.Bool // written by run only
}

// mbdAddr returns the address of host's mbatchd: its address at
// LSB_MBD_PORT, where mbatchd listens.
func mbdAddr(b *config.Base, host string) func(ctx context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		a, err := b.Resolver().Resolve(ctx, host)
		if err != nil {
			return "", err
		}
		return net.JoinHostPort(a.String(), strconv.Itoa(b.Conf.MBDPort())), nil
	}
}

// Eligible reports whether this host's mbatchd led at the last poll.
func (w *leaderWatch) Eligible() bool { return w.leads.Load() }

// run polls until ctx ends.
func (w *leaderWatch) run(ctx context.Context) {
	var c *rpc.Client
	defer func() {
		if c != nil {
			c.Close()
		}
	}()
	t := w.clk.NewTimer(0)
	defer t.Stop()
	var lastErr string
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
		}
		var leads bool
		var err error
		c, leads, err = w.ask(ctx, c)
		if ctx.Err() != nil {
			return
		}
		if e := errString(err); e != lastErr {
			if e != "" {
				w.log.Debug("this host's mbatchd does not answer MBatchd.Leader", "err", err)
			}
			lastErr = e
		}
		if leads != w.leads.Load() {
			w.leads.Store(leads)
			if leads {
				w.log.Warn("this host's mbatchd leads: LIM is master")
			} else {
				w.log.Warn("this host's mbatchd no longer leads: LIM is not master", "err", err)
			}
			w.changed()
		}
		t.Reset(w.every)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// ask makes one MBatchd.Leader call over c, dialling first when c is nil
// or broken; it returns the connection to use next time (nil after a
// transport error).
func (w *leaderWatch) ask(ctx context.Context, c *rpc.Client) (*rpc.Client, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, leaderTimeout)
	defer cancel()
	if c != nil {
		select {
		case <-c.Done():
			c.Close()
			c = nil
		default:
		}
	}
	if c == nil {
		addr, err := w.addr(ctx)
		if err != nil {
			return nil, false, err
		}
		hello, err := w.creds.Hello(ctx, auth.KindMbatchd, w.host)
		if err != nil {
			return nil, false, err
		}
		if c, err = rpc.Dial(ctx, addr, hello); err != nil {
			return nil, false, err
		}
	}
	var r api.LeaderReply
	if err := c.Call(ctx, api.MBatchdLeader, &api.LeaderRequest{}, &r); err != nil {
		if rpc.CodeOf(err) == rpc.Unavailable || ctx.Err() != nil {
			c.Close()
			c = nil
		}
		return c, false, err
	}
	// Another host's mbatchd (a wrong port) does not make this LIM master.
	return c, r.IsLeader && (r.Host == "" || strings.EqualFold(r.Host, w.host)), nil
}
