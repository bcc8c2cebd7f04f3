package cluster_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestDownRemovesCgroups: cluster down kills a running job and leaves none
// of the cluster's cgroup directories behind.
func TestDownRemovesCgroups(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (job cgroups)")
	}
	if _, err := os.Stat("/sys/fs/cgroup/memory"); err != nil {
		t.Skip("no cgroup v1 memory hierarchy")
	}
	c := up(t, 1, 2)
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "-o", "/dev/null", "sleep", "60")
	cmd.Args[0] = "bsub"
	cmd.Env = append(os.Environ(), "LSF_ENVDIR="+c.EnvDir, "BASALT_HOST=host1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("bsub: %v: %s", err, out)
	}
	base := filepath.Join("/sys/fs/cgroup/memory/basalt", c.Opts.Cluster)
	deadline := time.Now().Add(30 * time.Second)
	for jobGroups(base) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no job cgroup under %s", base)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := c.Down(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, root := range []string{"memory", "cpuacct", "freezer", "pids", "unified"} {
		if _, err := os.Stat(filepath.Join("/sys/fs/cgroup", root, "basalt", c.Opts.Cluster)); !os.IsNotExist(err) {
			t.Errorf("%s: the cluster's cgroup is still there (%v)", root, err)
		}
	}
}

// jobGroups counts the cgroup directories two levels below base (host,
// then job).
func jobGroups(base string) int {
	m, _ := filepath.Glob(filepath.Join(base, "*", "*", "cgroup.procs"))
	return len(m)
}
