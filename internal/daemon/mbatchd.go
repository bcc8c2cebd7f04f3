package daemon

import (
	"context"
	"errors"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/basalt-lsf/basalt/internal/cli"
	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
	"github.com/basalt-lsf/basalt/internal/clock"
	"github.com/basalt-lsf/basalt/internal/lim/limclient"
	"github.com/basalt-lsf/basalt/internal/mbd"
	"github.com/basalt-lsf/basalt/internal/resreq"
	"github.com/basalt-lsf/basalt/internal/sbd/mbdkeeper"
)

func init() {
	cli.Register(&cli.Command{Name: "mbatchd", Summary: "the master batch daemon", Daemon: true, Run: runMbatchd})
}

var mbatchdSpec = lsfopt.New("d:|h|V")

func runMbatchd(ctx context.Context, env *cli.Env, args []string) int {
	res, err := mbatchdSpec.Parse(args)
	if err != nil || len(res.Operands) > 0 || res.Has("h") {
		env.Errorf("Usage: mbatchd [-h] [-V] [-d env_dir]")
		if res != nil && res.Has("h") {
			return 0
		}
		return cli.ExitUsage
	}
	if res.Has("V") {
		return cli.PrintVersion(env)
	}
	keepInherited(env, 3)
	tuneDaemon(env)
	d, ok := startBatchDaemon(ctx, env, "mbatchd", res)
	if !ok {
		return 1
	}
	defer d.close()
	base, host, log, au := d.base, d.host, d.log, d.auth
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	lim := limclient.New(base, limclient.Options{LocalHost: host, Creds: au.Creds})
	defer lim.Close()
	opts := mbd.Options{EnvDir: d.envDir, Host: host, Log: log, Getenv: env.Getenv, Load: limLoad{lim}, Auth: au.Auth, Creds: au.Creds, DebugLog: d.dlog}
	replicated := base.Conf.Replicated()
	if replicated {
		// Each replica keeps the master's log and its own lsb.events
		// and lsb.acct on its own disk.
		own := stateDir(base.Conf, host, "mbatchd")
		opts.DataDir, opts.LogDir = filepath.Join(own, "raft"), filepath.Join(own, "logdir")
	}
	srv, err := mbd.New(ctx, opts)
	if err != nil {
		log.Error("mbatchd cannot start", "err", err)
		env.Errorf("mbatchd: %v", err)
		return 1
	}
	defer mbatchdMetrics(ctx, base, host, srv, log)()
	// A single-node batch master follows the master LIM: once another
	// host is master, this mbatchd exits (the sbatchd there starts one).
	// Replicas run on every replica host; raft chooses the master.
	ctx, leave := context.WithCancel(ctx)
	defer leave()
	go func() {
		if replicated {
			return
		}
		f := &mbdkeeper.Follower{Host: host, Clock: clock.Real(), Master: lim.WatchMaster(ctx), Ask: func(ctx context.Context) (string, error) {
			actx, cancel := context.WithTimeout(ctx, 3*time.Second)
			defer cancel()
			m, _, err := lim.Master(actx)
			return m, err
		}}
		if m, err := f.Run(ctx); err == nil {
			log.Warn("the master host is now "+m+": mbatchd exits (the sbatchd there starts one)", "master", m)
			leave()
		}
	}()
	if err := srv.Run(ctx); errors.Is(err, mbd.ErrDeposed) {
		return 0 // sbatchd starts it again, as a follower
	} else if err != nil {
		log.Error("mbatchd stopped", "err", err)
		env.Errorf("mbatchd: %v", err)
		return 1
	}
	return 0
}

// limLoad feeds mbatchd with the master LIM's load picture.
type limLoad struct{ c *limclient.Client }

func (l limLoad) Load(ctx context.Context, t *resreq.Table) (map[string]*mbd.HostLoad, error) {
	cl, err := l.c.Cluster(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*mbd.HostLoad, len(cl.Hosts))
	for _, h := range cl.Hosts {
		v := cl.Vector(t, h.Name)
		hl := &mbd.HostLoad{Status: limclient.StatusString(h.Status), Num: v.Num, Str: v.Str, Type: h.Type, Model: h.Model, GPUs: h.GPUs}
		if h.Static != nil {
			hl.NCPUs = int(h.Static.NCPUs)
		}
		out[h.Name] = hl
	}
	return out, nil
}
