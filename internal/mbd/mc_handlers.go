package mbd

import (
	"context"
	"fmt"
	"slices"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/job"
	"github.com/basalt-lsf/basalt/internal/lsberr"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
	"github.com/basalt-lsf/basalt/internal/mc"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

// The MultiCluster listener's handlers: every caller is a peer cluster's
// master (mc.Authenticator takes nothing else), id.User its name.

func peerOf(id auth.Identity) (string, error) {
	if id.Daemon != mc.KindCluster || id.User == "" {
		return "", rpc.Errorf(rpc.PermissionDenied, "User permission denied")
	}
	return id.User, nil
}

func clusterAdmin(cfg *config.Config) string {
	if len(cfg.Cluster.Admins) > 0 {
		return cfg.Cluster.Admins[0]
	}
	return "root"
}

// mcHelloHandler tells a peer of this cluster and of the receive-jobs
// queues open to it.
func (s *Server) mcHelloHandler(_ context.Context, id auth.Identity, _ *api.MCHelloRequest) (*api.MCHelloReply, error) {
	peer, err := peerOf(id)
	if err != nil {
		return nil, err
	}
	cfg := s.cfg.Current()
	v := s.st.Latest()
	r := &api.MCHelloReply{Cluster: cfg.ClusterName(), Master: s.opts.Host, Admin: clusterAdmin(cfg),
		Hosts: int32(len(cfg.Cluster.Hosts)), Servers: int32(len(cfg.Cluster.ServerHosts()))}
	var free map[string]int
	for _, q := range cfg.Queues {
		if !q.Receives(peer) {
			continue
		}
		if free == nil {
			free = s.freeSlots(cfg, v)
		}
		qi := &api.MCQueueInfo{Name: q.Name, Backlog: int32(q.MC.ImptJobBklg)}
		qs := v.QueueState(q.Name)
		qi.Open = !qs.Closed && !qs.Inactive
		if q.Hosts == nil {
			for _, n := range free {
				qi.FreeSlots += int32(n)
			}
		} else {
			for _, h := range q.Hosts {
				qi.FreeSlots += int32(free[h.Host])
			}
		}
		v.Pending(q.Name, func(j *state.Job) bool {
			if j.Spec.Full().SrcCluster == peer {
				qi.Pending++
			}
			return true
		})
		// Jobs forwarded here that are pending count against the free
		// slots too: they will take them first.
		qi.FreeSlots = max(0, qi.FreeSlots-qi.Pending)
		r.Queues = append(r.Queues, qi)
	}
	return r, nil
}

// freeSlots are each usable batch host's slots left by its started jobs.
func (s *Server) freeSlots(cfg *config.Config, v *state.View) map[string]int {
	out := map[string]int{}
	for _, h := range s.schedHosts(cfg, v) {
		if h.Status != "ok" {
			continue
		}
		n := h.MaxSlots
		if n < 0 {
			n = 1 << 20
		}
		v.OnHost(h.Name, func(j *state.Job) bool {
			for _, eh := range j.ExecHosts {
				if eh.Host == h.Name {
					n -= int(eh.Slots)
				}
			}
			return true
		})
		out[h.Name] = max(0, n)
	}
	return out
}

// mcSubmitHandler takes a job forwarded by a peer into a receive-jobs
// queue that accepts that peer's jobs, as a submission of the job's user
// under the forward's key (a repeated forward finds the job its first
// sending created).
func (s *Server) mcSubmitHandler(ctx context.Context, id auth.Identity, req *api.MCSubmitRequest) (*api.MCSubmitReply, error) {
	peer, err := peerOf(id)
	if err != nil {
		return nil, err
	}
	if req.Spec == nil || req.Key == "" || req.User == "" {
		return nil, rpc.Errorf(rpc.InvalidArgument, "forwarded job without spec, key or user")
	}
	cfg := s.cfg.Current()
	q := cfg.Queue(req.Queue)
	refuse := func(format string, args ...any) (*api.MCSubmitReply, error) {
		return &api.MCSubmitReply{Status: &api.Status{Code: int32(lsberr.BadQueue), Message: fmt.Sprintf(format, args...)}}, nil
	}
	if q == nil || !q.Receives(peer) {
		return refuse("Queue <%s> does not receive jobs from cluster <%s>", req.Queue, peer)
	}
	v := s.st.Latest()
	if v.SubmitKey(req.User, mcSubmitKey(peer, req.Key)) == nil && q.MC.ImptJobBklg >= 0 {
		n := 0
		v.Pending(q.Name, func(j *state.Job) bool {
			if j.Spec.Full().SrcCluster == peer {
				n++
			}
			return n < q.MC.ImptJobBklg
		})
		if n >= q.MC.ImptJobBklg {
			return refuse("Queue <%s> holds IMPT_JOBBKLG (%d) pending jobs of cluster <%s>", q.Name, q.MC.ImptJobBklg, peer)
		}
	}
	spec := *req.Spec
	spec.Queues, spec.Clusters, spec.SrcCluster, spec.SrcJobID, spec.UID = []string{q.Name}, nil, peer, req.JobID, req.UID
	spec.JobName = req.JobName
	spec.MinProcs, spec.MaxProcs = req.NumProcs, req.NumProcs
	user := auth.Identity{User: req.User, UID: int(req.UID), GID: -1, Host: spec.FromHost, Daemon: mc.KindCluster}
	reply, err := s.submit(ctx, user, &api.SubmitRequest{Jobs: []*api.JobSpec{&spec}, Key: mcSubmitKey(peer, req.Key)})
	if err != nil {
		return nil, err
	}
	res := reply.Results[0]
	if res.JobID == 0 {
		return &api.MCSubmitReply{Status: res.Status}, nil
	}
	return &api.MCSubmitReply{JobID: res.JobID}, nil
}

func mcSubmitKey(peer, key string) string { return "mc:" + peer + ":" + key }

// peerJob returns a job a peer forwarded here, nil for any other.
func peerJob(v *state.View, peer string, id int64) *state.Job {
	j := v.Job(state.Key{ID: id})
	if j == nil || j.Spec.Full().SrcCluster != peer {
		return nil
	}
	return j
}

// mcJobsHandler tells a peer the state of the jobs it forwarded here.
func (s *Server) mcJobsHandler(_ context.Context, id auth.Identity, req *api.MCJobsRequest) (*api.MCJobsReply, error) {
	peer, err := peerOf(id)
	if err != nil {
		return nil, err
	}
	v := s.st.Latest()
	r := &api.MCJobsReply{Jobs: make([]*api.MCJobState, len(req.Jobs))}
	for i, jid := range req.Jobs {
		js := &api.MCJobState{JobID: jid}
		r.Jobs[i] = js
		j := peerJob(v, peer, jid)
		if j == nil {
			continue
		}
		js.Found, js.State, js.StartTime, js.ExitStatus, js.TermReason, js.Usage = true, j.State, j.StartTime, j.ExitStatus, j.TermReason, j.Usage
		if job.Finished(j.State) {
			js.EndTime = j.EndTime
		}
		for _, h := range j.ExecHosts {
			js.ExecHosts = append(js.ExecHosts, h.Host)
		}
	}
	return r, nil
}

// mcControlHandler acts on a job a peer forwarded here, as its owner
// would: kill, stop, resume; recall removes it only while it is pending.
func (s *Server) mcControlHandler(ctx context.Context, id auth.Identity, req *api.MCControlRequest) (*api.MCControlReply, error) {
	peer, err := peerOf(id)
	if err != nil {
		return nil, err
	}
	j := peerJob(s.st.Latest(), peer, req.JobID)
	if j == nil {
		return &api.MCControlReply{Message: fmt.Sprintf("Job <%d> is not found", req.JobID)}, nil
	}
	owner := auth.Identity{User: j.User, UID: int(j.UID), GID: -1}
	var op api.ControlOp
	switch req.Op {
	case api.MCRecall:
		if !job.Pending(j.State) {
			return &api.MCControlReply{State: j.State, Message: "the job has started"}, nil
		}
		op = api.OpKill
	case api.MCKill:
		op = api.OpKill
	case api.MCStop:
		op = api.OpStop
	case api.MCResume:
		op = api.OpResume
	default:
		return nil, rpc.Errorf(rpc.InvalidArgument, "unknown operation %d", req.Op)
	}
	cr, err := s.control(ctx, owner, &api.ControlRequest{Op: op, Jobs: []*api.JobRef{{JobID: j.ID}}})
	if err != nil {
		return nil, err
	}
	r := &api.MCControlReply{Done: true}
	if cr.Status != nil {
		r.Done, r.Message = false, cr.Status.Message
	}
	for _, res := range cr.Results {
		if res.Status != nil {
			r.Done, r.Message = false, res.Status.Message
		}
	}
	if cur := s.st.Latest().Job(j.Key); cur != nil {
		r.State = cur.State
		if req.Op == api.MCRecall && !job.Finished(cur.State) {
			r.Done = false // dispatched meanwhile
		}
	}
	return r, nil
}

// clusters answers lsclusters and bclusters: this cluster, then each
// peer of lsf.shared as this master last saw it, and the queues'
// forwarding relationships.
func (s *Server) clusters(_ context.Context, _ auth.Identity, _ *api.ClustersRequest) (*api.ClustersReply, error) {
	cfg := s.cfg.Current()
	r := &api.ClustersReply{Clusters: []*api.ClusterInfo{{Name: cfg.ClusterName(), Status: "ok", Master: s.opts.Host,
		Admin: clusterAdmin(cfg), Hosts: int32(len(cfg.Cluster.Hosts)), Servers: int32(len(cfg.Cluster.ServerHosts()))}}}
	status := map[string]string{}
	for _, e := range cfg.Peers() {
		p := s.peer(e.Name)
		s.mc.mu.Lock()
		ci := &api.ClusterInfo{Name: e.Name, Status: p.status, Master: "-", Admin: "-", Reason: p.reason}
		if h := p.hello; h != nil && p.status == "ok" {
			ci.Master, ci.Admin, ci.Hosts, ci.Servers = h.Master, h.Admin, h.Hosts, h.Servers
		}
		s.mc.mu.Unlock()
		status[e.Name] = ci.Status
		r.Clusters = append(r.Clusters, ci)
	}
	link := func(st string) string {
		if st == "ok" {
			return "ok"
		}
		return "disc"
	}
	for _, q := range cfg.Queues {
		for _, t := range q.MC.SndJobsTo {
			st := link(status[t.Cluster])
			if h, ok := s.mcPeerOK(t.Cluster); ok && !slices.ContainsFunc(h.Queues, func(x *api.MCQueueInfo) bool { return x.Name == t.Queue }) {
				st = "reject" // the remote queue does not receive this cluster's jobs
			}
			r.Links = append(r.Links, &api.MCLink{LocalQueue: q.Name, Flow: "send", Remote: t.Queue, Cluster: t.Cluster, Status: st})
		}
		for _, c := range q.MC.RcvJobsFrom {
			if c == "allclusters" {
				for _, e := range cfg.Peers() {
					r.Links = append(r.Links, &api.MCLink{LocalQueue: q.Name, Flow: "recv", Remote: "-", Cluster: e.Name, Status: link(status[e.Name])})
				}
				continue
			}
			r.Links = append(r.Links, &api.MCLink{LocalQueue: q.Name, Flow: "recv", Remote: "-", Cluster: c, Status: link(status[c])})
		}
	}
	return r, nil
}

// mcRecord adds a job's forwarding to its bjobs record: where it went and
// its ID there (its execution hosts as host@cluster), or where it came
// from.
func mcRecord(j *state.Job, r *api.JobRecord) {
	if f := j.Fwd; f != nil {
		r.FwdCluster, r.FwdQueue, r.FwdTime, r.DstJobID = f.Cluster, f.Queue, f.Time, f.RemoteID
		if job.Started(j.State) || job.Finished(j.State) {
			for _, h := range f.ExecHosts {
				r.ExecHosts = append(r.ExecHosts, &api.ExecHost{Host: h + "@" + f.Cluster, Slots: 1})
			}
		}
	}
	if spec := j.Spec.Full(); spec.SrcCluster != "" {
		r.SrcCluster, r.SrcJobID = spec.SrcCluster, spec.SrcJobID
	}
}

// mcControlOne carries bkill, bstop and bresume of a job forwarded to
// another cluster to that cluster (its state comes back with the next
// exchange); done false leaves the request to the local path (a job not
// forwarded, or killed before its cluster accepted it).
func (s *Server) mcControlOne(ctx context.Context, req *api.ControlRequest, t target) (bool, error) {
	j := s.st.Latest().Job(t.key)
	if j == nil || j.Fwd == nil || !j.Fwd.Active {
		return false, nil
	}
	var op int32
	switch req.Op {
	case api.OpKill:
		op = api.MCKill
	case api.OpStop:
		op = api.MCStop
	case api.OpResume:
		op = api.MCResume
	default:
		return false, nil
	}
	f := j.Fwd
	if f.RemoteID == 0 || func() bool { _, ok := s.mcPeerOK(f.Cluster); return !ok }() {
		if op == api.MCKill && job.Pending(j.State) {
			// Killed here; the remote copy, if any, when its cluster
			// answers (mcOrphans: recorded first, in the replicated state).
			up := &api.EvJobFwdUpdate{JobID: j.ID, Index: j.Index, Key: f.Key, Stale: true}
			if _, err := s.prop.Propose(ctx, &api.Event{JobFwdUpdate: up}); err != nil {
				return true, lsberr.Errorf(lsberr.MbdInternal, "cluster <%s>: the job's remote copy not recorded: %v", f.Cluster, err)
			}
			return false, nil
		}
		return true, lsberr.Errorf(lsberr.MbdInternal, "cannot reach cluster <%s>, which runs the job", f.Cluster)
	}
	r, err := mcCall(ctx, s, f.Cluster, api.MBatchdMCControl, &api.MCControlRequest{JobID: f.RemoteID, Op: op})
	if err != nil {
		return true, lsberr.Errorf(lsberr.MbdInternal, "cluster <%s>: %v", f.Cluster, err)
	}
	if !r.Done {
		return true, lsberr.Errorf(lsberr.MbdInternal, "cluster <%s>: %s", f.Cluster, r.Message)
	}
	if r.State != 0 && r.State != j.State {
		up := mcUpdateOf(j, &api.MCJobState{Found: true, State: r.State, ExecHosts: f.ExecHosts, StartTime: j.StartTime})
		if up != nil {
			if job.Finished(r.State) {
				up.Reason = "TERM_OWNER"
			}
			_, _ = s.prop.Propose(ctx, &api.Event{JobFwdUpdate: up})
		}
	}
	return true, nil
}
