package limclient

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/api/wire"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/auth/authsetup"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/lim/load"
	"github.com/basalt-lsf/basalt/internal/resreq"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

// LSF's messages for an unreachable LIM.
var (
	ErrLIMDown  = errors.New("LIM is down; try later")
	ErrNoMaster = errors.New("Cannot locate master LIM now, try later")
)

// Options configure a Client.
type Options struct {
	// LocalHost is this process's cluster host name ("" for
	// config.LocalHostName).
	LocalHost string
	// Creds make the hellos of new connections (nil: LSF_AUTH's, as a
	// user's command of LocalHost).
	Creds auth.Credentials
	// Addrs overrides LIM addresses by host (tests).
	Addrs map[string]string
	// Timeout bounds each call that has no deadline (10 s when 0).
	Timeout time.Duration
}

// Client talks to a cluster's LIMs. It is safe for concurrent use.
type Client struct {
	base *config.Base
	opts Options

	mu    sync.Mutex
	conns map[string]*rpc.Client
	// masters holds the master addresses learnt from Ping replies
	// (Master), consulted by Addr after opts.Addrs; guarded by mu.
	masters map[string]string
}

// New returns a Client for the cluster of base.
func New(base *config.Base, opts Options) *Client {
	if opts.LocalHost == "" {
		opts.LocalHost, _ = config.LocalHostName(base.Conf, nil, nil)
	}
	if opts.Timeout == 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.Creds == nil {
		opts.Creds = authsetup.Client(base.Conf, base.EnvDir, opts.LocalHost, auth.KindUser)
	}
	return &Client{base: base, opts: opts, conns: map[string]*rpc.Client{}, masters: map[string]string{}}
}

// Close closes the Client's connections.
func (c *Client) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for h, cl := range c.conns {
		cl.Close()
		delete(c.conns, h)
	}
	return nil
}

// Addr returns the LIM address of host: LSF_CONFDIR/hosts or the system
// resolver, port LSF_LIM_PORT.
func (c *Client) Addr(ctx context.Context, host string) (string, error) {
	if a, ok := c.opts.Addrs[host]; ok {
		return a, nil
	}
	c.mu.Lock()
	a, ok := c.masters[host]
	c.mu.Unlock()
	if ok {
		return a, nil
	}
	ip, err := c.base.Resolver().Resolve(ctx, host)
	if err != nil {
		return "", err
	}
	return net.JoinHostPort(ip.String(), strconv.Itoa(c.base.Conf.LIMPort())), nil
}

func (c *Client) conn(ctx context.Context, host string) (*rpc.Client, error) {
	c.mu.Lock()
	cl := c.conns[host]
	c.mu.Unlock()
	if cl != nil {
		select {
		case <-cl.Done():
		default:
			return cl, nil
		}
	}
	addr, err := c.Addr(ctx, host)
	if err != nil {
		return nil, err
	}
	hello, err := c.opts.Creds.Hello(ctx, auth.KindLIM, host)
	if err != nil {
		return nil, err
	}
	cl, err = rpc.Dial(ctx, addr, hello)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if old := c.conns[host]; old != nil {
		old.Close()
	}
	c.conns[host] = cl
	c.mu.Unlock()
	return cl, nil
}

func (c *Client) call(ctx context.Context, host string, method api.MethodDesc, req, resp wire.Message) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.opts.Timeout)
		defer cancel()
	}
	cl, err := c.conn(ctx, host)
	if err != nil {
		return err
	}
	err = cl.Call(ctx, method, req, resp)
	if rpc.CodeOf(err) == rpc.Unavailable {
		c.mu.Lock()
		if c.conns[host] == cl {
			delete(c.conns, host)
		}
		c.mu.Unlock()
		cl.Close()
	}
	return err
}

// Ping asks the LIM of host for its view of the master.
func (c *Client) Ping(ctx context.Context, host string) (*api.PingReply, error) {
	var r api.PingReply
	if err := c.call(ctx, host, api.LIMPing, &api.PingRequest{From: c.opts.LocalHost}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// candidates returns the hosts to ask, in order: the local host (when it
// is in the cluster), then the master candidates.
func (c *Client) candidates() []string {
	var out []string
	seen := map[string]bool{}
	add := func(h string) {
		if h != "" && !seen[strings.ToLower(h)] {
			seen[strings.ToLower(h)] = true
			out = append(out, h)
		}
	}
	if h := c.base.Cluster.Host(c.opts.LocalHost); h != nil && h.Server {
		add(h.Name)
	}
	for _, m := range c.base.Conf.MasterList() {
		if h := c.base.Cluster.Host(m); h != nil && h.Server {
			add(h.Name)
		}
	}
	for _, h := range c.base.Cluster.ServerHosts() {
		add(h)
	}
	return out
}

// Master returns the master LIM's host and address.
func (c *Client) Master(ctx context.Context) (host, addr string, err error) {
	any := false
	for _, h := range c.candidates() {
		r, err := c.Ping(ctx, h)
		if err != nil {
			if ctx.Err() != nil {
				return "", "", ctx.Err()
			}
			continue
		}
		any = true
		if r.Master != "" {
			if r.MasterAddr != "" {
				c.mu.Lock()
				if _, ok := c.masters[r.Master]; !ok {
					c.masters[r.Master] = r.MasterAddr
				}
				c.mu.Unlock()
			}
			return r.Master, r.MasterAddr, nil
		}
	}
	if !any {
		return "", "", ErrLIMDown
	}
	return "", "", ErrNoMaster
}

// Cluster returns the master LIM's picture of hosts (every host when none
// is named). It retries once through a new master when the one it asked
// has just stepped down.
func (c *Client) Cluster(ctx context.Context, hosts ...string) (*Cluster, error) {
	var last error
	for try := 0; try < 3; try++ {
		m, _, err := c.Master(ctx)
		if err != nil {
			return nil, err
		}
		var r api.ClusterReply
		if err := c.call(ctx, m, api.LIMCluster, &api.ClusterRequest{Hosts: hosts}, &r); err != nil {
			last = err
			continue
		}
		return newCluster(&r), nil
	}
	return nil, fmt.Errorf("%w (%v)", ErrNoMaster, last)
}

// Control asks the LIM of host to lock, unlock, shut down or reconfigure.
func (c *Client) Control(ctx context.Context, host string, req *api.LimControlRequest) (*api.LimControlReply, error) {
	var r api.LimControlReply
	if err := c.call(ctx, host, api.LIMControl, req, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Debug asks host's LIM to change its log (lsadmin limdebug, limtime).
func (c *Client) Debug(ctx context.Context, host string, req *api.DebugRequest) (*api.DebugReply, error) {
	var r api.DebugReply
	if err := c.call(ctx, host, api.LIMDebug, req, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// MasterEvent is a change of master seen by a LIM.
type MasterEvent struct {
	Master, Addr string
	Epoch        uint64
}

// WatchMaster reports the master as the local host's LIM sees it, now and
// at every change, until ctx ends. It reconnects when that LIM restarts
// and reports Master "" while no LIM answers. The channel is closed when
// ctx ends.
func (c *Client) WatchMaster(ctx context.Context) <-chan MasterEvent {
	out := make(chan MasterEvent, 1)
	go func() {
		defer close(out)
		last := MasterEvent{Master: "\x00"}
		emit := func(ev MasterEvent) bool {
			if ev.Master == last.Master && ev.Addr == last.Addr {
				return true
			}
			last = ev
			select {
			case out <- ev:
				return true
			case <-ctx.Done():
				return false
			}
		}
		backoff := 100 * time.Millisecond
		for ctx.Err() == nil {
			host := c.opts.LocalHost
			if h := c.base.Cluster.Host(host); h == nil {
				if cs := c.candidates(); len(cs) > 0 {
					host = cs[0]
				}
			}
			cl, err := c.conn(ctx, host)
			var st *rpc.ClientStream
			if err == nil {
				st, err = cl.Stream(ctx, api.LIMWatch, &api.PingRequest{From: c.opts.LocalHost})
			}
			if err == nil {
				backoff = 100 * time.Millisecond
				for {
					var r api.PingReply
					if err := st.Recv(&r); err != nil {
						break
					}
					if !emit(MasterEvent{Master: r.Master, Addr: r.MasterAddr, Epoch: r.Epoch}) {
						return
					}
				}
			}
			if !emit(MasterEvent{}) {
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(backoff):
			}
			if backoff < 2*time.Second {
				backoff *= 2
			}
		}
	}()
	return out
}

// Cluster is the master LIM's picture of the cluster, with lookups for the
// scheduler.
type Cluster struct {
	*api.ClusterReply
	byName map[string]*api.HostLoad
}

func newCluster(r *api.ClusterReply) *Cluster {
	c := &Cluster{ClusterReply: r, byName: map[string]*api.HostLoad{}}
	for _, h := range r.Hosts {
		c.byName[strings.ToLower(h.Name)] = h
	}
	return c
}

// Host returns a host's entry.
func (c *Cluster) Host(name string) *api.HostLoad { return c.byName[strings.ToLower(name)] }

// Value returns the current value of a numeric resource on host: a
// built-in load index (raw run queue lengths, ut as a fraction), a
// host-based external index, or a shared dynamic or static numeric
// resource of an instance that includes host.
func (c *Cluster) Value(name, host string) (float64, bool) {
	h := c.Host(host)
	if h == nil {
		return 0, false
	}
	if i, ok := load.IndexOf(name); ok {
		if i < len(h.Load) {
			return h.Load[i], true
		}
		return 0, false
	}
	for _, e := range h.Ext {
		if e.Name == name {
			return e.Value, true
		}
	}
	for _, s := range c.Shared {
		if s.Name != name || !s.Numeric {
			continue
		}
		for _, in := range s.Instances {
			for _, hn := range in.Hosts {
				if strings.EqualFold(hn, h.Name) {
					v, err := strconv.ParseFloat(in.Value, 64)
					return v, err == nil
				}
			}
		}
	}
	return 0, false
}

// Vector returns host's value vector for the resource requirement
// language, indexed by t: load indices, static resources, lsf.cluster
// RESOURCES, host-based external indices and shared resources. Run queue
// lengths are effective values (what thresholds and select compare), ut a
// fraction. Undefined values are NaN or ""; an unavail host has no load.
func (c *Cluster) Vector(t *resreq.Table, host string) *resreq.Host {
	h := c.Host(host)
	v := &resreq.Host{Num: make([]float64, t.Len()), Str: make([]string, t.Len())}
	for i := range v.Num {
		v.Num[i] = math.NaN()
	}
	if h == nil {
		return v
	}
	ncpus := 1
	if h.Static != nil && h.Static.NCPUs > 0 {
		ncpus = int(h.Static.NCPUs)
	}
	for i := 0; i < len(h.Load) && i < resreq.NumLoadIndices; i++ {
		x := h.Load[i]
		if i <= resreq.IdxR15m {
			x = load.Effective(x, ncpus)
		}
		v.Num[i] = x
	}
	if s := h.Static; s != nil {
		for i, x := range map[int]int32{resreq.IdxNcpus: s.NCPUs, resreq.IdxNprocs: s.NProcs, resreq.IdxNcores: s.NCores,
			resreq.IdxNthreads: s.NThreads, resreq.IdxNdisks: s.NDisks, resreq.IdxMaxmem: s.MaxMem,
			resreq.IdxMaxswp: s.MaxSwp, resreq.IdxMaxtmp: s.MaxTmp} {
			if x > 0 || i == resreq.IdxNdisks {
				v.Num[i] = float64(x)
			}
		}
	}
	v.Num[resreq.IdxCpuf] = h.CPUF
	v.Num[resreq.IdxRexpri] = float64(h.RExPri)
	v.Num[resreq.IdxServer] = b2f(h.Server)
	v.Str[resreq.IdxType] = h.Type
	v.Str[resreq.IdxModel] = h.Model
	v.Str[resreq.IdxHname] = h.Name
	v.Str[resreq.IdxStatus] = StatusString(h.Status)
	for i := resreq.NumBuiltin; i < t.Len(); i++ {
		d := t.Def(i)
		if d.Type == resreq.Boolean {
			v.Num[i] = 0
		}
	}
	for _, r := range h.Resources {
		name, val, _ := strings.Cut(strings.TrimPrefix(r, "!"), "=")
		i, ok := t.Index(name)
		if !ok {
			continue
		}
		switch t.Def(i).Type {
		case resreq.Boolean:
			v.Num[i] = 1
		case resreq.Numeric:
			if x, err := strconv.ParseFloat(val, 64); err == nil {
				v.Num[i] = x
			}
		default:
			v.Str[i] = val
		}
		if strings.HasPrefix(r, "!") {
			v.Exclusive = append(v.Exclusive, i)
		}
	}
	for _, e := range h.Ext {
		if i, ok := t.Index(e.Name); ok {
			v.Num[i] = e.Value
		}
	}
	for _, s := range c.Shared {
		i, ok := t.Index(s.Name)
		if !ok {
			continue
		}
		for _, in := range s.Instances {
			for _, hn := range in.Hosts {
				if !strings.EqualFold(hn, h.Name) {
					continue
				}
				switch t.Def(i).Type {
				case resreq.Boolean:
					v.Num[i] = 1
				case resreq.Numeric:
					if x, err := strconv.ParseFloat(in.Value, 64); err == nil {
						v.Num[i] = x
					}
				default:
					v.Str[i] = in.Value
				}
			}
		}
	}
	return v
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// StatusString is lsload's status text: ok, busy, lockU, lockW, lockUW,
// unavail.
func StatusString(s api.LimStatus) string {
	switch {
	case s&api.LimUnavail != 0:
		return "unavail"
	case s&(api.LimLockU|api.LimLockW) != 0:
		out := "lock"
		if s&api.LimLockU != 0 {
			out += "U"
		}
		if s&api.LimLockW != 0 {
			out += "W"
		}
		return out
	case s&api.LimBusy != 0:
		return "busy"
	}
	return "ok"
}
