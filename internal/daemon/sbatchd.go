package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/cli"
	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
	"github.com/basalt-lsf/basalt/internal/clock"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/config/lsfconf"
	"github.com/basalt-lsf/basalt/internal/lim/limclient"
	"github.com/basalt-lsf/basalt/internal/resreq"
	"github.com/basalt-lsf/basalt/internal/rpc"
	"github.com/basalt-lsf/basalt/internal/sbd"
	"github.com/basalt-lsf/basalt/internal/sbd/cgroup"
	"github.com/basalt-lsf/basalt/internal/sbd/mbdkeeper"
	"github.com/basalt-lsf/basalt/internal/sbd/report"
	"github.com/basalt-lsf/basalt/internal/version"
)

func init() {
	cli.Register(&cli.Command{Name: "sbatchd", Summary: "the slave batch daemon (one per server host)", Daemon: true, Run: runSbatchd})
}

var sbatchdSpec = lsfopt.New("d:|h|V")

// runSbatchd runs sbatchd in the foreground until SIGTERM or SIGINT; the
// jobs it started keep running under their shepherds.
func runSbatchd(ctx context.Context, env *cli.Env, args []string) int {
	parent := ctx
	res, err := sbatchdSpec.Parse(args)
	if err != nil || len(res.Operands) > 0 || res.Has("h") {
		if err != nil {
			env.Errorf("sbatchd: %v", err)
		}
		env.Errorf("Usage: sbatchd [-h] [-V] [-d env_dir]")
		if err == nil && res.Has("h") {
			return 0
		}
		return cli.ExitUsage
	}
	if res.Has("V") {
		return cli.PrintVersion(env)
	}
	keepInherited(env, 3)
	tuneDaemon(env)
	bd, ok := startBatchDaemon(ctx, env, "sbatchd", res)
	if !ok {
		return 1
	}
	defer bd.close()
	base, host, log, au := bd.base, bd.host, bd.log, bd.auth
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	cfg := sbatchdConfig(ctx, base, bd.opts, host, bd.envDir, log)
	au.Creds.Version = cfg.Version
	lim := limclient.New(base, limclient.Options{LocalHost: host, Creds: au.Creds})
	defer lim.Close()
	var masters sync.Map // mbatchd address -> master host, for credentials
	cfg.Dial = func(ctx context.Context, addr string) (*rpc.Client, error) {
		master, _ := masters.Load(addr)
		name, _ := master.(string)
		hello, err := au.Creds.Hello(ctx, auth.KindMbatchd, name)
		if err != nil {
			return nil, err
		}
		return rpc.Dial(ctx, addr, hello)
	}
	cfg.Master = masterFinder(base, lim, &masters, cfg.Dial)
	cfg.Loads = limLoads{c: lim, host: host, t: cfg.Table}
	d, err := sbd.New(cfg)
	if err != nil {
		log.Error("sbatchd cannot start", "err", err)
		env.Errorf("sbatchd: %v", err)
		return 1
	}
	srv, err := serveSbatchd(ctx, base, host, d, au.Auth, log, func(srv *rpc.Server) { bd.registerDebug(srv, api.SBatchdDebug) })
	if err != nil {
		log.Error("sbatchd cannot listen", "err", err)
		env.Errorf("sbatchd: %v", err)
		return 1
	}
	defer sbatchdMetrics(ctx, base, host, d, srv, log)()
	// The keeper ends with sbatchd, whatever ends it.
	kctx, stopKeeper := context.WithCancel(ctx)
	defer stopKeeper() // not reached by a restart's exec: its mbatchd runs on
	keeperDone := make(chan struct{})
	go func() {
		defer close(keeperDone)
		keepMbatchd(kctx, base, host, lim, cfg.StateDir, log)
	}()
	runErr := d.Run(ctx)
	if d.Restarting() {
		// badmin hrestart: the mbatchd this sbatchd keeps (if any) runs
		// on, and the new sbatchd's keeper finds it serving.
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		srv.Shutdown(sctx)
		cancel()
		log.Warn("sbatchd restarting")
		if !env.Process {
			stopKeeper()
			<-keeperDone
			bd.close()
			stop()
			return runSbatchd(parent, env, args) // in a test's process
		}
		exe, err := os.Executable()
		if err == nil {
			err = syscall.Exec(exe, os.Args, os.Environ())
		}
		env.Errorf("sbatchd: restart: %v", err)
		return 1
	}
	stopKeeper()
	<-keeperDone
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	srv.Shutdown(sctx)
	if runErr != nil && runErr != context.Canceled {
		log.Error("sbatchd stopped", "err", runErr)
		return 1
	}
	return 0
}

// sbatchdConfig reads sbatchd's parameters: lsf.conf, lsb.params and this
// host's lsb.hosts thresholds (defaults when the batch files do not load).
func sbatchdConfig(ctx context.Context, base *config.Base, opts config.Options, host, envDir string, log *slog.Logger) sbd.Config {
	conf := base.Conf
	cfg := sbd.Config{
		Host: host, Cluster: base.ClusterName(), StateDir: sbatchdStateDir(conf, host),
		Log:       log,
		Cgroups:   os.Geteuid() == 0,
		Table:     base.ResourceTable(),
		ServerDir: conf.ServerDir(),
		Version:   version.Banner(),
	}
	cfg.ExtraEnv = append(cfg.ExtraEnv, "LSF_ENVDIR="+envDir)
	for _, k := range []string{"LSF_SERVERDIR", "LSF_BINDIR", "LSF_LIBDIR", "LSB_ECHKPNT_METHOD", "LSB_ECHKPNT_METHOD_DIR", "LSB_ECHKPNT_KEEP_OUTPUT"} {
		if v := conf.Get(k); v != "" {
			cfg.ExtraEnv = append(cfg.ExtraEnv, k+"="+v)
		}
	}
	if admins := base.Cluster.Admins; len(admins) > 0 {
		cfg.Admin = admins[0]
	}
	switch conf.JobCPULimit() {
	case lsfconf.Yes:
		cfg.JobCPULimit = 1
	case lsfconf.No:
		cfg.JobCPULimit = 2
	}
	cfg.MemLimitEnforce = strings.Contains(strings.ToLower(conf.Get("LSB_RESOURCE_ENFORCE")), "memory")
	if strings.Contains(strings.ToLower(conf.Get("LSB_RESOURCE_ENFORCE")), "gpu") {
		cfg.GPUDevicesMount = cgroup.DetectDevices()
	}
	cfg.MailProg, cfg.MailTo, cfg.MailSizeLimit = mailConfig(conf, log)
	// bpeek by others than the owner: the batch configuration (queue and
	// user group administrators) is read when asked, as it is now.
	cfg.MayPeek = func(user, owner, queue string) bool {
		lctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		full, err := config.Load(lctx, opts)
		if err != nil {
			return slices.Contains(base.Cluster.Admins, user)
		}
		return full.MayControl(user, owner, queue)
	}
	if v, err := strconv.Atoi(conf.Get("LSF_PIM_SLEEPTIME")); err == nil && v > 0 {
		cfg.SampleInterval = time.Duration(v) * time.Second
	}
	batch, err := config.LoadBatch(ctx, base, opts)
	if err != nil {
		log.Warn("batch configuration not loaded; using lsb.params defaults", "err", err)
		return cfg
	}
	cfg.SleepTime = batch.Params.SBDSleepTime
	cfg.TerminateInterval = batch.Params.JobTerminateInterval
	cfg.PGSuspIT = batch.Params.PGSuspIT
	for _, h := range batch.BatchHosts {
		if h.Name != host {
			continue
		}
		for _, t := range h.Thresholds {
			cfg.HostThresholds = append(cfg.HostThresholds, &api.Threshold{Index: t.Index, Sched: t.Sched, Stop: t.Stop, HasSched: t.HasSched, HasStop: t.HasStop})
		}
	}
	return cfg
}

// mailConfig reads the job mail parameters of lsf.conf: LSB_MAILPROG
// (default /usr/lib/sendmail, as LSF; "" when it is not set and that
// program is missing, so that jobs do not each start a mail program that
// cannot run), LSB_MAILTO and LSB_MAILSIZE_LIMIT (KB; a bad value is
// ignored, as LSF does).
func mailConfig(conf *lsfconf.Conf, log *slog.Logger) (prog, to string, limitKB int64) {
	prog, to = conf.Get("LSB_MAILPROG"), conf.Get("LSB_MAILTO")
	if prog == "" {
		if _, err := os.Stat(report.DefaultMailProg); err == nil {
			prog = report.DefaultMailProg
		} else {
			log.Info("no mail program: LSB_MAILPROG is not set and " + report.DefaultMailProg + " is missing; job mail is not sent")
		}
	}
	if v := conf.Get("LSB_MAILSIZE_LIMIT"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			log.Warn("LSB_MAILSIZE_LIMIT is not a positive integer: ignored", "value", v)
		} else {
			limitKB = n
		}
	}
	return prog, to, limitKB
}

// sbatchdStateDir is $BASALT_STATEDIR/<host>/sbatchd; without
// BASALT_STATEDIR, LSB_LOCALDIR/<host>/sbatchd, else /var/lib/basalt.
func sbatchdStateDir(conf *lsfconf.Conf, host string) string { return stateDir(conf, host, "sbatchd") }

// stateDir is a daemon's local state directory on host:
// $BASALT_STATEDIR/<host>/<daemon>; without BASALT_STATEDIR,
// LSB_LOCALDIR/<host>/<daemon>, else /var/lib/basalt/<host>/<daemon>.
func stateDir(conf *lsfconf.Conf, host, daemon string) string {
	d := conf.Get("BASALT_STATEDIR")
	if d == "" {
		d = conf.LocalDir()
	}
	if d == "" {
		d = "/var/lib/basalt"
	}
	return filepath.Join(d, host, daemon)
}

// masterFinder asks the LIMs for the master host, falling back on the
// first LSF_MASTER_LIST host when no LIM answers; mbatchd listens on the
// master's address at LSB_MBD_PORT. With a replicated master the replicas
// are asked first who leads (dial connects to an mbatchd address).
func masterFinder(base *config.Base, lim *limclient.Client, names *sync.Map, dial func(ctx context.Context, addr string) (*rpc.Client, error)) sbd.MasterFinder {
	port := strconv.Itoa(base.Conf.MBDPort())
	addrOf := func(ctx context.Context, host string) (string, error) {
		a, err := base.Resolver().Resolve(ctx, host)
		if err != nil {
			return "", err
		}
		addr := net.JoinHostPort(a.String(), port)
		names.Store(addr, host)
		return addr, nil
	}
	return sbd.MasterFunc(func(ctx context.Context) (string, error) {
		if replicas := base.Conf.MasterReplicas(); len(replicas) > 1 {
			if leader := askReplicas(ctx, replicas, addrOf, dial); leader != "" {
				return addrOf(ctx, leader)
			}
		}
		lctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		master, _, err := lim.Master(lctx)
		cancel()
		if err != nil || master == "" {
			list := base.Conf.MasterList()
			if len(list) == 0 {
				return "", fmt.Errorf("no master: %v, and LSF_MASTER_LIST is empty", err)
			}
			master = list[0]
		}
		a, err := base.Resolver().Resolve(ctx, master)
		if err != nil {
			return "", err
		}
		addr := net.JoinHostPort(a.String(), port)
		names.Store(addr, master)
		return addr, nil
	})
}

// askReplicas asks the mbatchd replicas in order who leads; "" when none
// answers with a leader.
func askReplicas(ctx context.Context, replicas []string, addrOf func(context.Context, string) (string, error),
	dial func(ctx context.Context, addr string) (*rpc.Client, error)) string {
	for _, h := range replicas {
		addr, err := addrOf(ctx, h)
		if err != nil {
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		c, err := dial(cctx, addr)
		if err != nil {
			cancel()
			continue
		}
		var reply api.LeaderReply
		err = c.Call(cctx, api.MBatchdLeader, &api.LeaderRequest{}, &reply)
		c.Close()
		cancel()
		if err == nil && reply.Leader != "" {
			return reply.Leader
		}
	}
	return ""
}

// limLoads is this host's load as the master LIM knows it.
type limLoads struct {
	c    *limclient.Client
	host string
	t    *resreq.Table
}

func (l limLoads) Load(ctx context.Context) (*resreq.Host, error) {
	cl, err := l.c.Cluster(ctx, l.host)
	if err != nil {
		return nil, err
	}
	if cl.Host(l.host) == nil {
		return nil, fmt.Errorf("LIM has no load for %s", l.host)
	}
	return cl.Vector(l.t, l.host), nil
}

// serveSbatchd serves sbatchd's RPC methods (bpeek) on the host's address
// at LSB_SBD_PORT; extra registers more (SBatchd.Debug).
func serveSbatchd(ctx context.Context, base *config.Base, host string, d *sbd.Daemon, a auth.Authenticator, log *slog.Logger, extra func(*rpc.Server)) (*rpc.Server, error) {
	ip, err := base.Resolver().Resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(ip.String(), strconv.Itoa(base.Conf.SBDPort())))
	if err != nil {
		return nil, err
	}
	srv := rpc.NewServer(a)
	srv.Log = log
	d.Register(srv)
	extra(srv)
	go srv.Serve(ln)
	return srv, nil
}

// keepMbatchd runs mbatchd on this host while its LIM says it is the
// master host (LSF: the sbatchd of the master host starts mbatchd), until
// ctx ends; then it stops the mbatchd it started. The started mbatchd's
// PID is in <state dir>/mbatchd.pid while it runs.
func keepMbatchd(ctx context.Context, base *config.Base, host string, lim *limclient.Client, stateDir string, log *slog.Logger) {
	addr := ""
	if a, err := base.Resolver().Resolve(ctx, host); err == nil {
		addr = net.JoinHostPort(a.String(), strconv.Itoa(base.Conf.MBDPort()))
	}
	pidFile := filepath.Join(stateDir, "mbatchd.pid")
	var master <-chan limclient.MasterEvent
	if replicas := base.Conf.MasterReplicas(); len(replicas) > 1 {
		// A replicated master: every replica host runs its replica
		// whoever is master (raft elects the master among them); other
		// hosts run none.
		if !slices.ContainsFunc(replicas, func(r string) bool { return strings.EqualFold(r, host) }) {
			return
		}
		always := make(chan limclient.MasterEvent, 1)
		always <- limclient.MasterEvent{Master: host}
		master = always
	} else {
		master = lim.WatchMaster(ctx)
	}
	k := &mbdkeeper.Keeper{Host: host, Clock: clock.Real(), Master: master,
		Alive: func(ctx context.Context) bool {
			if addr == "" {
				return false
			}
			var d net.Dialer
			dctx, cancel := context.WithTimeout(ctx, time.Second)
			defer cancel()
			c, err := d.DialContext(dctx, "tcp", addr)
			if err != nil {
				return false
			}
			c.Close()
			return true
		},
		Start: func() (mbdkeeper.Process, error) {
			p, err := startMbatchd(pidFile)
			if err != nil {
				return nil, err // not a nil *mbatchdProc in an interface
			}
			return p, nil
		},
		Log: log,
	}
	k.Run(ctx)
}

// mbatchdProc is an mbatchd started by keepMbatchd.
type mbatchdProc struct {
	cmd  *exec.Cmd
	done chan struct{}
}

func (p *mbatchdProc) Stop()                 { _ = p.cmd.Process.Signal(syscall.SIGTERM) }
func (p *mbatchdProc) Done() <-chan struct{} { return p.done }

// Failed: it exited with a status of its own, not 0 and not by a signal.
func (p *mbatchdProc) Failed() bool {
	st := p.cmd.ProcessState
	return st != nil && st.ExitCode() > 0
}

// startMbatchd starts this binary as mbatchd with sbatchd's environment
// (LSF_ENVDIR, BASALT_HOST) and standard error, in sbatchd's process group.
func startMbatchd(pidFile string) (*mbatchdProc, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe)
	cmd.Args = []string{"mbatchd"}
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	_ = os.WriteFile(pidFile, []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o644)
	p := &mbatchdProc{cmd: cmd, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		_ = os.Remove(pidFile)
		close(p.done)
	}()
	return p, nil
}
