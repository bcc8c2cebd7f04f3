package mbd

import (
	"context"
	"slices"
	"time"

	"github.com/hashicorp/raft"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
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
func (s *Server) preferCandidates(ctx context.Context, replicas []string) {
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

// replicaCaughtUp reports whether the replica on host answers and has
// applied at least what this leader had applied before asking.
func (s *Server) replicaCaughtUp(ctx context.Context, host string) bool {
	r := s.raftR.Load()
	if r == nil || s.opts.Creds == nil {
		return false
	}
	want := r.AppliedIndex()
	cfg := s.cfg.Current()
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	ip, err := cfg.Resolver().Resolve(ctx, host)
	if err != nil {
		return false
	}
	hello, err := s.opts.Creds.Hello(ctx, auth.KindMbatchd, host)
	if err != nil {
		return false
	}
	c, err := rpc.Dial(ctx, string(replicaAddr(ip.String(), cfg.Conf.MBDPort())), hello)
	if err != nil {
		return false
	}
	defer c.Close()
	var reply api.LeaderReply
	if err := c.Call(ctx, api.MBatchdLeader, &api.LeaderRequest{}, &reply); err != nil {
		return false
	}
	return sameHost(reply.Host, host) && reply.Applied >= want
}
