package lim

import (
	"context"
	"net"
	"strconv"
	"sync"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/api/wire"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/lim/election"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

// peerPool keeps one RPC connection per peer LIM.
type peerPool struct {
	base  *config.Base
	self  string
	creds auth.Credentials
	// view returns this LIM's master, sent in probes (set before use).
	view func() string

	mu    sync.Mutex
	conns map[string]*rpc.Client
	// addrs overrides addresses (tests that listen on ephemeral ports).
	addrs map[string]string
}

func newPeerPool(b *config.Base, self string, creds auth.Credentials) *peerPool {
	return &peerPool{base: b, self: self, creds: creds, conns: map[string]*rpc.Client{}, addrs: map[string]string{}}
}

// Addr returns the LIM address of host.
func (p *peerPool) Addr(ctx context.Context, host string) (string, error) {
	p.mu.Lock()
	a, ok := p.addrs[host]
	p.mu.Unlock()
	if ok {
		return a, nil
	}
	ip, err := p.base.Resolver().Resolve(ctx, host)
	if err != nil {
		return "", err
	}
	return net.JoinHostPort(ip.String(), strconv.Itoa(p.base.Conf.LIMPort())), nil
}

func (p *peerPool) client(ctx context.Context, host string) (*rpc.Client, error) {
	p.mu.Lock()
	c := p.conns[host]
	p.mu.Unlock()
	if c != nil {
		select {
		case <-c.Done():
		default:
			return c, nil
		}
	}
	c, err := p.dial(ctx, host)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	if old := p.conns[host]; old != nil && old != c {
		old.Close()
	}
	p.conns[host] = c
	p.mu.Unlock()
	return c, nil
}

// dial opens a connection to host's LIM.
func (p *peerPool) dial(ctx context.Context, host string) (*rpc.Client, error) {
	addr, err := p.Addr(ctx, host)
	if err != nil {
		return nil, err
	}
	hello, err := p.creds.Hello(ctx, auth.KindLIM, host)
	if err != nil {
		return nil, err
	}
	return rpc.Dial(ctx, addr, hello)
}

// tell makes one call to host's LIM over the pooled connection when there
// is one, else over a connection of its own closed after it: announcing
// to every host must not leave a connection to each.
func (p *peerPool) tell(ctx context.Context, host string, method api.MethodDesc, req, resp wire.Message) error {
	p.mu.Lock()
	c := p.conns[host]
	p.mu.Unlock()
	if c != nil {
		return p.call(ctx, host, method, req, resp)
	}
	c, err := p.dial(ctx, host)
	if err != nil {
		return err
	}
	defer c.Close()
	return c.Call(ctx, method, req, resp)
}

func (p *peerPool) call(ctx context.Context, host string, method api.MethodDesc, req, resp wire.Message) error {
	c, err := p.client(ctx, host)
	if err != nil {
		return err
	}
	if err := c.Call(ctx, method, req, resp); err != nil {
		if rpc.CodeOf(err) == rpc.Unavailable || ctx.Err() != nil {
			p.drop(host, c)
		}
		return err
	}
	return nil
}

func (p *peerPool) drop(host string, c *rpc.Client) {
	p.mu.Lock()
	if p.conns[host] == c {
		delete(p.conns, host)
	}
	p.mu.Unlock()
	c.Close()
}

// Probe implements election.Prober.
func (p *peerPool) Probe(ctx context.Context, host string) (election.View, error) {
	var r api.PingReply
	if err := p.call(ctx, host, api.LIMPing, &api.PingRequest{From: p.self, Master: p.view()}, &r); err != nil {
		return election.View{}, err
	}
	return election.View{Host: r.Host, Master: r.Master, IsMaster: r.IsMaster, Ineligible: r.Ineligible}, nil
}

func (p *peerPool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for h, c := range p.conns {
		c.Close()
		delete(p.conns, h)
	}
}
