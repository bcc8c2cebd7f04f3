package res

import (
	"context"
	"os"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

// errDenied is LSF's refusal of a RES control request (LSE_RES_DENIED).
var errDenied = rpc.Errorf(rpc.PermissionDenied, "User permission denied")

// control serves RES.Control (lsadmin resshutdown, resrestart): the
// caller must be root, a cluster administrator (Server.Admin) or RES's
// own account; a daemon identity never is one. Server.Control stops the
// listener first (a command connecting once the reply is in is refused),
// then the reply goes, then RES is told to go.
func (s *Server) control(ctx context.Context, id auth.Identity, req *api.ResControlRequest, send func(*api.ResControlReply) error) error {
	if !s.mayControl(id) {
		s.log().Warn("RES control refused", "op", opName(req.Op), "peer", describe(id), "uid", id.UID, "daemon", id.Daemon, "addr", id.Addr)
		return errDenied
	}
	switch req.Op {
	case api.ResOpShutdown, api.ResOpRestart:
	case api.ResOpLogOn, api.ResOpLogOff:
		if req.CPUTime < 0 {
			return rpc.Errorf(rpc.InvalidArgument, "CPU time <%d> should be a non-negative integer", req.CPUTime)
		}
		s.setTaskLog(req.Op == api.ResOpLogOn, int64(req.CPUTime))
		s.log().Warn("RES "+opName(req.Op)+" received", "by", describe(id), "cpu_ms", req.CPUTime)
		return send(&api.ResControlReply{Host: s.Host})
	default:
		return rpc.Errorf(rpc.InvalidArgument, "Bad operation code %d", req.Op)
	}
	if s.Control == nil {
		return rpc.Errorf(rpc.Unimplemented, "RES on %s cannot be controlled", s.Host)
	}
	s.log().Warn("RES "+opName(req.Op)+" received", "by", describe(id))
	proceed := s.Control(req.Op)
	err := send(&api.ResControlReply{Host: s.Host})
	proceed() // the listener is closed: RES goes even if the caller left
	return err
}

// mayControl reports whether id may shut down or restart RES.
func (s *Server) mayControl(id auth.Identity) bool {
	if id.Daemon != "" || id.User == "" {
		return false
	}
	if id.IsRoot() || id.UID == os.Geteuid() {
		return true
	}
	return s.Admin != nil && s.Admin(id.User)
}

func opName(op api.ResOp) string {
	switch op {
	case api.ResOpShutdown:
		return "shutdown"
	case api.ResOpRestart:
		return "restart"
	case api.ResOpLogOn:
		return "logon"
	case api.ResOpLogOff:
		return "logoff"
	}
	return "unknown operation"
}
