package mbd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/raft"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/auth/authsetup"
	"github.com/basalt-lsf/basalt/internal/auth/eauth"
	"github.com/basalt-lsf/basalt/internal/clock"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/logging"
	"github.com/basalt-lsf/basalt/internal/mbd/raftlog"
	"github.com/basalt-lsf/basalt/internal/mbd/sched"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
	"github.com/basalt-lsf/basalt/internal/resreq"
	"github.com/basalt-lsf/basalt/internal/rpc"
	"github.com/basalt-lsf/basalt/internal/version"
)

// Options configure mbatchd.
type Options struct {
	// EnvDir is LSF_ENVDIR.
	EnvDir string
	// Host is this host's cluster name (BASALT_HOST or the system name).
	Host  string
	Clock clock.Clock
	Log   *slog.Logger
	// Auth authenticates connections; nil means local ident.
	Auth auth.Authenticator
	// Listener, when set, is used instead of listening on the host's
	// address and LSB_MBD_PORT.
	Listener net.Listener
	// DataDir overrides LSB_SHAREDIR/<cluster>/raft; a replica of a
	// replicated master (lsf.conf BASALT_MASTER_REPLICAS) must have its
	// own, on its own disk.
	DataDir string
	// LogDir overrides LSB_SHAREDIR/<cluster>/logdir (lsb.events and
	// lsb.acct): every replica renders its own.
	LogDir string
	// Creds are this mbatchd's credentials for the connections it opens
	// (to the other replicas); nil sends an empty hello.
	Creds auth.Credentials
	// Load reports the hosts' load; nil means static information only.
	Load LoadSource
	// Getenv reads the daemon's environment (nil: os.Getenv).
	Getenv func(string) string
	// DebugLog, when set, is the log badmin mbddebug, mbdtime, schddebug
	// and schdtime change (MBatchd.Debug; see debug.go).
	DebugLog *logging.Log
}

// LoadSource reports host load as resreq value vectors (LIM).
type LoadSource interface {
	// Load returns the current load of the cluster's hosts as value
	// vectors for table t. Hosts missing from the result have no load
	// information.
	Load(ctx context.Context, t *resreq.Table) (map[string]*HostLoad, error)
}

// HostLoad is one host's load picture from LIM.
type HostLoad struct {
	Status string    // LIM status: ok, busy, lockU, lockW, unavail
	Num    []float64 // resreq table order; NaN where unknown
	Str    []string
	NCPUs  int
	Type   string
	Model  string
	GPUs   []*api.GPUDevice // detected GPUs (LIM)
}

// Server is a running mbatchd.
type Server struct {
	// subKeys serialises the requests of one submission key.
	subKeys keyLocks
	opts    Options
	clock   clock.Clock
	log     *slog.Logger
	cfg     *config.Store[config.Config]

	st   *state.State
	node *raftNode
	prop *proposer
	rpc  *rpc.Server
	// rpcPub is rpc for readers outside the serving goroutine (metrics).
	rpcPub atomic.Pointer[rpc.Server]
	ln     net.Listener
	start  time.Time
	status statusTracker // badmin showstatus's peaks and reconfig time (showstatus.go)

	ids    idAlloc
	hosts  *hostTable
	sess   *sessions
	unsent unsentSignals // job control to deliver again (sigretry.go)

	wake     chan struct{}
	reasons  atomic.Pointer[sched.Reasons] // the last plan's pending reasons
	usageMu  sync.Mutex
	usage    map[state.Key]*api.Usage
	waitersM sync.Mutex
	waiters  map[state.Key][]chan struct{} // bsub -K, woken on any change of the job

	sched *sched.Scheduler

	// chk and mig hold the checkpoints and migrations in progress
	// (chkpnt.go, migrate.go).
	chk chkpntTracker
	mig migTracker

	// unknown counts what applied log entries held that this version does
	// not know (unknown.go).
	unknown unknownLog

	// metrics (metrics.go)
	obs   atomic.Pointer[Observer]
	ctr   counters
	raftR raftHandle

	// leading is set while this mbatchd is the master (the raft leader
	// that recorded its start); requests other than MBatchd.Leader are
	// refused without it (gate).
	leading atomic.Bool

	// mc is the master's MultiCluster side (mc.go).
	mc *mcState
}

// New loads the configuration and opens the state, but does not serve.
func New(ctx context.Context, opts Options) (*Server, error) {
	if opts.Clock == nil {
		opts.Clock = clock.Real()
	}
	if opts.Log == nil {
		opts.Log = slog.New(logging.NewHandler(os.Stderr, &logging.HandlerOptions{Level: slog.LevelWarn, Name: "mbatchd"}))
	}
	if opts.Auth == nil {
		opts.Auth = &auth.Ident{}
	}
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	load := func(ctx context.Context) (*config.Config, error) {
		return config.Load(ctx, config.Options{EnvDir: opts.EnvDir, Clock: opts.Clock, LocalHost: opts.Host, Getenv: opts.Getenv})
	}
	store, err := config.NewStore(ctx, load)
	if err != nil {
		return nil, err
	}
	cfg := store.Current()
	if opts.Host == "" {
		h, err := config.LocalHostName(cfg.Conf, opts.Getenv, nil)
		if err != nil {
			return nil, err
		}
		opts.Host = h
	}
	s := &Server{
		opts: opts, clock: opts.Clock, log: opts.Log, cfg: store, st: state.New(),
		wake: make(chan struct{}, 1), usage: map[state.Key]*api.Usage{}, waiters: map[state.Key][]chan struct{}{},
		sched: sched.New(), start: opts.Clock.Now(), mc: newMCState(),
	}
	// Under eauth, a client's host is checked against the configuration
	// in force (badmin reconfig adds and removes hosts).
	if a, ok := opts.Auth.(*eauth.Authenticator); ok && a.Hosts != nil {
		a.Hosts = authsetup.HostCheckOf(func() *config.Base { return s.cfg.Current().Base })
	}
	s.hosts = newHostTable()
	s.sess = newSessions()
	return s, nil
}

// singleNodeID is the raft server ID of the single-node log.
const singleNodeID = "mbatchd"

// Run opens the log, becomes master and serves until ctx ends. A replica
// of a replicated master serves from the start (a follower answers who
// leads and refuses the rest), waits to be elected, and returns
// ErrDeposed when it loses the leadership (it is restarted as a follower:
// nothing of a leader's volatile state survives into a later term).
func (s *Server) Run(ctx context.Context) error {
	cfg := s.cfg.Current()
	replicas := cfg.Conf.MasterReplicas()
	replicated := len(replicas) > 1
	if replicated && !slices.ContainsFunc(replicas, func(h string) bool { return sameHost(h, s.opts.Host) }) {
		return fmt.Errorf("%s is not one of the master replicas (the first %d hosts of LSF_MASTER_LIST: %s)",
			s.opts.Host, len(replicas), strings.Join(replicas, " "))
	}
	dir := s.opts.DataDir
	if dir == "" {
		if replicated {
			return errors.New("a master replica needs its own data directory")
		}
		share := cfg.Conf.ShareDir()
		if share == "" {
			return errors.New("LSB_SHAREDIR not defined")
		}
		dir = filepath.Join(share, cfg.ClusterName(), "raft")
	}
	// One mbatchd per cluster (per replica): the lock comes before any
	// file is touched.
	lock, err := raftlog.LockDir(dir)
	if err != nil {
		return err
	}
	defer lock.Close()
	f := &fsm{st: s.st, applied: s.applied, log: s.log, unknown: &s.unknown}
	events, err := s.openEventLog(cfg)
	if err != nil {
		return fmt.Errorf("opening lsb.events: %w", err)
	}
	f.events = events
	defer func() {
		if err := events.Close(); err != nil {
			s.log.Warn("closing lsb.events", "err", err)
		}
	}()
	serveErr := make(chan error, 1)
	stopServing := func() {
		if s.rpc == nil {
			return
		}
		sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer scancel()
		_ = s.rpc.Shutdown(sctx)
	}
	defer stopServing()
	var rs *replicaSet
	if replicated {
		// A replica serves before it leads: followers answer who leads
		// (and refuse the rest), and raft's traffic comes on this port.
		streams := newRaftStreams(replicaAddr(s.opts.Host, cfg.Conf.MBDPort()),
			func(h string) bool {
				return slices.ContainsFunc(s.cfg.Current().Conf.MasterReplicas(), func(r string) bool { return sameHost(r, h) })
			},
			dialReplica(s.opts.Creds, func(ctx context.Context, host string) (string, error) {
				a, err := s.cfg.Current().Resolver().Resolve(ctx, host)
				if err != nil {
					return "", err
				}
				return a.String(), nil
			}))
		if err := s.serve(ctx, cfg, serveErr, func(r *rpc.Server) { r.HandleUpgrade(raftUpgrade, streams.upgrade) }); err != nil {
			return err
		}
		rs = &replicaSet{self: raft.ServerID(s.opts.Host), streams: streams,
			joining: func() bool { return s.peersConfigured(ctx, replicas) }}
		for _, h := range replicas {
			rs.servers = append(rs.servers, raft.Server{ID: raft.ServerID(h), Address: replicaAddr(h, cfg.Conf.MBDPort())})
		}
	}
	// A single node is the same whatever host runs it: the batch master
	// moves between the master candidates (following the master LIM) over
	// the same log, so its identity is the cluster's master, not a host.
	node, err := openRaft(ctx, dir, singleNodeID, f, s.log, rs)
	if err != nil {
		return err
	}
	s.node = node
	s.raftR.Store(node.r)
	defer func() {
		if err := node.shutdown(); err != nil {
			s.log.Error("raft shutdown", "err", err)
		}
	}()
	electWait := 30 * time.Second
	if replicated {
		electWait = 365 * 24 * time.Hour // a follower waits as long as it runs
	}
	// While it follows, the replica folds the finished runs it applies into
	// the fairshare history now and then (see followAbsorb).
	actx, stopAbsorb := context.WithCancel(ctx)
	absorbed := make(chan struct{})
	go func() { defer close(absorbed); s.followAbsorb(actx, time.Minute) }()
	err = node.waitLeader(ctx, s.clock, electWait)
	stopAbsorb()
	<-absorbed
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	lctx, lcancel := context.WithCancel(ctx)
	defer lcancel()
	deposed := make(chan struct{})
	if replicated {
		go func() {
			if node.watchLeadership(lctx) {
				s.leading.Store(false)
				close(deposed)
			}
		}()
	}
	pctx, pcancel := context.WithCancel(context.Background())
	s.prop = newProposer(node.r, s.clock)
	if o := s.observer(); o != nil {
		s.prop.commitObs = o.Commit
	}
	s.prop.space, s.prop.spaceDir = node.space, dir
	var bg sync.WaitGroup
	bg.Add(1)
	go func() { defer bg.Done(); s.prop.run(pctx) }()
	defer func() { pcancel(); bg.Wait() }()

	s.st.View(func(v *state.View) { s.ids.reset(v.LastJobID(), v.LastOrder()) })
	if err := s.prop.Propose1(ctx, &api.Event{MbdStart: &api.EvMbdStart{Master: s.opts.Host, Cluster: cfg.ClusterName(),
		NumHosts: int32(len(cfg.BatchHosts)), NumQueues: int32(len(cfg.Queues))}}); errors.Is(err, ErrNoSpace) {
		// A replica hands the role to one that can write its log. A
		// single node serves queries and refuses changes (with a message
		// saying why) until there is space: restarting would only take
		// queries away too.
		if replicated {
			if terr := node.r.LeadershipTransfer().Error(); terr == nil {
				s.log.Error("no space left for the master's log on this host: handed the master role to another replica", "err", err)
				return ErrDeposed
			}
		}
		s.log.Error("cannot record the master's start; serving queries, refusing changes until there is space", "err", err)
	} else if err != nil {
		if replicated && !node.isLeader() {
			return ErrDeposed
		}
		return fmt.Errorf("recording master start: %w", err)
	}
	s.leading.Store(true)
	if !replicated {
		if err := s.serve(ctx, cfg, serveErr, nil); err != nil {
			return err
		}
	}
	s.log.Info("mbatchd leads", "host", s.opts.Host, "cluster", cfg.ClusterName(), "addr", s.ln.Addr().String(), "version", version.Version)

	bg.Add(3)
	go func() { defer bg.Done(); s.schedLoop(lctx) }()
	go func() { defer bg.Done(); s.housekeeping(lctx) }()
	go func(since time.Time) { defer bg.Done(); s.watchHosts(lctx, since) }(s.clock.Now())
	bg.Add(1)
	go func() { defer bg.Done(); s.mcRun(lctx, dir) }()
	if replicated {
		bg.Add(1)
		go func() { defer bg.Done(); s.preferCandidates(lctx) }()
	}
	select {
	case <-ctx.Done():
	case <-deposed:
		lcancel()
		s.log.Warn("mbatchd lost the raft leadership: it stops leading and restarts as a follower")
		return ErrDeposed
	case err := <-serveErr:
		if err != nil {
			lcancel()
			return err
		}
	}
	lcancel()
	stopServing()
	s.log.Info("mbatchd stopped")
	return nil
}

// serve starts serving requests on this host's LSB_MBD_PORT (or
// Options.Listener); extra registers more handlers first. Serve's result
// goes to done.
func (s *Server) serve(ctx context.Context, cfg *config.Config, done chan<- error, extra func(*rpc.Server)) error {
	s.rpc = rpc.NewServer(s.opts.Auth)
	s.rpcPub.Store(s.rpc)
	s.rpc.Log = s.log
	s.rpc.Gate = s.gate
	s.register()
	s.registerDebug()
	if extra != nil {
		extra(s.rpc)
	}
	ln := s.opts.Listener
	if ln == nil {
		addr, err := s.listenAddr(ctx, cfg)
		if err != nil {
			return err
		}
		if ln, err = net.Listen("tcp", addr); err != nil {
			return fmt.Errorf("listening for requests: %w", err)
		}
	}
	s.ln = ln
	go func() { done <- s.rpc.Serve(ln) }()
	return nil
}

// Addr is the address the server listens on (after Run started serving).
func (s *Server) Addr() net.Addr {
	if s.ln == nil {
		return nil
	}
	return s.ln.Addr()
}

func (s *Server) listenAddr(ctx context.Context, cfg *config.Config) (string, error) {
	a, err := cfg.Resolver().Resolve(ctx, s.opts.Host)
	if err != nil {
		return "", fmt.Errorf("address of %s: %w", s.opts.Host, err)
	}
	return net.JoinHostPort(a.String(), strconv.Itoa(cfg.Conf.MBDPort())), nil
}

// followAbsorb, until ctx ends, moves the finished runs fed to the
// scheduler into its fairshare history every period: a replica that
// follows runs no passes, and the records would otherwise pile up for as
// long as it follows. It stops before the replica leads (Absorb must not
// run beside a pass).
func (s *Server) followAbsorb(ctx context.Context, period time.Duration) {
	t := s.clock.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
			s.sched.Absorb(s.cfg.Current(), s.st.Latest())
		}
	}
}

// poke asks the scheduler for a pass soon.
func (s *Server) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// applied runs after every applied log entry (in the FSM goroutine): it
// wakes bsub -K waiters of the jobs the entry touched and the scheduler.
func (s *Server) applied(idx uint64, e *api.LogEntry, errs []error) {
	s.waitersM.Lock()
	if len(s.waiters) > 0 {
		for _, ev := range e.Events {
			if k, ok := eventJob(ev); ok {
				for _, k2 := range []state.Key{k, {ID: k.ID}} {
					for _, ch := range s.waiters[k2] {
						select {
						case ch <- struct{}{}:
						default:
						}
					}
				}
			}
		}
	}
	s.waitersM.Unlock()
	s.policyApplied(e)
	s.ctr.count(s.st, e, errs)
	s.poke()
}

// eventJob returns the job an event is about.
func eventJob(ev *api.Event) (state.Key, bool) {
	switch {
	case ev.JobNew != nil:
		return state.Key{ID: ev.JobNew.JobID}, true
	case ev.JobStart != nil:
		return state.Key{ID: ev.JobStart.JobID, Index: ev.JobStart.Index}, true
	case ev.JobExecute != nil:
		return state.Key{ID: ev.JobExecute.JobID, Index: ev.JobExecute.Index}, true
	case ev.JobStatus != nil:
		return state.Key{ID: ev.JobStatus.JobID, Index: ev.JobStatus.Index}, true
	case ev.JobSignal != nil:
		return state.Key{ID: ev.JobSignal.JobID, Index: ev.JobSignal.Index}, true
	case ev.JobRequeue != nil:
		return state.Key{ID: ev.JobRequeue.JobID, Index: ev.JobRequeue.Index}, true
	case ev.JobClean != nil:
		return state.Key{ID: ev.JobClean.JobID, Index: ev.JobClean.Index}, true
	}
	return state.Key{}, false
}

// isAdmin reports whether id is root or a cluster administrator.
func (s *Server) isAdmin(id auth.Identity, cfg *config.Config) bool {
	return id.IsRoot() || cfg.IsClusterAdmin(id.User)
}

// isQueueAdmin reports whether id administers queue q (or the cluster).
func (s *Server) isQueueAdmin(id auth.Identity, cfg *config.Config, queue string) bool {
	return id.IsRoot() || cfg.IsQueueAdmin(id.User, queue)
}

// mayControlJob reports whether id may see the details of, and control,
// a job of owner in queue: the owner, the queue's administrators, the
// GROUP_ADMIN of a user group holding the owner, cluster administrators
// and root (config.MayControl).
func (s *Server) mayControlJob(id auth.Identity, cfg *config.Config, owner, queue string) bool {
	return id.IsRoot() || cfg.MayControl(id.User, owner, queue)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// idAlloc hands out job IDs and queue order keys on the master.
type idAlloc struct {
	mu        sync.Mutex
	last      int64
	lastOrder int64
}

func (a *idAlloc) reset(lastID, lastOrder int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.last, a.lastOrder = lastID, lastOrder
}

// orderGap spaces queue order keys (state's FCFS keys).
const orderGap = 1 << 20

// next returns a free job ID (wrapping after maxID, skipping IDs still in
// the system) and an order key.
func (a *idAlloc) next(maxID int64, inUse func(int64) bool) (int64, int64, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if maxID <= 0 {
		maxID = 999999
	}
	for tries := int64(0); tries < maxID; tries++ {
		a.last++
		if a.last > maxID {
			a.last = 1
		}
		if !inUse(a.last) {
			a.lastOrder += orderGap
			return a.last, a.lastOrder, nil
		}
	}
	return 0, 0, errors.New("no job ID can be used now")
}

// nextOrder returns a fresh order key (requeue, switch).
func (a *idAlloc) nextOrder() int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.lastOrder += orderGap
	return a.lastOrder
}

// resreqUnit is the unit of mem/swp/tmp values in resource requirement
// strings: LSF_UNIT_FOR_LIMITS when set, else MB (the load indices' unit).
// (-M limits default to KB instead; bsub converts those itself.)
func resreqUnit(cfg *config.Config) string { return cfg.Conf.Get("LSF_UNIT_FOR_LIMITS") }

// RPCServer is the server mbatchd serves requests with (nil before it
// serves): its listener's health is reported in the metrics.
func (s *Server) RPCServer() *rpc.Server { return s.rpcPub.Load() }
