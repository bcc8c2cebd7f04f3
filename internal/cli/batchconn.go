package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/api/wire"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/auth/authsetup"
	"github.com/basalt-lsf/basalt/internal/auth/eauth"
	"github.com/basalt-lsf/basalt/internal/clock"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/config/hostsfile"
	"github.com/basalt-lsf/basalt/internal/config/lsfconf"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

func init() {
	dialBatch = func(ctx context.Context, env *Env) (batchClient, error) {
		cc, err := loadClientConf(env)
		if err != nil {
			return nil, &rpc.Error{Code: rpc.Unavailable, Msg: err.Error()}
		}
		c, err := cc.dialMbd(ctx, env)
		if err != nil {
			return nil, err
		}
		if !cc.conf.Replicated() {
			return RPCBatchClient(c), nil
		}
		return &failoverClient{c: c, redial: func(ctx context.Context) (*rpc.Client, error) { return cc.dialMbd(ctx, env) }}, nil
	}
}

// failoverClient sends a request again to the new master when the
// replica it reached says it is not (or no longer) the master (such a
// replica did nothing with it), and a query again when the connection
// broke under it.
type failoverClient struct {
	c      *rpc.Client
	redial func(ctx context.Context) (*rpc.Client, error)
}

// maxRedirects bounds the redirects a request follows.
const maxRedirects = 3

// readOnly are the methods a command may send again when the connection
// broke under them (the master failed): asking twice changes nothing.
var readOnly = map[string]bool{
	api.MBatchdJobs.Name(): true, api.MBatchdQueues.Name(): true, api.MBatchdHosts.Name(): true,
	api.MBatchdSharedResources.Name(): true, api.MBatchdPartitions.Name(): true,
	api.MBatchdApplications.Name(): true, api.MBatchdUsers.Name(): true, api.MBatchdGroups.Name(): true,
	api.MBatchdParams.Name(): true, api.MBatchdInfo.Name(): true, api.MBatchdHistory.Name(): true,
	api.MBatchdAcct.Name(): true,
}

func (f *failoverClient) again(ctx context.Context, method api.MethodDesc, err error, tries int) bool {
	lost := errors.Is(err, rpc.ErrClosed) && readOnly[method.RPCMethod().Name()]
	if rpc.CodeOf(err) != rpc.FailedPrecondition && !lost || tries >= maxRedirects {
		return false
	}
	// A master handing over the role refuses for a few milliseconds.
	select {
	case <-time.After(time.Duration(tries) * 100 * time.Millisecond):
	case <-ctx.Done():
		return false
	}
	nc, derr := f.redial(ctx)
	if derr != nil {
		return false
	}
	f.c.Close()
	f.c = nc
	return true
}

func (f *failoverClient) Call(ctx context.Context, method api.MethodDesc, req, resp wire.Message) error {
	for tries := 0; ; tries++ {
		err := f.c.Call(ctx, method, req, resp)
		if !f.again(ctx, method, err, tries) {
			return err
		}
	}
}

func (f *failoverClient) Stream(ctx context.Context, method api.MethodDesc, req wire.Message) (batchStream, error) {
	st, err := f.c.Stream(ctx, method, req)
	if err != nil {
		return nil, err
	}
	return &failoverStream{f: f, ctx: ctx, method: method, req: req, st: st}, nil
}

func (f *failoverClient) Close() error { return f.c.Close() }

// failoverStream opens the stream again on the master when its first
// message is a replica's refusal.
type failoverStream struct {
	f      *failoverClient
	ctx    context.Context
	method api.MethodDesc
	req    wire.Message
	st     *rpc.ClientStream
	got    bool // a message came: no retry any more
	tries  int
}

func (s *failoverStream) Recv(m wire.Message) error {
	for {
		err := s.st.Recv(m)
		if s.got || !s.f.again(s.ctx, s.method, err, s.tries) {
			s.got = s.got || err == nil
			return err
		}
		s.tries++
		if s.st, err = s.f.c.Stream(s.ctx, s.method, s.req); err != nil {
			return err
		}
	}
}

// clientConf is what commands read to find the daemons: lsf.conf and the
// hosts file, nothing else, so that a command starts quickly.
type clientConf struct {
	envDir string
	conf   *lsfconf.Conf
	hosts  *hostsfile.File
}

// loadClientConf reads lsf.conf from LSF_ENVDIR (default /etc).
func loadClientConf(env *Env) (*clientConf, error) {
	envDir := env.Getenv("LSF_ENVDIR")
	if envDir == "" {
		envDir = config.DefaultEnvDir
	}
	conf, _, err := config.LoadConf(config.Options{EnvDir: envDir, Getenv: env.Getenv})
	if err != nil {
		return nil, fmt.Errorf("cannot read the LSF configuration (LSF_ENVDIR=%s): %w", envDir, err)
	}
	cc := &clientConf{envDir: envDir, conf: conf}
	if dir := conf.ConfDir(); dir != "" {
		path := filepath.Join(dir, "hosts")
		if src, err := os.ReadFile(path); err == nil {
			cc.hosts, _ = hostsfile.Parse(path, src)
		}
	}
	return cc, nil
}

// addr resolves host to "ip:port".
func (c *clientConf) addr(ctx context.Context, host string, port int) (string, error) {
	r := &config.Resolver{Hosts: c.hosts}
	a, err := r.Resolve(ctx, host)
	if err != nil {
		return "", err
	}
	return net.JoinHostPort(a.String(), strconv.Itoa(port)), nil
}

// creds are the command's credentials (LSF_AUTH).
func (c *clientConf) creds(env *Env) *eauth.Client {
	return authsetup.Client(c.conf, c.envDir, c.localHost(env), auth.KindUser)
}

// hello is the hello of a new connection to daemon on host.
func (c *clientConf) hello(ctx context.Context, creds *eauth.Client, daemon, host string) (*api.ConnHello, error) {
	h, err := creds.Hello(ctx, daemon, host)
	if err != nil {
		return nil, &rpc.Error{Code: rpc.Unauthenticated, Msg: err.Error()}
	}
	return h, nil
}

// localHost is the command's cluster host name.
func (c *clientConf) localHost(env *Env) string {
	h, err := config.LocalHostName(c.conf, env.Getenv, nil)
	if err != nil {
		return ""
	}
	return h
}

var osUser = sync.OnceValues(func() (*user.User, error) { return user.Current() })

// userName is the invoking user's name.
func userName() string {
	if u, err := osUser(); err == nil {
		return u.Username
	}
	return strconv.Itoa(os.Getuid())
}

// errNoMaster is the failure to reach any mbatchd.
var errNoMaster = errors.New("cannot reach mbatchd on any master candidate")

// dialMbd connects to the master's mbatchd: the LSF_MASTER_LIST candidates
// are tried in order (mbatchd runs only on the master).
func dialMbd(ctx context.Context, env *Env) (*rpc.Client, error) {
	cc, err := loadClientConf(env)
	if err != nil {
		return nil, &rpc.Error{Code: rpc.Unavailable, Msg: err.Error()}
	}
	return cc.dialMbd(ctx, env)
}

// dialMbd is dialMbd with lsf.conf already read. With a replicated master
// (lsf.conf BASALT_MASTER_REPLICAS) every replica answers, so each is asked
// who leads and the command goes there; while none leads (a failover) it
// tries again for masterWait.
func (cc *clientConf) dialMbd(ctx context.Context, env *Env) (*rpc.Client, error) {
	candidates := cc.conf.MasterList()
	if len(candidates) == 0 {
		return nil, &rpc.Error{Code: rpc.Unavailable, Msg: "LSF_MASTER_LIST is not defined in lsf.conf"}
	}
	creds := cc.creds(env)
	replicas := cc.conf.MasterReplicas()
	if len(replicas) <= 1 {
		return cc.dialFirst(ctx, creds, candidates)
	}
	clk := env.Clock
	if clk == nil {
		clk = clock.Real()
	}
	deadline := clk.Now().Add(masterWait)
	wait := 50 * time.Millisecond
	for {
		c, err := cc.dialLeader(ctx, creds, replicas)
		if err == nil || clk.Now().After(deadline) || rpc.CodeOf(err) == rpc.Unauthenticated {
			return c, err
		}
		t := clk.NewTimer(wait)
		select {
		case <-t.C():
		case <-ctx.Done():
			t.Stop()
			return nil, err
		}
		wait = min(2*wait, time.Second)
	}
}

// masterWait is how long a command looks for the leader of a replicated
// master before it gives up (a failover takes a few seconds).
const masterWait = 30 * time.Second

// dialFirst connects to the first candidate whose mbatchd accepts.
func (cc *clientConf) dialFirst(ctx context.Context, creds *eauth.Client, candidates []string) (*rpc.Client, error) {
	var last error
	for _, h := range candidates {
		c, err := cc.dialHost(ctx, creds, h)
		if err == nil {
			return c, nil
		}
		if rpc.CodeOf(err) == rpc.Unauthenticated {
			return nil, err
		}
		last = err
	}
	return nil, &rpc.Error{Code: rpc.Unavailable, Msg: fmt.Sprintf("%v: %v", errNoMaster, last)}
}

// dialHost connects to the mbatchd of host.
func (cc *clientConf) dialHost(ctx context.Context, creds *eauth.Client, h string) (*rpc.Client, error) {
	addr, err := cc.addr(ctx, h, cc.conf.MBDPort())
	if err != nil {
		return nil, err
	}
	dctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	hello, err := cc.hello(dctx, creds, auth.KindMbatchd, h)
	if err != nil {
		return nil, err
	}
	return rpc.Dial(dctx, addr, hello)
}

// dialLeader asks the replicas in order who leads and connects there.
func (cc *clientConf) dialLeader(ctx context.Context, creds *eauth.Client, replicas []string) (*rpc.Client, error) {
	var last error = errors.New("no replica knows a master")
	tried := map[string]bool{}
	for _, h := range replicas {
		for hop := 0; h != "" && !tried[h] && hop < 2; hop++ {
			tried[h] = true
			c, err := cc.dialHost(ctx, creds, h)
			if err != nil {
				if rpc.CodeOf(err) == rpc.Unauthenticated {
					return nil, err
				}
				last = err
				break
			}
			cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
			var reply api.LeaderReply
			err = c.Call(cctx, api.MBatchdLeader, &api.LeaderRequest{}, &reply)
			cancel()
			if err == nil && reply.IsLeader {
				return c, nil
			}
			c.Close()
			if err != nil {
				last = err
				break
			}
			h = reply.Leader // follow the redirect
		}
	}
	return nil, &rpc.Error{Code: rpc.Unavailable, Msg: fmt.Sprintf("%v: %v", errNoMaster, last)}
}
