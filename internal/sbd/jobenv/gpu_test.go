package jobenv

import (
	"slices"
	"strings"
	"testing"

	"github.com/basalt-lsf/basalt/api"
)

func envValue(env []string, k string) (string, bool) {
	for _, kv := range env {
		if n, v, _ := strings.Cut(kv, "="); n == k {
			return v, true
		}
	}
	return "", false
}

func TestGPUEnv(t *testing.T) {
	l := &api.JobLaunch{JobID: 1, Spec: &api.JobSpec{Env: []string{"CUDA_VISIBLE_DEVICES=7"}},
		ExecHosts: []*api.ExecHost{{Host: "h1", Slots: 1, GPUs: []int32{2, 3}, GPUReq: "num=2:mode=shared:mps=no:j_exclusive=no"},
			{Host: "h2", Slots: 1, GPUs: []int32{0, 1}}}}
	for _, c := range []struct {
		devices bool
		want    string
	}{{false, "2,3"}, {true, "0,1"}} {
		v, ok := envValue(Env(l, Host{GPUDevices: c.devices}, Files{}), "CUDA_VISIBLE_DEVICES")
		if !ok || v != c.want {
			t.Errorf("devices cgroup %v: CUDA_VISIBLE_DEVICES=%q (%v), want %q", c.devices, v, ok, c.want)
		}
	}
	l.ExecHosts[0].GPUReq = "num=2:mps=yes,nocvd"
	if v, _ := envValue(Env(l, Host{}, Files{}), "CUDA_VISIBLE_DEVICES"); v != "7" {
		t.Errorf("nocvd: CUDA_VISIBLE_DEVICES=%q, want the submitter's 7", v)
	}
	l.ExecHosts[0].GPUs = nil
	env := Env(l, Host{}, Files{})
	if v, _ := envValue(env, "CUDA_VISIBLE_DEVICES"); v != "7" || slices.Contains(env, "CUDA_VISIBLE_DEVICES=") {
		t.Errorf("no GPUs: CUDA_VISIBLE_DEVICES=%q", v)
	}
}
