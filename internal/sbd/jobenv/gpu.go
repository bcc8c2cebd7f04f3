package jobenv

import (
	"strconv"
	"strings"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/resreq/gpureq"
)

// setGPUEnv tells a GPU job which GPUs it was given on its first host:
// CUDA_VISIBLE_DEVICES, as LSF sets it, unless the requirement says
// mps=...,nocvd. With the device cgroup holding only the job's GPUs CUDA
// numbers them from 0, so the variable lists 0..n-1 (LSF's note on GPU
// enforcement); without, the host's indices.
func setGPUEnv(e *EnvList, l *api.JobLaunch, h Host) {
	if len(l.ExecHosts) == 0 || len(l.ExecHosts[0].GPUs) == 0 {
		return
	}
	if r, err := gpureq.Parse(l.ExecHosts[0].GPUReq); err == nil && r.MPSNoCVD {
		return
	}
	e.Set("CUDA_VISIBLE_DEVICES", VisibleDevices(l.ExecHosts[0].GPUs, h.GPUDevices))
}

// VisibleDevices is CUDA_VISIBLE_DEVICES for GPU indices ids.
func VisibleDevices(ids []int32, renumbered bool) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		if renumbered {
			id = int32(i)
		}
		parts[i] = strconv.Itoa(int(id))
	}
	return strings.Join(parts, ",")
}
