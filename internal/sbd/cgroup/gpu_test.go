package cgroup

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestGPUDeviceRules(t *testing.T) {
	got := GPUDeviceRules([]int32{1, 3})
	want := []DeviceRule{
		{"devices.deny", "c 195:* rwm"},
		{"devices.allow", "c 195:255 rwm"},
		{"devices.allow", "c 195:1 rwm"},
		{"devices.allow", "c 195:3 rwm"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rules = %v, want %v", got, want)
	}
}

// TestPrepareGPUGroup writes into a directory standing for the devices
// hierarchy (the files a kernel would offer are plain files here, so each
// keeps the last rule written to it). This machine has no GPUs and no v1
// devices hierarchy: the live case (a job denied /dev/nvidia<N>) is not run.
func TestPrepareGPUGroup(t *testing.T) {
	mount := t.TempDir()
	procs, err := PrepareGPUGroup(mount, "basalt/c/job.7", []int32{2})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(mount, "basalt/c/job.7")
	if procs != filepath.Join(dir, "cgroup.procs") {
		t.Errorf("procs file %s", procs)
	}
	for f, want := range map[string]string{"devices.deny": "c 195:* rwm", "devices.allow": "c 195:2 rwm"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil || string(b) != want {
			t.Errorf("%s = %q (%v), want %q", f, b, err, want)
		}
	}
	for _, bad := range []string{"../escape", "/abs", "a/../../b", ""} {
		if _, err := PrepareGPUGroup(mount, bad, nil); err == nil {
			t.Errorf("group %q accepted", bad)
		}
	}
	for _, f := range []string{"devices.deny", "devices.allow"} {
		os.Remove(filepath.Join(dir, f))
	}
	if err := RemoveGPUGroup(mount, "basalt/c/job.7"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("group left: %v", err)
	}
	if err := RemoveGPUGroup(mount, "basalt/c/job.7"); err != nil {
		t.Errorf("removing a removed group: %v", err)
	}
}

func TestDevicesMount(t *testing.T) {
	ms := []Mount{{FSType: "cgroup2", Root: "/", MountPoint: "/sys/fs/cgroup/unified"},
		{FSType: "cgroup", Root: "/sub", MountPoint: "/x", SuperOptions: []string{"rw", "devices"}},
		{FSType: "cgroup", Root: "/", MountPoint: "/sys/fs/cgroup/devices", SuperOptions: []string{"rw", "devices"}}}
	if got := DevicesMount(ms); got != "/sys/fs/cgroup/devices" {
		t.Errorf("DevicesMount = %q", got)
	}
	if got := DevicesMount(ms[:2]); got != "" {
		t.Errorf("without devices: %q", got)
	}
}
