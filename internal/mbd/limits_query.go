package mbd

import (
	"context"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
)

// limits answers blimits: the lsb.resources limits in force and their
// usage as the scheduler's last pass counted it (sched.Published), so that
// blimits shows the very counts jobs were held back by. Without All, only
// rows running jobs count against. With Config, the Limit sections as
// configured (bresources).
func (s *Server) limits(ctx context.Context, id auth.Identity, req *api.LimitsRequest) (*api.LimitsReply, error) {
	reply := &api.LimitsReply{}
	if req.Config {
		for i, l := range s.cfg.Current().Limits {
			reply.Sections = append(reply.Sections, limitSection(l, i))
		}
		return reply, nil
	}
	p := s.sched.Published()
	if p == nil || p.Limits == nil {
		return reply, nil
	}
	for _, r := range p.Limits() {
		if r.InUse || req.All {
			reply.Limits = append(reply.Limits, r)
		}
	}
	return reply, nil
}
