package lim

import (
	"context"
	"path/filepath"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/lim/gpu"
)

// detectGPUs finds the host's GPUs once, at start (loop goroutine): the
// fake inventory of lsf.conf's BASALT_GPU_INVENTORY (a path relative to
// LSF_ENVDIR, or absolute), else nvidia-smi.
func (l *LIM) detectGPUs(ctx context.Context) {
	inv := l.base.Conf.Get(gpu.InventoryParam)
	if inv != "" && !filepath.IsAbs(inv) {
		inv = filepath.Join(l.base.EnvDir, inv) // relative to LSF_ENVDIR
	}
	gs, err := gpu.Detect(ctx, gpu.Options{Host: l.host, Inventory: inv})
	if err != nil {
		l.log.Warn("GPU detection", "err", err)
		return
	}
	l.gpus = gs
	if len(gs) > 0 {
		l.log.Info("GPUs detected", "ngpus", len(gs))
	}
}

// gpuIndices adds ngpus and ngpus_physical to the host's external
// values when lsf.shared defines them (LSF 10.1's built-in GPU
// resources; LSF_GPU_AUTOCONFIG defines them there).
func (l *LIM) gpuIndices(ext []*api.IndexValue) []*api.IndexValue {
	for _, name := range []string{"ngpus", "ngpus_physical"} {
		if _, ok := l.base.Shared.Resource(name); !ok {
			continue
		}
		dup := false
		for _, v := range ext {
			dup = dup || v.Name == name
		}
		if !dup {
			ext = append(ext, &api.IndexValue{Name: name, Value: float64(len(l.gpus))})
		}
	}
	return ext
}
