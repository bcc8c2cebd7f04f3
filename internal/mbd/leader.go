package mbd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"time"

	"github.com/hashicorp/raft"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

// gate refuses every request but MBatchd.Leader while this mbatchd is not
// the master, naming the master when it is known: the caller sends the
// request there (nothing was done here).
func (s *Server) gate(method string) error {
	if s.leading.Load() || method == api.MBatchdLeader.Name() {
		return nil
	}
	if l := s.leaderHost(); l != "" && !sameHost(l, s.opts.Host) {
		return rpc.Errorf(rpc.FailedPrecondition, "mbatchd on %s is not the master; the master is %s", s.opts.Host, l)
	}
	return rpc.Errorf(rpc.FailedPrecondition, "mbatchd on %s is not the master; no master is elected yet", s.opts.Host)
}

// leaderHost is the host of the raft leader as this replica knows it, ""
// while none is known.
func (s *Server) leaderHost() string {
	r := s.raftR.Load()
	if r == nil {
		return ""
	}
	_, id := r.LeaderWithID()
	return s.hostOfID(id)
}

// hostOfID maps a raft server ID to its host: a replica's ID is its host;
// the single node's is the host that runs it.
func (s *Server) hostOfID(id raft.ServerID) string {
	if id == singleNodeID {
		return s.opts.Host
	}
	return string(id)
}

// leaderInfo answers MBatchd.Leader, on every replica.
func (s *Server) leaderInfo(ctx context.Context, id auth.Identity, req *api.LeaderRequest) (*api.LeaderReply, error) {
	reply := &api.LeaderReply{Host: s.opts.Host, IsLeader: s.leading.Load()}
	r := s.raftR.Load()
	if r == nil {
		return reply, nil // raft not open yet
	}
	if req.Digest {
		s.st.View(func(v *state.View) { reply.Digest, reply.DigestIndex = jobDigest(v), v.Applied() })
	}
	reply.Leader = s.leaderHost()
	reply.Term = r.CurrentTerm()
	reply.Applied = r.AppliedIndex()
	reply.Commit = r.LastIndex()
	if f := r.GetConfiguration(); f.Error() == nil {
		for _, sv := range f.Configuration().Servers {
			if sv.Suffrage == raft.Voter {
				reply.Replicas = append(reply.Replicas, s.hostOfID(sv.ID))
			}
		}
	}
	return reply, nil
}

// jobDigest summarises the jobs of v (ID, state, queue, user, hosts, run
// count), in key order.
func jobDigest(v *state.View) uint64 {
	var jobs []*state.Job
	v.Jobs(func(j *state.Job) bool { jobs = append(jobs, j); return true })
	slices.SortFunc(jobs, func(a, b *state.Job) int {
		return cmp.Or(cmp.Compare(a.ID, b.ID), cmp.Compare(a.Index, b.Index))
	})
	h := fnv.New64a()
	for _, j := range jobs {
		fmt.Fprintf(h, "%d.%d %d %s %s %d", j.ID, j.Index, j.State, j.Queue, j.User, j.RunCount)
		for _, e := range j.ExecHosts {
			fmt.Fprintf(h, " %s*%d", e.Host, e.Slots)
		}
		h.Write([]byte{'\n'})
	}
	fmt.Fprintf(h, "last %d", v.LastJobID())
	return h.Sum64()
}

// isLeader reports whether raft says this node leads.
func (n *raftNode) isLeader() bool { return n.r.State() == raft.Leader }

// watchLeadership waits until this node stops leading (true) or ctx ends
// (false).
func (n *raftNode) watchLeadership(ctx context.Context) bool {
	obs := make(chan raft.Observation, 4)
	o := raft.NewObserver(obs, false, func(o *raft.Observation) bool {
		_, ok := o.Data.(raft.RaftState)
		return ok
	})
	n.r.RegisterObserver(o)
	defer n.r.DeregisterObserver(o)
	for n.r.State() == raft.Leader {
		select {
		case <-obs:
		case <-ctx.Done():
			return false
		}
	}
	return true
}

// preferCandidates hands the leadership to the first replica of
// LSF_MASTER_LIST's order that answers and has applied what this leader
// has, when that is not this host, as LSF's master returns to the first
// candidate: it must have been found ready at two checks in a row (not a
// replica still replaying its log after a restart).
func (s *Server) preferCandidates(ctx context.Context) {
	const every = time.Second
	t := s.clock.NewTicker(every)
	defer t.Stop()
	ready := ""
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
		}
		if s.handOverIfFull() {
			continue
		}
		s.reconcileReplicas(ctx)
		replicas := s.cfg.Current().Conf.MasterReplicas()
		i := slices.IndexFunc(replicas, func(h string) bool { return sameHost(h, s.opts.Host) })
		best := ""
		for _, h := range replicas[:max(i, 0)] {
			if s.replicaCaughtUp(ctx, h) {
				best = h
				break
			}
		}
		if best == "" || best != ready {
			ready = best
			continue
		}
		s.log.Warn("handing the master role to " + best + ", an earlier master candidate")
		r := s.raftR.Load()
		cfg := s.cfg.Current()
		if err := r.LeadershipTransferToServer(raft.ServerID(best), replicaAddr(best, cfg.Conf.MBDPort())).Error(); err != nil {
			s.log.Warn("leadership transfer failed", "to", best, "err", err)
		}
		ready = ""
	}
}

// handOverIfFull hands the master role to another replica when this one's
// log cannot be written (its disk is full): another replica can go on
// acknowledging changes, where this one could only refuse them. It
// reports whether it tried.
func (s *Server) handOverIfFull() bool {
	n := s.node
	if n == nil || n.space == nil || !n.space.NoSpace() {
		return false
	}
	s.log.Error("no space left for the master's log on this host: handing the master role to another replica")
	if err := n.r.LeadershipTransfer().Error(); err != nil {
		s.log.Warn("leadership transfer failed", "err", err)
	}
	return true
}

// replicaCaughtUp reports whether the replica on host answers and has
// applied at least what this leader had applied before asking.
func (s *Server) replicaCaughtUp(ctx context.Context, host string) bool {
	r := s.raftR.Load()
	if r == nil {
		return false
	}
	want := r.AppliedIndex()
	reply, err := s.askReplica(ctx, host)
	return err == nil && sameHost(reply.Host, host) && reply.Applied >= want
}

// askReplica asks the mbatchd of host (a replica, or one to be) who
// leads, as this host's mbatchd.
func (s *Server) askReplica(ctx context.Context, host string) (*api.LeaderReply, error) {
	if s.opts.Creds == nil {
		return nil, errors.New("no credentials to reach the other replicas")
	}
	cfg := s.cfg.Current()
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	ip, err := cfg.Resolver().Resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	hello, err := s.opts.Creds.Hello(ctx, auth.KindMbatchd, host)
	if err != nil {
		return nil, err
	}
	c, err := rpc.Dial(ctx, string(replicaAddr(ip.String(), cfg.Conf.MBDPort())), hello)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var reply api.LeaderReply
	if err := c.Call(ctx, api.MBatchdLeader, &api.LeaderRequest{}, &reply); err != nil {
		return nil, err
	}
	return &reply, nil
}

// peersConfigured reports whether another replica already holds a raft
// configuration: a replica starting with an empty log then waits to be
// added by the leader instead of bootstrapping one of its own (only a
// cluster's very first start bootstraps, every replica with the same
// configuration).
func (s *Server) peersConfigured(ctx context.Context, replicas []string) bool {
	for _, h := range replicas {
		if sameHost(h, s.opts.Host) {
			continue
		}
		if reply, err := s.askReplica(ctx, h); err == nil && len(reply.Replicas) > 0 {
			return true
		}
	}
	return false
}

// reconcileReplicas brings the raft configuration one step towards the
// replicas lsf.conf names (badmin reconfig after LSF_MASTER_LIST or
// BASALT_MASTER_REPLICAS changed): a new replica host joins as a non-voter
// once its mbatchd answers, becomes a voter once it has caught up, and a
// host no longer named is removed (the leader hands its role over first
// when that is itself). One change per call, each committed before the
// next call can make another.
func (s *Server) reconcileReplicas(ctx context.Context) {
	r := s.raftR.Load()
	want := s.cfg.Current().Conf.MasterReplicas()
	if r == nil || len(want) <= 1 {
		return // a replicated master does not become a single node at run time
	}
	f := r.GetConfiguration()
	if f.Error() != nil {
		return
	}
	port := s.cfg.Current().Conf.MBDPort()
	have := f.Configuration().Servers
	find := func(h string) *raft.Server {
		for i := range have {
			if sameHost(string(have[i].ID), h) {
				return &have[i]
			}
		}
		return nil
	}
	change := func(what string, fut raft.IndexFuture) {
		if err := fut.Error(); err != nil {
			s.log.Warn("master replicas: "+what+" failed", "err", err)
			return
		}
		s.log.Warn("master replicas: " + what)
	}
	for _, h := range want {
		sv := find(h)
		switch {
		case sv == nil:
			if _, err := s.askReplica(ctx, h); err != nil {
				s.log.Warn("master replicas: "+h+" is named but its mbatchd does not answer; it is added once it does", "err", err)
				return
			}
			change("added "+h+" (catching up)", r.AddNonvoter(raft.ServerID(h), replicaAddr(h, port), 0, 10*time.Second))
			return
		case sv.Suffrage != raft.Voter:
			if s.replicaCaughtUp(ctx, h) {
				change(h+" caught up and votes", r.AddVoter(raft.ServerID(h), replicaAddr(h, port), 0, 10*time.Second))
			}
			return
		}
	}
	for _, sv := range have {
		h := string(sv.ID)
		if slices.ContainsFunc(want, func(w string) bool { return sameHost(w, h) }) {
			continue
		}
		if sameHost(h, s.opts.Host) {
			s.log.Warn("master replicas: this host is no longer a replica: handing the master role over")
			if err := r.LeadershipTransfer().Error(); err != nil {
				s.log.Warn("master replicas: leadership transfer failed", "err", err)
			}
			return
		}
		change("removed "+h, r.RemoveServer(sv.ID, 0, 10*time.Second))
		return
	}
}
