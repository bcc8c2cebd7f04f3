package lim

import (
	"context"
	"os"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

func (l *LIM) register() {
	rpc.HandleUnary(l.srv, api.LIMPing, l.handlePing)
	rpc.HandleUnary(l.srv, api.LIMReport, l.handleReport)
	rpc.HandleUnary(l.srv, api.LIMCluster, l.handleCluster)
	rpc.HandleUnary(l.srv, api.LIMControl, l.handleControl)
	rpc.HandleStream(l.srv, api.LIMWatch, l.handleWatch)
	l.registerDebug()
}

func (l *LIM) ping(ctx context.Context) *api.PingReply {
	m, epoch := l.elect.State()
	r := &api.PingReply{Host: l.host, Cluster: l.cluster, Master: m, IsMaster: m == l.host, Epoch: epoch,
		Ineligible: l.elect.Ineligible()}
	if m != "" {
		if m == l.host {
			r.MasterAddr = l.addr
		} else if a, err := l.peers.Addr(ctx, m); err == nil {
			r.MasterAddr = a
		}
	}
	return r
}

func (l *LIM) handlePing(ctx context.Context, id auth.Identity, req *api.PingRequest) (*api.PingReply, error) {
	// A LIM's word about its own mastership (a probe or an announcement)
	// makes this LIM look again if it disagrees; commands are not heard.
	if req.From != "" && id.IsDaemon(auth.KindLIM, req.From) {
		l.elect.Heard(req.From, req.Master)
	}
	return l.ping(ctx), nil
}

// reportFrom reports whether id may send host's load report: the LIM of
// that host only (a variable for the benchmark that plays every host).
var reportFrom = func(id auth.Identity, host string) bool { return id.IsDaemon(auth.KindLIM, host) }

func (l *LIM) handleReport(ctx context.Context, id auth.Identity, r *api.LoadReport) (*api.ReportReply, error) {
	// Only the LIM of the host a report speaks for may send it.
	if !reportFrom(id, r.Host) {
		l.log.Warn("load report refused: not from the LIM of its host", "report", r.Host, "user", id.User, "daemon", id.Daemon, "host", id.Host, "addr", id.Addr)
		return nil, rpc.Errorf(rpc.PermissionDenied, "%v", errDenied)
	}
	reply := &api.ReportReply{}
	var unknown bool
	err := l.do(ctx, func() {
		reply.Master = l.elect.Master()
		if l.tbl == nil || reply.Master != l.host {
			return
		}
		now := l.clk.Now()
		if !l.tbl.apply(r, now) {
			unknown = true
			return
		}
		reply.Accepted = true
		reply.Resources, reply.RunElims = l.tbl.elimAssignment(r.Host, l.host, now)
	})
	if err != nil {
		return nil, err
	}
	if unknown {
		return nil, rpc.Errorf(rpc.PermissionDenied, "host %s is not in cluster %s", r.Host, l.cluster)
	}
	return reply, nil
}

func (l *LIM) handleCluster(ctx context.Context, _ auth.Identity, req *api.ClusterRequest) (*api.ClusterReply, error) {
	var out *api.ClusterReply
	err := l.do(ctx, func() {
		if l.tbl == nil {
			return
		}
		out = l.tbl.reply(req, l.host, l.clk.Now())
	})
	if err != nil {
		return nil, err
	}
	if out == nil {
		return nil, l.errNotMaster()
	}
	return out, nil
}

// admin reports whether id may control LIMs: root, a cluster
// administrator, or the account the LIM runs as (loop goroutine).
func (l *LIM) admin(id auth.Identity) bool {
	if id.IsRoot() || id.UID == os.Getuid() {
		return true
	}
	for _, a := range l.base.Cluster.Admins {
		if a == id.User {
			return true
		}
	}
	return false
}

func (l *LIM) handleControl(ctx context.Context, id auth.Identity, req *api.LimControlRequest) (*api.LimControlReply, error) {
	var allowed bool
	if err := l.do(ctx, func() { allowed = l.admin(id) }); err != nil {
		return nil, err
	}
	if !allowed {
		return nil, rpc.Errorf(rpc.PermissionDenied, "%v", errDenied)
	}
	reply := &api.LimControlReply{Host: l.host}
	switch req.Op {
	case api.LimOpLock, api.LimOpUnlock:
		err := l.do(ctx, func() {
			l.lockedU = req.Op == api.LimOpLock
			l.lockTill = 0
			if l.lockedU && req.LockSeconds > 0 {
				l.lockTill = l.clk.Now().Add(time.Duration(req.LockSeconds) * time.Second).Unix()
			}
			l.log.Warn("LIM " + map[bool]string{true: "locked", false: "unlocked"}[l.lockedU] + " by " + id.User)
			if l.tbl != nil {
				l.tbl.apply(l.report(false), l.clk.Now())
			}
		})
		if err != nil {
			return nil, err
		}
		go l.sendReport(context.Background()) // let the master know now
	case api.LimOpShutdown:
		l.log.Warn("limshutdown by " + id.User)
		go l.cancel()
	case api.LimOpRestart, api.LimOpReconfig:
		b, err := loadBase(ctx, l.opts)
		if err != nil {
			return nil, rpc.Errorf(rpc.InvalidArgument, "%v", err)
		}
		err = l.do(ctx, func() {
			l.log.Warn("reconfiguration by " + id.User)
			l.base, l.m = b, newModel(b)
			if l.tbl != nil {
				old := l.tbl
				l.tbl = newTable(l.m)
				for _, hs := range old.hosts {
					if hs.rep != nil {
						if n := l.tbl.index[lower(hs.cfg.Name)]; n != nil {
							n.rep, n.at, n.leaving = hs.rep, hs.at, hs.leaving
						}
					}
				}
			}
			l.restartElims()
		})
		if err != nil {
			return nil, err
		}
	default:
		return nil, rpc.Errorf(rpc.InvalidArgument, "unknown LIM operation %d", req.Op)
	}
	return reply, nil
}

func (l *LIM) handleWatch(ctx context.Context, _ auth.Identity, _ *api.PingRequest, send func(*api.PingReply) error) error {
	for {
		ch := l.elect.Changed()
		if err := send(l.ping(ctx)); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-l.stopped:
			return nil
		case <-ch:
		}
	}
}
