package daemon

import (
	"context"
	"net"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/basalt-lsf/basalt/api"
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
	closed := false
	defer func() {
		if !closed {
			bd.close()
		}
	}()
	parent := ctx
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
	bd.registerDebug(srv, api.RESDebug)
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
	// lsadmin resshutdown/resrestart (RES.Control): the cluster
	// administrators may, with root. The listener closes before the
	// caller gets its reply, then RES stops as on SIGTERM; a restart
	// runs the same binary again in this process (same pid, arguments
	// and environment: the harness and the host's namespace keep it).
	admins := bd.base.Cluster.Admins
	rs.AcctDir, rs.AcctCPU = bd.base.Conf.Get("LSF_RES_ACCTDIR"), resAcct(bd.base.Conf.Get("LSF_RES_ACCT"))
	rs.Admin = func(u string) bool { return slices.Contains(admins, u) }
	if v, _ := bd.base.Conf.Lookup("LSF_DISABLE_LSRUN"); strings.EqualFold(strings.TrimSpace(v), "y") {
		rs.DisableLsrun = true // LSF_DISABLE_LSRUN=y|Y
	}
	ctl := make(chan api.ResOp, 1)
	rs.Control = func(op api.ResOp) func() {
		ln.Close()
		return func() {
			select {
			case ctl <- op:
			default:
			}
		}
	}
	rs.Register(srv)
	go srv.Serve(ln)
	bd.log.Info("res started", "addr", ln.Addr().String())
	restart := false
	select {
	case <-ctx.Done():
	case op := <-ctl:
		restart = op == api.ResOpRestart
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	srv.Shutdown(sctx) // cancels the tasks' streams: their sessions are killed
	bd.log.Info("res stopped")
	if restart {
		bd.log.Warn("res restarting")
		if rs.Cgroups != nil {
			rs.Cgroups.RemoveParents()
		}
		closed = true
		bd.close()
		stop()
		if !env.Process {
			return runRES(parent, env, args) // in a test's process
		}
		exe, err := os.Executable()
		if err == nil {
			err = syscall.Exec(exe, os.Args, os.Environ())
		}
		env.Errorf("res: restart: %v", err)
		return 1
	}
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

// resAcct reads lsf.conf's LSF_RES_ACCT (milliseconds of CPU time above
// which RES logs a task; 0: every task): -1, no task log, when unset or
// not a non-negative number.
func resAcct(v string) int {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 {
		return -1
	}
	return n
}
