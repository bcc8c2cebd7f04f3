package mbd

import (
	"context"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/lsberr"
)

// migrateJob is bmig for one job.
func (s *Server) migrateJob(ctx context.Context, cfg *config.Config, id auth.Identity, req *api.ControlRequest, t target) error {
	return lsberr.New(lsberr.NotChkpntable)
}
