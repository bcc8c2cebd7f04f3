package shepherd

import (
	"path/filepath"

	"github.com/basalt-lsf/basalt/internal/sbd/cgroup"
)

// prepareGPUDevices gives a GPU job, under LSB_RESOURCE_ENFORCE="gpu" on a
// host with the v1 devices controller, a devices group that allows only
// the GPUs allocated to it on this host; its processes join it with their
// other groups (inCgroup). Without it the job sees every GPU and only
// CUDA_VISIBLE_DEVICES tells it which are its own, as in LSF.
func (s *Shepherd) prepareGPUDevices() {
	if s.p.GPUDevices == "" || s.cg == nil {
		return
	}
	var ids []int32
	for _, eh := range s.l.ExecHosts {
		if eh.Host == s.p.Host {
			ids = append(ids, eh.GPUs...)
		}
	}
	if len(ids) == 0 {
		return
	}
	procs, err := cgroup.PrepareGPUGroup(s.p.GPUDevices, s.gpuGroup(), ids)
	if err != nil {
		s.warnf("GPU device enforcement: %v", err)
		return
	}
	s.gpuProcs = procs
}

func (s *Shepherd) gpuGroup() string { return filepath.Join(s.p.CgroupParent, s.p.CgroupName) }

// removeGPUDevices removes the job's devices group once its processes
// are gone.
func (s *Shepherd) removeGPUDevices() {
	if s.gpuProcs == "" {
		return
	}
	if err := cgroup.RemoveGPUGroup(s.p.GPUDevices, s.gpuGroup()); err != nil {
		s.warnf("GPU devices group left: %v", err)
	}
}
