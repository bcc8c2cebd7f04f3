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
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/auth/authsetup"
	"github.com/basalt-lsf/basalt/internal/auth/eauth"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/config/hostsfile"
	"github.com/basalt-lsf/basalt/internal/config/lsfconf"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

func init() {
	dialBatch = func(ctx context.Context, env *Env) (batchClient, error) {
		c, err := dialMbd(ctx, env)
		if err != nil {
			return nil, err
		}
		return RPCBatchClient(c), nil
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

// dialMbd is dialMbd with lsf.conf already read.
func (cc *clientConf) dialMbd(ctx context.Context, env *Env) (*rpc.Client, error) {
	candidates := cc.conf.MasterList()
	if len(candidates) == 0 {
		return nil, &rpc.Error{Code: rpc.Unavailable, Msg: "LSF_MASTER_LIST is not defined in lsf.conf"}
	}
	creds := cc.creds(env)
	var last error
	for _, h := range candidates {
		addr, err := cc.addr(ctx, h, cc.conf.MBDPort())
		if err != nil {
			last = err
			continue
		}
		dctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		hello, err := cc.hello(dctx, creds, auth.KindMbatchd, h)
		if err != nil {
			cancel()
			return nil, err
		}
		c, err := rpc.Dial(dctx, addr, hello)
		cancel()
		if err == nil {
			return c, nil
		}
		last = err
	}
	return nil, &rpc.Error{Code: rpc.Unavailable, Msg: fmt.Sprintf("%v: %v", errNoMaster, last)}
}
