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

// TestRestrictGPUs writes into a directory standing for the devices
// hierarchy (the files a kernel would offer are plain files here, so each
// keeps the last rule written to it). This machine has no GPUs: the live
// case (a real devices hierarchy denying /dev/nvidia<N>) is not run.
func TestRestrictGPUs(t *testing.T) {
	mount := t.TempDir()
	if err := RestrictGPUs(mount, "basalt/c/job.7", 1234, []int32{2}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(mount, "basalt/c/job.7")
	for f, want := range map[string]string{"devices.deny": "c 195:* rwm", "devices.allow": "c 195:2 rwm", "cgroup.procs": "1234"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil || string(b) != want {
			t.Errorf("%s = %q (%v), want %q", f, b, err, want)
		}
	}
	if err := RestrictGPUs(mount, "../escape", 1, nil); err == nil {
		t.Error("a name leaving the hierarchy was accepted")
	}
}
