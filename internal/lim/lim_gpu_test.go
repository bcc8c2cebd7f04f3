package lim

import (
	"testing"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/config"
)

// TestGPUIndices: ngpus and ngpus_physical are reported (the number of
// GPUs detected) only when lsf.shared defines them, and an elim's value
// of the same name wins.
func TestGPUIndices(t *testing.T) {
	l := &LIM{base: &config.Base{Shared: &config.Shared{}}, gpus: []*api.GPUDevice{{Index: 0}, {Index: 1}}}
	if ext := l.gpuIndices(nil); len(ext) != 0 {
		t.Errorf("without lsf.shared resources: %v", ext)
	}
	l.base.Shared.Resources = []config.Resource{{Name: "ngpus"}, {Name: "ngpus_physical"}}
	ext := l.gpuIndices([]*api.IndexValue{{Name: "ngpus", Value: 7}})
	got := map[string]float64{}
	for _, v := range ext {
		got[v.Name] = v.Value
	}
	if len(ext) != 2 || got["ngpus"] != 7 || got["ngpus_physical"] != 2 {
		t.Errorf("ext = %v", got)
	}
}
