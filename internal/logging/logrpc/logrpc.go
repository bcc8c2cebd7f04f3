package logrpc

import (
	"context"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/logging"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

// Admin reports whether id may change the daemon's log (root and the
// cluster administrators, as LSF's lsadmin and badmin privileged
// subcommands); its error fails the call.
type Admin func(ctx context.Context, id auth.Identity) (bool, error)

// Register serves m on srv for the daemon on host logging to l, and sets
// srv.Timed to l.Timed (call it before srv.Serve).
func Register(srv *rpc.Server, m api.Unary[api.DebugRequest, api.DebugReply], host string, l *logging.Log, may Admin) {
	srv.Timed = l.Timed
	rpc.HandleUnary(srv, m, func(ctx context.Context, id auth.Identity, req *api.DebugRequest) (*api.DebugReply, error) {
		return Serve(ctx, id, req, host, l, may)
	})
}

// Serve carries out one debug request: a peer daemon or a user who is no
// administrator is refused (PermissionDenied, LSF's "User permission
// denied"), a bad level or file is InvalidArgument.
func Serve(ctx context.Context, id auth.Identity, req *api.DebugRequest, host string, l *logging.Log, may Admin) (*api.DebugReply, error) {
	ok := id.Daemon == "" && id.User != ""
	if ok {
		var err error
		if ok, err = may(ctx, id); err != nil {
			return nil, err
		}
	}
	if !ok {
		l.Warn("debug request refused", "peer", id.User+"@"+id.Host, "uid", id.UID, "daemon", req.Daemon)
		return nil, rpc.Errorf(rpc.PermissionDenied, "User permission denied")
	}
	if req.Op != api.DebugOpLog && req.Op != api.DebugOpTiming {
		return nil, rpc.Errorf(rpc.InvalidArgument, "unknown debug operation %d", req.Op)
	}
	path, err := l.Apply(logging.Debug{Timing: req.Op == api.DebugOpTiming, Level: int(req.Level), Classes: req.Classes,
		File: req.LogFile, Reset: req.Reset, By: id.User + "@" + id.Host})
	if err != nil {
		return nil, rpc.Errorf(rpc.InvalidArgument, "%s: %v", req.Daemon, err)
	}
	return &api.DebugReply{Host: host, Path: path}, nil
}
