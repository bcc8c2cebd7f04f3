package cli

import (
	"context"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
	"github.com/basalt-lsf/basalt/internal/cli/output"
)

// bhostsGPU is bhosts -gpu [-w] [-noheader] [-R res_req] [host ...]: a
// line per GPU of each batch host that has GPUs. -l (LSF's longer GPU
// detail) is refused.
func bhostsGPU(ctx context.Context, env *Env, res *lsfopt.Result) int {
	_, hasFormat := res.Last("o")
	if res.Has("l") || hasFormat || res.Has("json") {
		env.Errorf("bhosts: -gpu: Option not supported with -l, -o or -json")
		return ExitUsage
	}
	reply, rc, ok := bhostsQuery(ctx, env, res)
	if !ok {
		return ExitUsage
	}
	o := outputOptions(env)
	o.Wide, o.NoHeader = res.Has("w"), res.Has("noheader")
	if err := output.WriteHostsGPU(env.Stdout, reply.Hosts, o); err != nil {
		env.Errorf("No GPU found on the hosts")
		return ExitUsage
	}
	return rc
}

// bjobsGPU prepares bjobs -l's GPU blocks: lsf.conf's LSB_GPU_REQ when a
// job asks for GPUs, and with -gpu the hosts' GPUs.
func bjobsGPU(ctx context.Context, env *Env, alloc bool, jobs []*api.JobRecord, fl *output.JobsFlags) {
	anyGPU := false
	hosts := map[string]bool{}
	for _, j := range jobs {
		if j == nil || j.Spec == nil || j.Spec.GPUReq == "" {
			continue
		}
		anyGPU = true
		for _, eh := range j.ExecHosts {
			if len(eh.GPUs) > 0 {
				hosts[eh.Host] = true
			}
		}
	}
	if !anyGPU {
		return
	}
	if cc, err := loadClientConf(env); err == nil {
		fl.GPUDefault = cc.conf.Get("LSB_GPU_REQ")
	}
	fl.GPU = alloc
	if !alloc || len(hosts) == 0 {
		return
	}
	req := &api.HostsRequest{}
	for h := range hosts {
		req.Hosts = append(req.Hosts, h)
	}
	reply, ok := batchHosts(ctx, env, req)
	if !ok {
		return // the table then shows "-" for models and sizes
	}
	fl.GPUHosts = map[string][]*api.HostGPU{}
	for _, h := range reply.Hosts {
		fl.GPUHosts[h.Name] = h.GPUs
	}
}
