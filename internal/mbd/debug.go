package mbd

import (
	"context"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/logging/logrpc"
)

// registerDebug serves MBatchd.Debug (badmin mbddebug, mbdtime, and
// schddebug, schdtime: the scheduler is mbatchd's and logs to its log)
// for root and the cluster administrators, on Options.DebugLog.
func (s *Server) registerDebug() {
	if s.opts.DebugLog == nil {
		return
	}
	logrpc.Register(s.rpc, api.MBatchdDebug, s.opts.Host, s.opts.DebugLog, func(_ context.Context, id auth.Identity) (bool, error) {
		return s.isAdmin(id, s.cfg.Current()), nil
	})
}
