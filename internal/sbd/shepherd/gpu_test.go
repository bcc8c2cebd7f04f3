package shepherd

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/sbd/cgroup"
	"github.com/basalt-lsf/basalt/internal/sbd/sbdwire"
)

// TestGPUDevicesGroup: a GPU job's processes join a devices group holding
// this host's GPUs of the job, removed at the end. The devices hierarchy
// is a plain directory here (no GPUs, no v1 devices controller on this
// machine), so the kernel's enforcement itself is not exercised.
func TestGPUDevicesGroup(t *testing.T) {
	mount := t.TempDir()
	s := &Shepherd{
		p:  &sbdwire.Params{Host: "h2", GPUDevices: mount, CgroupParent: "basalt/c/h2.1", CgroupName: "job.5"},
		l:  &api.JobLaunch{ExecHosts: []*api.ExecHost{{Host: "h1", GPUs: []int32{0}}, {Host: "h2", GPUs: []int32{1, 3}}}},
		cg: &cgroup.Group{},
	}
	s.prepareGPUDevices()
	dir := filepath.Join(mount, "basalt/c/h2.1/job.5")
	if s.gpuProcs != filepath.Join(dir, "cgroup.procs") {
		t.Fatalf("gpuProcs = %q", s.gpuProcs)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "devices.allow")); string(b) != "c 195:3 rwm" {
		t.Errorf("last allow rule %q, want this host's GPU 3", b)
	}
	spec := s.inCgroup(&sbdwire.ExecSpec{})
	if !slices.Contains(spec.Cgroups, s.gpuProcs) {
		t.Errorf("the job's processes do not join the devices group: %v", spec.Cgroups)
	}
	for _, f := range []string{"devices.deny", "devices.allow"} {
		os.Remove(filepath.Join(dir, f)) // a kernel's group has no files to remove
	}
	s.removeGPUDevices()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("devices group left: %v", err)
	}

	// No GPUs here, or no enforcement: no group.
	for _, p := range []*sbdwire.Params{{Host: "h3", GPUDevices: mount, CgroupParent: "p", CgroupName: "job.6"},
		{Host: "h2", CgroupParent: "p", CgroupName: "job.7"}} {
		s := &Shepherd{p: p, l: s.l, cg: &cgroup.Group{}}
		s.prepareGPUDevices()
		if s.gpuProcs != "" {
			t.Errorf("%+v: devices group %s", p, s.gpuProcs)
		}
	}
}
