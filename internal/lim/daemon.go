package lim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/clock"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/lim/election"
	"github.com/basalt-lsf/basalt/internal/lim/load"
	"github.com/basalt-lsf/basalt/internal/lim/melim"
	"github.com/basalt-lsf/basalt/internal/logging"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

// Options configure a LIM.
type Options struct {
	// EnvDir is LSF_ENVDIR (lsf.conf's directory).
	EnvDir string
	// Host is this LIM's cluster host name; "" means BASALT_HOST or the
	// system host name (config.LocalHostName).
	Host string
	// Clock drives sampling, reports, election and elim restarts.
	Clock clock.Clock
	// Getenv reads the environment (nil: os.Getenv); Environ is the elims'
	// base environment (nil: os.Environ).
	Getenv  func(string) string
	Environ func() []string
	// Stderr receives the log when LSF_LOGDIR is unset.
	Stderr io.Writer
	// Auth authenticates connections; nil: lsf.conf's LSF_AUTH (eauth:
	// the key of lsf.sudoers, the replay cache in the state directory, and
	// this host's signing agent).
	Auth auth.Authenticator
	// Creds make the hellos of the LIM's connections to its peers; nil:
	// LSF_AUTH's, as LIM of this host.
	Creds auth.Credentials
	// Sampler replaces the /proc sampler (tests).
	Sampler Sampler
	// Listener, when set, is used instead of listening on the host's
	// address at LSF_LIM_PORT (tests, benchmarks).
	Listener net.Listener
	// Ready, when set, is closed once the LIM serves.
	Ready chan<- struct{}
	// LeaderPoll is how often, with mbatchd replicated, the LIM of a
	// replica host asks its mbatchd whether it leads (DefaultLeaderPoll
	// when 0).
	LeaderPoll time.Duration
}

// Sampler measures the local host.
type Sampler interface {
	Sample() (load.Values, load.Static, error)
}

// DefaultStateDir is BASALT_STATEDIR's default.
const DefaultStateDir = "/var/lib/basalt"

// StateDir returns a LIM's local state directory:
// $BASALT_STATEDIR/<host>/lim.
func StateDir(b *config.Base, host string) string {
	d := b.Conf.Get("BASALT_STATEDIR")
	if d == "" {
		d = DefaultStateDir
	}
	return filepath.Join(d, host, "lim")
}

// OverrideFile is the load override file of a host (see load.ParseOverride).
func OverrideFile(b *config.Base, host string) string {
	return filepath.Join(StateDir(b, host), "load.override")
}

// LIM is one running Load Information Manager.
type LIM struct {
	opts    Options
	clk     clock.Clock
	host    string
	cluster string // the cluster's name (fixed for the LIM's life)
	// Timing fixed at start (reconfig does not change them).
	exInterval, probeTimeout time.Duration
	log                      *slog.Logger
	logFile                  *logging.Log // lim.log.<host>
	melimLog                 *logging.Log // melim.log.<host>, opened with the first elim

	ops     chan func()
	stopped chan struct{}
	cancel  context.CancelFunc

	// Owned by the loop goroutine.
	base     *config.Base
	m        *model
	tbl      *table // master only
	sample   load.Values
	static   load.Static
	sampled  bool
	lockedU  bool
	lockTill int64
	seq      uint64
	boot     time.Time
	elim     *melim.Manager
	elimRes  []string
	elimRun  bool
	elimMast bool
	elimVals map[string]float64
	gpus     []*api.GPUDevice // detected at start (lim_gpu.go)

	authClose func() // the replay cache and the agent

	elect *election.Election
	// replicated: mbatchd is replicated (lsf.conf at start); a candidate
	// is then master only while its host's mbatchd leads (leader polls
	// it, nil on a candidate that is not a replica host).
	replicated bool
	leader     *leaderWatch
	srv        *rpc.Server
	peers      *peerPool
	addr       string
	// announcing cancels the announcement under way (loop goroutine).
	announcing context.CancelFunc
}

// Run starts a LIM and serves until ctx ends, then shuts down cleanly.
func Run(ctx context.Context, opts Options) error {
	l, err := start(ctx, opts)
	if err != nil {
		return err
	}
	return l.wait(ctx)
}

func (o *Options) fill() {
	if o.Clock == nil {
		o.Clock = clock.Real()
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Environ == nil {
		o.Environ = os.Environ
	}
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
}

func loadBase(ctx context.Context, opts Options) (*config.Base, error) {
	b, err := config.LoadBase(ctx, config.Options{EnvDir: opts.EnvDir, Getenv: opts.Getenv, LocalHost: opts.Host, Clock: opts.Clock})
	if err != nil {
		return nil, fmt.Errorf("lim: %w", err)
	}
	return b, nil
}

func start(ctx context.Context, opts Options) (*LIM, error) {
	opts.fill()
	b, err := loadBase(ctx, opts)
	if err != nil {
		return nil, err
	}
	host := opts.Host
	if host == "" {
		if host, err = config.LocalHostName(b.Conf, opts.Getenv, nil); err != nil {
			return nil, fmt.Errorf("lim: %w", err)
		}
	}
	m := newModel(b)
	if h := m.host(host); h == nil {
		return nil, fmt.Errorf("lim: host %s is not in lsf.cluster.%s", host, m.name)
	} else {
		host = h.Name
	}
	l := &LIM{opts: opts, clk: opts.Clock, host: host, cluster: m.name, exInterval: m.params.ExInterval, probeTimeout: m.params.ProbeTimeout, base: b, m: m, ops: make(chan func(), 64),
		stopped: make(chan struct{}), boot: opts.Clock.Now()}
	l.openLogs(ctx)
	if err := l.setupAuth(ctx); err != nil {
		l.closeLogs()
		return nil, fmt.Errorf("lim: %w", err)
	}
	l.peers = newPeerPool(b, host, l.opts.Creds)
	ln := opts.Listener
	if ln == nil {
		a, err := b.Resolver().Resolve(ctx, host)
		if err != nil {
			l.closeAuth()
			l.closeLogs()
			return nil, fmt.Errorf("lim: address of %s: %w", host, err)
		}
		ln, err = net.Listen("tcp", net.JoinHostPort(a.String(), strconv.Itoa(b.Conf.LIMPort())))
		if err != nil {
			l.closeAuth()
			l.closeLogs()
			return nil, fmt.Errorf("lim: %w", err)
		}
	}
	l.addr = ln.Addr().String()
	opts = l.opts
	if opts.Sampler == nil {
		opts.Sampler = &load.Sampler{Clock: opts.Clock, OverrideFile: OverrideFile(b, host)}
		l.opts.Sampler = opts.Sampler
	}
	l.srv = rpc.NewServer(opts.Auth)
	l.srv.Log = l.log
	l.register()

	ctx, cancel := context.WithCancel(ctx)
	l.cancel = cancel
	l.elect = election.New(election.Config{Self: host, Candidates: m.candidates, Interval: m.params.ExInterval,
		ProbeTimeout: m.params.ProbeTimeout, Clock: opts.Clock, Prober: l.peers,
		OnChange: func(old, new string) { l.masterChanged(ctx, old, new) }, Eligible: l.eligibility()})
	l.peers.view = l.elect.Master
	l.takeSample()
	go l.loop(ctx)
	go l.srv.Serve(ln)
	if l.leader != nil {
		go l.leader.run(ctx)
	}
	go l.elect.Run(ctx)
	go l.reporter(ctx)
	l.log.Info(fmt.Sprintf("LIM %s started: cluster %s, address %s, candidates %s", host, m.name, l.addr, strings.Join(m.candidates, " ")))
	if opts.Ready != nil {
		close(opts.Ready)
	}
	return l, nil
}

// eligibility returns the election's Eligible: nil (always eligible)
// unless mbatchd is replicated and this host is a candidate. Then the
// master LIM follows the raft leader: a candidate that runs a replica is
// eligible while its mbatchd leads (l.leader polls it), one that does not
// never is. Fixed at start, as the candidates are.
func (l *LIM) eligibility() func() bool {
	conf := l.base.Conf
	l.replicated = conf.Replicated()
	if !l.replicated || index(l.m.candidates, l.host) < 0 {
		return nil
	}
	replica := false
	for _, r := range conf.MasterReplicas() {
		if h := l.m.host(r); h != nil && h.Name == l.host {
			replica = true
		}
	}
	if !replica {
		return func() bool { return false }
	}
	every := l.opts.LeaderPoll
	if every <= 0 {
		every = DefaultLeaderPoll
	}
	l.leader = &leaderWatch{host: l.host, addr: mbdAddr(l.base, l.host), creds: l.opts.Creds, clk: l.clk, every: every,
		log: l.log, changed: func() { l.elect.Reconsider() }}
	return l.leader.Eligible
}

func index(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// openLogs opens lim.log.<host> (standard error without LSF_LOGDIR),
// reopened on SIGHUP.
func (l *LIM) openLogs(ctx context.Context) {
	conf := l.base.Conf
	param, mask := logging.MaskParam(conf, "lim")
	classes, timing := logging.DebugParams(conf, "lim")
	l.logFile = logging.New(logging.Config{Daemon: "lim", Host: l.host, Dir: conf.LogDir(), MaskParam: param, Mask: mask, Stderr: l.opts.Stderr,
		Classes: classes, Timing: timing})
	l.logFile.ReopenOn(ctx, syscall.SIGHUP)
	l.log = l.logFile.Logger
}

func (l *LIM) closeLogs() {
	l.logFile.Close()
	if l.melimLog != nil {
		l.melimLog.Close()
	}
}

// melimLogger is the MELIM's log, melim.log.<host>, opened once; debug
// (LSF_ELIM_DEBUG) lowers its level to LOG_DEBUG.
func (l *LIM) melimLogger(debug bool) *slog.Logger {
	conf := l.base.Conf
	param, mask := logging.MaskParam(conf, "melim")
	if l.melimLog == nil {
		l.melimLog = logging.New(logging.Config{Daemon: "melim", Host: l.host, Dir: conf.LogDir(), MaskParam: param, Mask: mask, Stderr: l.opts.Stderr})
		l.melimLog.ReopenOn(context.Background(), syscall.SIGHUP)
	}
	level, _ := logging.ParseMask(mask)
	if debug {
		level = min(level, slog.LevelDebug)
	}
	l.melimLog.SetLevel(level)
	return l.melimLog.Logger
}

// wait blocks until the LIM has shut down (ctx ended or limshutdown).
func (l *LIM) wait(context.Context) error {
	<-l.stopped
	return nil
}

// do runs fn on the loop goroutine and waits for it.
func (l *LIM) do(ctx context.Context, fn func()) error {
	done := make(chan struct{})
	select {
	case l.ops <- func() { fn(); close(done) }:
	case <-ctx.Done():
		return ctx.Err()
	case <-l.stopped:
		return rpc.Errorf(rpc.Unavailable, "LIM is shutting down")
	}
	select {
	case <-done:
		return nil
	case <-l.stopped:
		return rpc.Errorf(rpc.Unavailable, "LIM is shutting down")
	}
}

// loop owns the LIM's state.
func (l *LIM) loop(ctx context.Context) {
	sampleT := l.clk.NewTicker(load.SampleInterval)
	pollT := l.clk.NewTicker(l.m.params.ElimPollInterval)
	defer sampleT.Stop()
	defer pollT.Stop()
	l.detectGPUs(ctx)
	l.restartElims()
	for {
		select {
		case <-ctx.Done():
			l.shutdown()
			return
		case fn := <-l.ops:
			fn()
		case <-sampleT.C():
			l.takeSample()
		case <-pollT.C():
			if l.elim != nil {
				l.elimVals = l.elim.Values()
			}
		}
	}
}

func (l *LIM) takeSample() {
	v, st, err := l.opts.Sampler.Sample()
	if err != nil && !l.sampled {
		l.log.Warn("load sampling", "err", err)
	}
	l.sample, l.static, l.sampled = v, st, true
}

// report builds this host's load report (loop goroutine).
// notServingWindow: a LIM whose accepting failed this recently (real time,
// as the rpc server records it) reports itself not serving.
const notServingWindow = 5 * time.Second

func (l *LIM) report(leaving bool) *api.LoadReport {
	l.seq++
	v := l.sample
	ext := make([]*api.IndexValue, 0, len(l.elimVals))
	var shared []*api.IndexValue
	for name, x := range l.elimVals {
		if i, ok := load.IndexOf(name); ok {
			v[i] = x // an elim overrides a built-in index by its formal name
			continue
		}
		r, ok := l.base.Shared.Resource(name)
		if !ok || !r.Dynamic() {
			continue // not an external load index of lsf.shared
		}
		if l.m.isShared(name) {
			shared = append(shared, &api.IndexValue{Name: name, Value: x})
		} else {
			ext = append(ext, &api.IndexValue{Name: name, Value: x})
		}
	}
	ext = l.gpuIndices(ext)
	sortValues(ext)
	sortValues(shared)
	st := l.static
	return &api.LoadReport{Host: l.host, Load: v[:], Ext: ext, Shared: shared, LockedU: l.lockedU, LockUntil: l.lockTill,
		Seq: l.seq, BootTime: l.boot.Unix(), Leaving: leaving, NotServing: l.srv.AcceptFailing(time.Now(), notServingWindow),
		Static: &api.HostStatic{NCPUs: int32(st.NCPUs), NProcs: int32(st.NProcs), NCores: int32(st.NCores),
			NThreads: int32(st.NThreads), NDisks: int32(st.NDisks), MaxMem: int32(st.MaxMem), MaxSwp: int32(st.MaxSwp),
			MaxTmp: int32(st.MaxTmp), Type: st.Type, Model: st.Model}, GPUs: l.gpus}
}

func sortValues(v []*api.IndexValue) {
	for i := 1; i < len(v); i++ {
		for j := i; j > 0 && v[j].Name < v[j-1].Name; j-- {
			v[j], v[j-1] = v[j-1], v[j]
		}
	}
}

// setElims applies an elim assignment: restarts MELIM when it changes.
func (l *LIM) setElims(res []string, run bool) {
	master := l.elect.IsMaster()
	if run == l.elimRun && master == l.elimMast && strings.Join(res, " ") == strings.Join(l.elimRes, " ") {
		return
	}
	l.elimRes, l.elimRun, l.elimMast = res, run, master
	l.restartElims()
}

func (l *LIM) restartElims() {
	if l.elim != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		l.elim.Stop(ctx)
		cancel()
		l.elim = nil
		l.elimVals = nil
	}
	if !l.elimRun {
		return
	}
	dir := l.base.Conf.ServerDir()
	if dir == "" {
		return
	}
	p := l.m.params
	bt := time.Duration(p.ELIMBlockTime) * time.Second
	if p.ELIMBlockTime < 0 {
		bt = -1
	}
	mgr, err := melim.Start(melim.Config{ServerDir: dir, Args: strings.Fields(p.ElimArgs), Env: l.opts.Environ(),
		Resources: l.elimRes, Master: l.elimMast, BlockTime: bt, Restarts: p.ELIMRestarts, Debug: p.ELIMDebug,
		Log: l.melimLogger(p.ELIMDebug), Clock: l.clk})
	if err != nil {
		l.log.Error("MELIM not started", "err", err)
		return
	}
	l.elim = mgr
}

// masterChanged runs on the election goroutine. A LIM that becomes or
// stops being master tells the others at once.
func (l *LIM) masterChanged(ctx context.Context, old, new string) {
	l.log.Warn(fmt.Sprintf("master LIM: %q -> %q", old, new))
	go l.do(ctx, func() {
		if old == l.host || new == l.host {
			l.announce(ctx)
		}
		if new == l.host {
			if l.tbl == nil {
				l.tbl = newTable(l.m)
			}
			l.tbl.apply(l.report(false), l.clk.Now())
			res, run := l.tbl.elimAssignment(l.host, l.host, l.clk.Now())
			l.setElims(res, run)
		} else {
			l.tbl = nil
		}
	})
}

func (l *LIM) shutdown() {
	l.log.Info(fmt.Sprintf("LIM %s shutting down", l.host))
	// Tell the master at once, so it shows the host unavail.
	if m := l.elect.Master(); m != "" && m != l.host {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		var rep api.ReportReply
		l.peers.call(ctx, m, api.LIMReport, l.report(true), &rep)
		cancel()
	}
	if l.elim != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		l.elim.Stop(ctx)
		cancel()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	l.srv.Shutdown(ctx)
	cancel()
	l.peers.close()
	l.closeAuth()
	l.closeLogs()
	close(l.stopped)
}

// reporter sends the load report to the master every EXINTERVAL, and at
// once after a change of master.
func (l *LIM) reporter(ctx context.Context) {
	t := l.clk.NewTimer(0)
	defer t.Stop()
	changed := l.elect.Changed()
	for {
		select {
		case <-ctx.Done():
			return
		case <-changed:
			changed = l.elect.Changed()
			t.Stop()
			t.Reset(0)
			continue
		case <-t.C():
		}
		next := l.exInterval
		if !l.sendReport(ctx) {
			next = time.Second
		}
		t.Reset(next)
	}
}

// sendReport delivers one report; false when it could not.
func (l *LIM) sendReport(ctx context.Context) bool {
	master := l.elect.Master()
	if master == "" {
		return false
	}
	var rep *api.LoadReport
	if err := l.do(ctx, func() { rep = l.report(false) }); err != nil {
		return false
	}
	if master == l.host {
		l.do(ctx, func() {
			if l.tbl != nil {
				now := l.clk.Now()
				l.tbl.apply(rep, now)
				res, run := l.tbl.elimAssignment(l.host, l.host, now)
				l.setElims(res, run)
			}
		})
		return true
	}
	cctx, cancel := context.WithTimeout(ctx, l.probeTimeout+time.Second)
	defer cancel()
	var reply api.ReportReply
	if err := l.peers.call(cctx, master, api.LIMReport, rep, &reply); err != nil || !reply.Accepted {
		switch {
		case ctx.Err() != nil:
		case l.replicated && err == nil && reply.Master != master:
			// The master followed raft leadership elsewhere: look at
			// once, so hosts follow within one EXINTERVAL.
			l.elect.Reconsider()
		default:
			l.elect.Poke()
		}
		return false
	}
	l.do(ctx, func() { l.setElims(reply.Resources, reply.RunElims) })
	return true
}

// errNotMaster is returned by master-only methods elsewhere.
func (l *LIM) errNotMaster() error {
	return rpc.Errorf(rpc.Unavailable, "not the master LIM (master is %q)", l.elect.Master())
}

var errDenied = errors.New("User permission denied")

// CheckConfig loads the configuration as a LIM would (lim -C).
func CheckConfig(ctx context.Context, envDir string, getenv func(string) string) (*config.Base, error) {
	return loadBase(ctx, Options{EnvDir: envDir, Getenv: getenv})
}
