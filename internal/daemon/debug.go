package daemon

import (
	"context"
	"os"
	"slices"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/logging/logrpc"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

// registerDebug serves m (RES.Debug, SBatchd.Debug: lsadmin resdebug,
// restime; badmin sbddebug, sbdtime) on srv for root, the account the
// daemon runs as and the cluster administrators (lsf.cluster's
// ClusterAdmins), on the daemon's log.
func (d *batchDaemon) registerDebug(srv *rpc.Server, m api.Unary[api.DebugRequest, api.DebugReply]) {
	admins := d.base.Cluster.Admins
	logrpc.Register(srv, m, d.host, d.dlog, func(_ context.Context, id auth.Identity) (bool, error) {
		return id.IsRoot() || id.UID == os.Geteuid() || slices.Contains(admins, id.User), nil
	})
}
