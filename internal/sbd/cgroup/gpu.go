package cgroup

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
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

// RestrictGPUs makes the job group rel (relative to the v1 devices
// hierarchy mounted at mount), applies GPUDeviceRules and moves pid into
// it. A host without the devices controller (pure cgroup v2, where device
// control is an eBPF program) has no mount: the caller skips the call.
func RestrictGPUs(mount, rel string, pid int, ids []int32) error {
	if rel == "" || filepath.IsAbs(rel) || filepath.Clean(rel) != rel || rel == ".." || strings.HasPrefix(rel, "../") {
		return fmt.Errorf("cgroup devices: bad group %q", rel)
	}
	dir := filepath.Join(mount, rel)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cgroup devices: %w", err)
	}
	for _, r := range GPUDeviceRules(ids) {
		if err := os.WriteFile(filepath.Join(dir, r.File), []byte(r.Rule), 0); err != nil {
			return fmt.Errorf("cgroup devices: %s %q: %w", r.File, r.Rule, err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0); err != nil {
		return fmt.Errorf("cgroup devices: join %d: %w", pid, err)
	}
	return nil
}
