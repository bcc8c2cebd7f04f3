package cgroup

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// NvidiaMajor is the character device major of /dev/nvidia<N> (minor N)
// and /dev/nvidiactl (minor 255). /dev/nvidia-uvm has a major of its own
// and is left alone.
const NvidiaMajor = 195

// DeviceRule is one write to a v1 devices controller file.
type DeviceRule struct {
	File string // devices.deny or devices.allow
	Rule string // "c 195:* rwm"
}

// GPUDeviceRules are the writes that leave a job's devices group only the
// GPUs ids (LSB_RESOURCE_ENFORCE="gpu"): every NVIDIA GPU denied, then
// nvidiactl and the job's own allowed again. The order matters: a v1 group
// applies the writes in turn.
func GPUDeviceRules(ids []int32) []DeviceRule {
	out := []DeviceRule{
		{"devices.deny", fmt.Sprintf("c %d:* rwm", NvidiaMajor)},
		{"devices.allow", fmt.Sprintf("c %d:255 rwm", NvidiaMajor)},
	}
	for _, id := range ids {
		out = append(out, DeviceRule{"devices.allow", fmt.Sprintf("c %d:%d rwm", NvidiaMajor, id)})
	}
	return out
}

// DevicesMount is the mount point of the v1 devices hierarchy's root in
// a mount table, "" when there is none (pure cgroup v2, where device
// control is an eBPF program Basalt does not load).
func DevicesMount(ms []Mount) string {
	for _, m := range ms {
		if m.FSType != "cgroup" || m.Root != "/" {
			continue
		}
		for _, o := range m.SuperOptions {
			if o == "devices" {
				return m.MountPoint
			}
		}
	}
	return ""
}

// DetectDevices is DevicesMount of this process's mount table.
func DetectDevices() string {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	ms, err := ParseMountinfo(f)
	if err != nil {
		return ""
	}
	return DevicesMount(ms)
}

// PrepareGPUGroup makes the job group rel (relative to the v1 devices
// hierarchy mounted at mount) and applies GPUDeviceRules; it returns the
// group's cgroup.procs file, which the job's processes join.
func PrepareGPUGroup(mount, rel string, ids []int32) (string, error) {
	if rel == "" || filepath.IsAbs(rel) || filepath.Clean(rel) != rel || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", fmt.Errorf("cgroup devices: bad group %q", rel)
	}
	dir := filepath.Join(mount, rel)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("cgroup devices: %w", err)
	}
	for _, r := range GPUDeviceRules(ids) {
		if err := os.WriteFile(filepath.Join(dir, r.File), []byte(r.Rule), 0); err != nil {
			return "", fmt.Errorf("cgroup devices: %s %q: %w", r.File, r.Rule, err)
		}
	}
	return filepath.Join(dir, "cgroup.procs"), nil
}

// RemoveGPUGroup removes a job's devices group (empty once the job is
// gone).
func RemoveGPUGroup(mount, rel string) error {
	err := os.Remove(filepath.Join(mount, rel))
	if err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("cgroup devices: %w", err)
	}
	return nil
}
