package mbd

// MultiCluster job forwarding (LSF's job forwarding model) on the master:
// the links to the peer clusters' masters, the forwarding loop, and the
// MultiCluster listener's handlers (mc_handlers.go). See ARCHITECTURE.md
// "MultiCluster".
//
// Every step of a forward is an event of the log (EvJobForward,
// EvJobFwdUpdate); the remote calls are side effects made after the event
// applied, by this master only, and each is safe to repeat: a forward's
// remote submission carries the forward's key, which the execution
// cluster keeps as the submission key of the job it creates.

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/api/wire"
	"github.com/basalt-lsf/basalt/internal/auth/eauth"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/job"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
	"github.com/basalt-lsf/basalt/internal/mc"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

// mcTick is how often the master talks to its peers (hello, forwarded
// jobs' states, retries) when no scheduling pass asks sooner.
const mcTick = time.Second

// mcRetry is how soon a round that held jobs back for the peers'
// capacity is followed by another.
const mcRetry = 100 * time.Millisecond

// mcCallTimeout bounds one call to a peer.
const mcCallTimeout = 3 * time.Second

// mcState is the master's volatile MultiCluster state (one per term).
type mcState struct {
	mu    sync.Mutex
	peers map[string]*mcPeer
	// pass is poked after each scheduling pass: forwarding considers
	// the jobs the pass left pending.
	pass chan struct{}
	ln   net.Listener
}

// mcPeer is one peer cluster as this master sees it.
type mcPeer struct {
	name   string
	client *rpc.Client
	master string
	status string // ok, unavail
	reason string
	hello  *api.MCHelloReply
	// sent counts the slots forwarded to each receive queue since the
	// last hello (its free slots are as of that hello).
	sent map[string]int
}

func newMCState() *mcState {
	return &mcState{peers: map[string]*mcPeer{}, pass: make(chan struct{}, 1)}
}

// mcPassDone is called after each scheduling pass.
func (s *Server) mcPassDone() {
	if s.mc == nil {
		return
	}
	select {
	case s.mc.pass <- struct{}{}:
	default:
	}
}

// mcRun runs the master's MultiCluster side until ctx ends: the listener
// for peers and the loop. It returns at once when lsf.shared names no
// other cluster.
func (s *Server) mcRun(ctx context.Context, dataDir string) {
	cfg := s.cfg.Current()
	if len(cfg.Peers()) == 0 {
		return
	}
	m := s.mc
	cache, err := eauth.OpenReplayCache(filepath.Join(filepath.Dir(dataDir), "mc.replay"), time.Now())
	if err != nil {
		s.log.Error("MultiCluster disabled: cannot open its replay cache", "err", err)
		return
	}
	defer cache.Close()
	a := &mc.Authenticator{Local: cfg.ClusterName(), Host: s.opts.Host, Cache: cache, Log: s.log,
		Servers: func(c string) ([]string, bool) {
			p, ok := s.cfg.Current().Peer(c)
			return p.Servers, ok
		},
		Keys: func(c string) (*eauth.Key, error) { return s.mcKeys().For(c) },
		Addrs: func(ctx context.Context, h string) ([]netip.Addr, error) {
			a, err := s.cfg.Current().Resolver().Resolve(ctx, h)
			if err != nil {
				return nil, err
			}
			return []netip.Addr{a}, nil
		},
	}
	srv := rpc.NewServer(a)
	srv.Log = s.log
	srv.Gate = s.gate
	rpc.HandleUnary(srv, api.MBatchdMCHello, s.mcHelloHandler)
	rpc.HandleUnary(srv, api.MBatchdMCSubmit, s.mcSubmitHandler)
	rpc.HandleUnary(srv, api.MBatchdMCJobs, s.mcJobsHandler)
	rpc.HandleUnary(srv, api.MBatchdMCControl, s.mcControlHandler)
	addr, err := s.cfg.Current().Resolver().Resolve(ctx, s.opts.Host)
	if err != nil {
		s.log.Error("MultiCluster disabled: no address", "err", err)
		return
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(addr.String(), strconv.Itoa(mc.Port(cfg.Conf))))
	if err != nil {
		s.log.Error("MultiCluster disabled: cannot listen", "err", err)
		return
	}
	m.mu.Lock()
	m.ln = ln
	m.mu.Unlock()
	go func() { _ = srv.Serve(ln) }()
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		m.mu.Lock()
		for _, p := range m.peers {
			if p.client != nil {
				p.client.Close()
			}
		}
		m.mu.Unlock()
	}()
	s.log.Info("MultiCluster listening", "addr", ln.Addr().String(), "peers", len(cfg.Peers()))
	t := s.clock.NewTicker(mcTick)
	defer t.Stop()
	// retry runs a round soon after one that held jobs back for the
	// peers' capacity as last reported (their next hello may show more).
	retry := s.clock.NewTimer(time.Hour)
	retry.Stop()
	defer retry.Stop()
	for {
		passed := false
		select {
		case <-ctx.Done():
			return
		case <-t.C():
		case <-m.pass:
			passed = true
		case <-retry.C():
			passed = true
		}
		if s.mcRound(ctx, passed) {
			retry.Reset(mcRetry)
		}
	}
}

// mcKeys reads the pair keys of lsf.sudoers (each time: it is small and
// read only when a connection opens).
func (s *Server) mcKeys() *mc.Keys {
	sud, err := eauth.ReadSudoers(eauth.SudoersPath(s.opts.EnvDir))
	if err != nil {
		s.log.Warn("MultiCluster keys not read", "err", err)
		return mc.NewKeys(s.cfg.Current().ClusterName(), nil)
	}
	return mc.NewKeys(s.cfg.Current().ClusterName(), sud.Vars)
}

// mcRound is one round of the loop: hellos (every tick), the forwarded
// jobs' states and retries, then, after a pass, new forwards.
func (s *Server) mcRound(ctx context.Context, passed bool) bool {
	cfg := s.cfg.Current()
	for _, p := range cfg.Peers() {
		// Every tick; after a pass, again for a peer sent jobs since its
		// last hello (its free slots and backlog are then out of date:
		// IMPT_JOBBKLG would otherwise hold forwarding to one backlog a
		// tick).
		if !passed || s.mcSentSince(p.Name) {
			s.mcHello(ctx, cfg, p)
		}
	}
	if !passed {
		s.mcSync(ctx, cfg)
		s.mcOrphans(ctx)
	}
	return s.mcForward(ctx, cfg)
}

func (s *Server) peer(name string) *mcPeer {
	m := s.mc
	m.mu.Lock()
	defer m.mu.Unlock()
	p := m.peers[name]
	if p == nil {
		p = &mcPeer{name: name, status: "unavail", reason: "not contacted yet", sent: map[string]int{}}
		m.peers[name] = p
	}
	return p
}

// mcClient returns a connection to the peer's master: the one it has, or
// a new one to the first master candidate that answers.
func (s *Server) mcClient(ctx context.Context, cfg *config.Config, e config.ClusterEntry) (*rpc.Client, string, error) {
	p := s.peer(e.Name)
	s.mc.mu.Lock()
	c, master := p.client, p.master
	s.mc.mu.Unlock()
	if c != nil {
		select {
		case <-c.Done():
		default:
			return c, master, nil
		}
	}
	key, err := s.mcKeys().For(e.Name)
	if err != nil {
		return nil, "", err
	}
	var last error = fmt.Errorf("cluster <%s> has no master candidates (lsf.shared Servers)", e.Name)
	for _, w := range e.Servers {
		host, port := config.ServerAddr(w)
		if port == 0 {
			port = mc.Port(cfg.Conf)
		}
		addr, err := cfg.Resolver().Resolve(ctx, host)
		if err != nil {
			last = err
			continue
		}
		creds := &mc.Credentials{Local: cfg.ClusterName(), LocalHost: s.opts.Host, Peer: e.Name, Key: key}
		hello, err := creds.Hello(ctx, "mbatchd", host)
		if err != nil {
			return nil, "", err
		}
		dctx, cancel := context.WithTimeout(ctx, mcCallTimeout)
		c, err := rpc.Dial(dctx, net.JoinHostPort(addr.String(), strconv.Itoa(port)), hello)
		cancel()
		if err != nil {
			last = err
			continue
		}
		s.mc.mu.Lock()
		if old := p.client; old != nil && !isConnErr(old) {
			// Another goroutine connected meanwhile: one connection a peer.
			master := p.master
			s.mc.mu.Unlock()
			c.Close()
			return old, master, nil
		}
		p.client, p.master = c, host
		s.mc.mu.Unlock()
		return c, host, nil
	}
	return nil, "", last
}

// mcCall calls the peer's master; a failure drops the connection (the
// next call dials again).
func mcCall[Req, Resp any, PResp interface {
	*Resp
	wire.Message
}](ctx context.Context, s *Server, cluster string, m api.Unary[Req, Resp], req wire.Message) (PResp, error) {
	cfg := s.cfg.Current()
	e, ok := cfg.Peer(cluster)
	if !ok {
		return nil, fmt.Errorf("cluster <%s> is not configured", cluster)
	}
	c, _, err := s.mcClient(ctx, cfg, e)
	if err != nil {
		s.mcDown(cluster, err)
		return nil, err
	}
	cctx, cancel := context.WithTimeout(ctx, mcCallTimeout)
	defer cancel()
	resp := PResp(new(Resp))
	if err := c.Call(cctx, m, req, resp); err != nil {
		if rpc.CodeOf(err) == rpc.Unavailable || ctx.Err() == nil && cctx.Err() != nil || isConnErr(c) {
			s.mcDown(cluster, err)
		}
		return nil, err
	}
	return resp, nil
}

func isConnErr(c *rpc.Client) bool {
	select {
	case <-c.Done():
		return true
	default:
		return false
	}
}

// mcDown marks a peer unavailable and drops its connection.
func (s *Server) mcDown(cluster string, err error) {
	p := s.peer(cluster)
	s.mc.mu.Lock()
	defer s.mc.mu.Unlock()
	if p.status != "unavail" {
		s.log.Warn("MultiCluster: cluster unavailable", "cluster", cluster, "err", err)
	}
	p.status, p.reason = "unavail", err.Error()
	if p.client != nil {
		p.client.Close()
		p.client = nil
	}
}

// mcHello exchanges hellos with a peer: its status, and its receive queues
// open to this cluster with their free slots.
func (s *Server) mcHello(ctx context.Context, cfg *config.Config, e config.ClusterEntry) {
	r, err := mcCall(ctx, s, e.Name, api.MBatchdMCHello, &api.MCHelloRequest{Cluster: cfg.ClusterName(), Master: s.opts.Host})
	if err != nil {
		// Whatever the failure (refused, a wrong key, no answer), the
		// peer's last hello no longer holds.
		s.mcDown(e.Name, err)
		return
	}
	p := s.peer(e.Name)
	s.mc.mu.Lock()
	if p.status != "ok" {
		s.log.Info("MultiCluster: cluster connected", "cluster", e.Name, "master", r.Master)
	}
	p.status, p.reason, p.hello, p.sent = "ok", "", r, map[string]int{}
	s.mc.mu.Unlock()
}

// mcSentSince reports whether jobs were forwarded to a peer since its
// last hello.
func (s *Server) mcSentSince(name string) bool {
	p := s.peer(name)
	s.mc.mu.Lock()
	defer s.mc.mu.Unlock()
	return len(p.sent) > 0
}

// mcPeerOK returns a peer's last hello when it is reachable.
func (s *Server) mcPeerOK(name string) (*api.MCHelloReply, bool) {
	p := s.peer(name)
	s.mc.mu.Lock()
	defer s.mc.mu.Unlock()
	return p.hello, p.status == "ok" && p.hello != nil
}

// rschedTimeout is how long a forwarded job may stay pending remotely
// before it is taken back: MAX_RSCHED_TIME x MBD_SLEEP_TIME (0: never).
func rschedTimeout(cfg *config.Config, queue string) time.Duration {
	q := cfg.Queue(queue)
	if q == nil || q.MC.MaxRschedTime < 0 {
		return 0
	}
	sleep := cfg.Params.MBDSleepTime
	if sleep <= 0 {
		sleep = 10 * time.Second
	}
	return time.Duration(q.MC.MaxRschedTime) * sleep
}

// mcForwardKey is the key of a job's n-th forward.
func mcForwardKey(cluster string, k state.Key, n int32) string {
	return fmt.Sprintf("%s:%s:%d", cluster, k, n)
}

// mcForward forwards the jobs of send-jobs queues that the last
// scheduling pass left pending (it gave them a pending reason) to a
// receive queue whose cluster is reachable and, by its last hello, has
// free slots for them and room in its backlog (IMPT_JOBBKLG). At most
// LSB_MAX_FORWARD_PER_SESSION (50) jobs a round.
//
// It reports whether it forwarded jobs and held others back for the
// peers' free slots or backlogs as last reported (or the round's limit):
// the loop then asks again shortly (with a fresh hello) instead of at the
// next tick.
func (s *Server) mcForward(ctx context.Context, cfg *config.Config) (blocked bool) {
	reasons := s.reasons.Load()
	if reasons == nil {
		return false
	}
	max := cfg.Conf.Int("LSB_MAX_FORWARD_PER_SESSION", 50)
	type pick struct {
		j      *state.Job
		target config.QueueAtCluster
	}
	var picks []pick
	v := s.st.Latest()
	for _, q := range cfg.Queues {
		if !q.Sends() || len(picks) >= max {
			continue
		}
		v.Pending(q.Name, func(j *state.Job) bool {
			if len(picks) >= max {
				blocked = true
				return false
			}
			if j.State != api.StatePend || !reasons.Has(j.Key) {
				return true
			}
			spec := j.Spec.Full()
			if spec.Dependency != "" || spec.Interactive {
				// A dependency names this cluster's jobs; an interactive
				// job's terminal is attached here. Neither is forwarded.
				return true
			}
			for _, t := range q.MC.SndJobsTo {
				if !clusterAllowed(spec.Clusters, t.Cluster) {
					continue
				}
				if s.mcReserve(t, int(j.Slots())) {
					picks = append(picks, pick{j, t})
					break
				}
				if _, ok := s.mcPeerOK(t.Cluster); ok {
					blocked = true
				}
			}
			return true
		})
	}
	if len(picks) == 0 {
		return false // nothing went: the next tick's hello first
	}
	evs := make([]*api.Event, len(picks))
	for i, p := range picks {
		evs[i] = &api.Event{JobForward: &api.EvJobForward{JobID: p.j.ID, Index: p.j.Index, Cluster: p.target.Cluster,
			Queue: p.target.Queue, Key: mcForwardKey(cfg.ClusterName(), p.j.Key, p.j.FwdCount+1)}}
	}
	errs, err := s.prop.Propose(ctx, evs...)
	if err != nil {
		s.log.Warn("MultiCluster: forwards not recorded", "err", err)
		return false
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for i, p := range picks {
		if errs[i] != nil {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			s.mcSend(ctx, p.j, evs[i].JobForward)
		}()
	}
	wg.Wait()
	return blocked
}

// clusterAllowed applies bsub -clusters: none given allows any; "all"
// any but a ~cluster; otherwise the clusters named.
func clusterAllowed(list []string, cluster string) bool {
	if len(list) == 0 {
		return true
	}
	ok := false
	for _, c := range list {
		switch c {
		case "~" + cluster:
			return false
		case "all", cluster:
			ok = true
		}
	}
	return ok
}

// mcReserve takes n slots of a receive queue's free slots (by the peer's
// last hello) for a forward; false when it has not as many, or its
// backlog is full.
func (s *Server) mcReserve(t config.QueueAtCluster, n int) bool {
	p := s.peer(t.Cluster)
	s.mc.mu.Lock()
	defer s.mc.mu.Unlock()
	if p.status != "ok" || p.hello == nil {
		return false
	}
	for _, q := range p.hello.Queues {
		if q.Name != t.Queue || !q.Open {
			continue
		}
		sent := p.sent[q.Name]
		if int(q.FreeSlots)-sent < n || q.Backlog >= 0 && int(q.Pending)+sent >= int(q.Backlog) {
			return false
		}
		p.sent[q.Name] = sent + n
		return true
	}
	return false
}

// mcSubmitRequest is the remote submission of a job's forward, with its
// submission host's type and model (the execution cluster does not know
// the host; cfg nil leaves them out).
func mcSubmitRequest(cfg *config.Config, j *state.Job, f *api.EvJobForward) *api.MCSubmitRequest {
	spec := *j.Spec.Full()
	spec.Queues, spec.Clusters, spec.SrcCluster, spec.SrcJobID = []string{f.Queue}, nil, "", 0
	if cfg != nil && spec.SrcHostType == "" {
		if h := cfg.BatchHost(spec.FromHost); h != nil {
			spec.SrcHostType, spec.SrcHostModel = h.Type, h.Model
		}
	}
	return &api.MCSubmitRequest{Key: f.Key, JobID: j.ID, Index: j.Index, Queue: f.Queue, Spec: &spec,
		User: j.User, UID: j.UID, JobName: j.Name, NumProcs: j.NumProcs}
}

// mcSend makes a recorded forward's remote submission and records the
// answer: the remote ID, or the job back in its queue when refused. A
// transport failure leaves the forward as it is: mcSync sends it again
// under the same key.
func (s *Server) mcSend(ctx context.Context, j *state.Job, f *api.EvJobForward) {
	r, err := mcCall(ctx, s, f.Cluster, api.MBatchdMCSubmit, mcSubmitRequest(s.cfg.Current(), j, f))
	if err != nil {
		s.log.Warn("MultiCluster: forward not sent (retried)", "job", j.Key, "cluster", f.Cluster, "err", err)
		return
	}
	up := &api.EvJobFwdUpdate{JobID: j.ID, Index: j.Index, Key: f.Key}
	if r.JobID == 0 {
		up.Back = true
		if r.Status != nil {
			up.Reason = r.Status.Message
		}
		s.log.Info("MultiCluster: forward refused", "job", j.Key, "cluster", f.Cluster, "reason", up.Reason)
	} else {
		up.RemoteID = r.JobID
	}
	if _, err := s.prop.Propose(ctx, &api.Event{JobFwdUpdate: up}); err != nil {
		s.log.Warn("MultiCluster: forward answer not recorded", "job", j.Key, "err", err)
	}
}

// mcSync brings the forwarded jobs up to date: forwards never answered
// are sent again (same key), the others' states are asked of their
// clusters and recorded when they changed, and jobs pending remotely for
// longer than MAX_RSCHED_TIME x MBD_SLEEP_TIME are recalled (taken back
// without the remote's word when it is unreachable; the remote copy is
// then killed when it answers again).
func (s *Server) mcSync(ctx context.Context, cfg *config.Config) {
	v := s.st.Latest()
	now := s.clock.Now()
	byCluster := map[string][]*state.Job{}
	v.Forwarded(func(j *state.Job) bool {
		byCluster[j.Fwd.Cluster] = append(byCluster[j.Fwd.Cluster], j)
		return true
	})
	var evs []*api.Event
	for cluster, jobs := range byCluster {
		_, ok := s.mcPeerOK(cluster)
		var ids []int64
		var asked []*state.Job
		for _, j := range jobs {
			f := j.Fwd
			timeout := rschedTimeout(cfg, j.Queue)
			late := timeout > 0 && job.Pending(j.State) && now.Sub(time.Unix(f.Time, 0)) > timeout
			if !ok {
				if late {
					s.log.Info("MultiCluster: forwarded job taken back from an unreachable cluster", "job", j.Key, "cluster", cluster)
					// Stale: its remote copy is killed when the cluster
					// answers (mcOrphans), by whichever master is then.
					evs = append(evs, &api.Event{JobFwdUpdate: &api.EvJobFwdUpdate{JobID: j.ID, Index: j.Index, Key: f.Key, Back: true,
						Stale: true, Reason: "remote cluster unavailable"}})
				}
				continue
			}
			if f.RemoteID == 0 {
				s.mcSend(ctx, j, &api.EvJobForward{JobID: j.ID, Index: j.Index, Cluster: cluster, Queue: f.Queue, Key: f.Key})
				continue
			}
			if late {
				r, err := mcCall(ctx, s, cluster, api.MBatchdMCControl, &api.MCControlRequest{JobID: f.RemoteID, Op: api.MCRecall})
				if err == nil && r.Done {
					s.log.Info("MultiCluster: forwarded job recalled (MAX_RSCHED_TIME)", "job", j.Key, "cluster", cluster)
					evs = append(evs, &api.Event{JobFwdUpdate: &api.EvJobFwdUpdate{JobID: j.ID, Index: j.Index, Key: f.Key, Back: true,
						Reason: "recalled: not started in the remote cluster in time"}})
					continue
				}
			}
			ids = append(ids, f.RemoteID)
			asked = append(asked, j)
		}
		if len(ids) == 0 {
			continue
		}
		r, err := mcCall(ctx, s, cluster, api.MBatchdMCJobs, &api.MCJobsRequest{Jobs: ids})
		if err != nil || len(r.Jobs) != len(asked) {
			continue
		}
		for i, rs := range r.Jobs {
			if e := mcUpdateOf(asked[i], rs); e != nil {
				evs = append(evs, &api.Event{JobFwdUpdate: e})
			}
		}
	}
	if len(evs) > 0 {
		if _, err := s.prop.Propose(ctx, evs...); err != nil {
			s.log.Warn("MultiCluster: forwarded jobs' states not recorded", "err", err)
		}
	}
}

// mcUpdateOf is the update a remote job's state makes to the local job,
// nil when nothing changed.
func mcUpdateOf(j *state.Job, rs *api.MCJobState) *api.EvJobFwdUpdate {
	f := j.Fwd
	up := &api.EvJobFwdUpdate{JobID: j.ID, Index: j.Index, Key: f.Key}
	if !rs.Found {
		// Gone from the execution cluster: back here if it had not
		// started, lost otherwise.
		if job.Pending(j.State) {
			up.Back, up.Reason = true, "the remote job no longer exists"
		} else {
			up.State, up.Reason = api.StateExit, "TERM_UNKNOWN"
		}
		return up
	}
	hostsChanged := !slices.Equal(rs.ExecHosts, f.ExecHosts)
	if rs.State == j.State && !hostsChanged {
		return nil
	}
	if rs.State == api.StatePend && job.Started(j.State) {
		return nil // requeued remotely: shown as it runs again
	}
	up.State, up.ExecHosts, up.StartTime = rs.State, rs.ExecHosts, rs.StartTime
	if job.Finished(rs.State) {
		up.EndTime, up.ExitStatus, up.Usage, up.Reason = rs.EndTime, rs.ExitStatus, rs.Usage, rs.TermReason
	}
	return up
}

// mcOrphans kills the remote copies of forwards taken back while their
// cluster was unreachable (Job.FwdStale, in the replicated state), once
// it answers, and records each done (a copy whose ID was never learnt is
// found by its forward's key first; none found is done too).
func (s *Server) mcOrphans(ctx context.Context) {
	var evs []*api.Event
	s.st.Latest().StaleForwards(func(j *state.Job) bool {
		for _, sf := range j.FwdStale {
			if _, ok := s.mcPeerOK(sf.Cluster); !ok {
				continue
			}
			id := sf.RemoteID
			if id == 0 {
				r, err := mcCall(ctx, s, sf.Cluster, api.MBatchdMCSubmit,
					mcSubmitRequest(nil, j, &api.EvJobForward{JobID: j.ID, Index: j.Index, Cluster: sf.Cluster, Queue: sf.Queue, Key: sf.Key}))
				if err != nil {
					continue
				}
				id = r.JobID
			}
			if id != 0 {
				if _, err := mcCall(ctx, s, sf.Cluster, api.MBatchdMCControl, &api.MCControlRequest{JobID: id, Op: api.MCKill}); err != nil {
					continue
				}
				s.log.Info("MultiCluster: remote copy of a job taken back killed", "job", j.Key, "cluster", sf.Cluster, "remote", id)
			}
			evs = append(evs, &api.Event{JobFwdUpdate: &api.EvJobFwdUpdate{JobID: j.ID, Index: j.Index, Key: sf.Key, StaleDone: true}})
		}
		return true
	})
	if len(evs) > 0 {
		if _, err := s.prop.Propose(ctx, evs...); err != nil {
			s.log.Warn("MultiCluster: remote copies killed not recorded", "err", err)
		}
	}
}
