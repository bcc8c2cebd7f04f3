package daemon

import (
	"context"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/basalt-lsf/basalt/internal/cli"
	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/config/lsfconf"
	"github.com/basalt-lsf/basalt/internal/res"
	"github.com/basalt-lsf/basalt/internal/rpc"
	"github.com/basalt-lsf/basalt/internal/sbd/cgroup"
)

func init() {
	cli.Register(&cli.Command{Name: "res", Summary: "the remote execution server (one per server host)", Daemon: true, Run: runRES})
}

var resSpec = lsfopt.New("d:|h|V")

// runRES runs RES in the foreground until SIGTERM or SIGINT: it listens
// on the host's address at LSF_RES_PORT, authenticates as the other
// daemons do, and logs to LSF_LOGDIR/res.log.<host>. Its tasks are killed
// when it stops.
func runRES(ctx context.Context, env *cli.Env, args []string) int {
	opts, err := resSpec.Parse(args)
	if err != nil || len(opts.Operands) > 0 || opts.Has("h") {
		if err != nil {
			env.Errorf("res: %v", err)
		}
		env.Errorf("Usage: res [-h] [-V] [-d env_dir]")
		if err == nil && opts.Has("h") {
			return 0
		}
		return cli.ExitUsage
	}
	if opts.Has("V") {
		return cli.PrintVersion(env)
	}
	keepInherited(env, 3)
	bd, ok := startBatchDaemon(ctx, env, "res", opts)
	if !ok {
		return 1
	}
	defer bd.close()
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	ip, err := bd.base.Resolver().Resolve(ctx, bd.host)
	if err != nil {
		bd.log.Error("res cannot start", "err", err)
		env.Errorf("res: %v", err)
		return 1
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(ip.String(), strconv.Itoa(bd.base.Conf.RESPort())))
	if err != nil {
		bd.log.Error("res cannot listen", "err", err)
		env.Errorf("res: %v", err)
		return 1
	}
	srv := rpc.NewServer(bd.auth.Auth)
	srv.Log = bd.log
	rs := &res.Server{Host: bd.host, Cluster: bd.base.ClusterName(), RootRex: rootRex(bd.base.Conf), Log: bd.log}
	// Tasks in control groups of their own, as sbatchd's jobs, under
	// basalt/<cluster>/<host>.<id of RES's state directory>.
	if os.Geteuid() == 0 {
		if h, err := cgroup.Detect(); err == nil {
			rs.Cgroups = cgroup.New(h, config.JobCgroupParent(bd.base.ClusterName(), bd.host, stateDir(bd.base.Conf, bd.host, "res")))
			defer rs.Cgroups.RemoveParents()
		} else {
			bd.log.Warn("no cgroups: a task's session only is tracked", "err", err)
		}
	}
	if env.Getenv("BASALT_HOST") != "" {
		rs.Env = []string{"BASALT_HOST=" + bd.host}
	}
	rs.Register(srv)
	go srv.Serve(ln)
	bd.log.Info("res started", "addr", ln.Addr().String())
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	srv.Shutdown(sctx) // cancels the tasks' streams: their sessions are killed
	bd.log.Info("res stopped")
	return 0
}

// rootRex: lsf.conf's LSF_ROOT_REX lets root's tasks run as root (any
// value but n/no, as mbatchd reads it).
func rootRex(conf *lsfconf.Conf) bool {
	v, ok := conf.Lookup("LSF_ROOT_REX")
	if !ok {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "n", "no", "":
		return false
	}
	return true
}
