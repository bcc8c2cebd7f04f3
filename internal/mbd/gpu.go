package mbd

import (
	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/mbd/sched"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
	"github.com/basalt-lsf/basalt/internal/resreq/gpureq"
)

// hostGPUs is bhosts -gpu's view of a host's GPUs: each GPU its LIM
// reported, with the started jobs allocated to it (JOB_START's ExecHosts).
func hostGPUs(h *sched.Host, v *state.View) []*api.HostGPU {
	if len(h.GPUs) == 0 {
		return nil
	}
	out := make([]*api.HostGPU, len(h.GPUs))
	byIndex := map[int32]*api.HostGPU{}
	for i, d := range h.GPUs {
		out[i] = &api.HostGPU{Index: d.Index, Model: d.Model, MemTotal: d.MemTotal}
		byIndex[d.Index] = out[i]
	}
	v.OnHost(h.Name, func(j *state.Job) bool {
		excl := false
		if len(j.ExecHosts) > 0 {
			if r, err := gpureq.Parse(j.ExecHosts[0].GPUReq); err == nil {
				excl = r.Exclusive()
			}
		}
		for _, eh := range j.ExecHosts {
			if eh.Host != h.Name {
				continue
			}
			for _, id := range eh.GPUs {
				g := byIndex[id]
				if g == nil {
					continue
				}
				g.NJobs++
				switch j.State {
				case api.StateRun:
					g.Run++
				case api.StateSSusp, api.StateUSusp:
					g.Susp++
				}
				g.Exclusive = g.Exclusive || excl
			}
		}
		return true
	})
	return out
}
