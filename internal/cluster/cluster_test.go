package cluster_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/internal/cluster"
	"github.com/basalt-lsf/basalt/internal/testutil"
)

// TestDownRemovesCgroups: cluster down kills a running job and leaves none
// of the cluster's cgroup directories behind, also when an sbatchd could
// not (killed first).
func TestDownRemovesCgroups(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (job cgroups)")
	}
	if _, err := os.Stat("/sys/fs/cgroup/memory"); err != nil {
		t.Skip("no cgroup v1 memory hierarchy")
	}
	c := up(t, 1, 2)
	bsubSleep(t, c)
	base := filepath.Join("/sys/fs/cgroup/memory/basalt", c.Opts.Cluster)
	testutil.Eventually(t, 30*time.Second, "a job cgroup under "+base, func() bool { return jobGroups(base) > 0 })
	// host1's sbatchd dies: its job and the job's cgroups stay for down
	// to find, by the cluster's name (its cgroups'), which it reads from
	// the configuration as basalt cluster down does.
	killDaemon(t, c.Opts.Dir, "sbatchd", "host1")
	if err := cluster.Down(context.Background(), c.Opts.Dir, ""); err != nil {
		t.Fatal(err)
	}
	if left := processesOf(c.Opts.Dir); len(left) > 0 {
		t.Errorf("processes of the cluster still run after down:\n%s", strings.Join(left, "\n"))
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

// killDaemon kills daemon's process on host with SIGKILL, as cluster.pids
// lists it.
func killDaemon(t *testing.T, dir, daemon, host string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "cluster.pids"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[1] == daemon && f[2] == host {
			pid, err := strconv.Atoi(f[0])
			if err != nil {
				t.Fatal(err)
			}
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatalf("no %s of %s in cluster.pids:\n%s", daemon, host, b)
}

// processesOf lists the processes whose command line names dir ("pid:
// args").
func processesOf(dir string) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if args := strings.ReplaceAll(string(b), "\x00", " "); err == nil && strings.Contains(args, dir) {
			out = append(out, e.Name()+": "+args)
		}
	}
	return out
}

// TestDownKeepsOtherClusters: two clusters of one name on one machine
// each have their own job cgroups, and stopping one leaves the other's
// running job alone (it used to run with no cgroup, and be killed by the
// other's down); down also stops a daemon started by hand.
func TestDownKeepsOtherClusters(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (job cgroups)")
	}
	if _, err := os.Stat("/sys/fs/cgroup/memory"); err != nil {
		t.Skip("no cgroup v1 memory hierarchy")
	}
	name := fmt.Sprintf("same%d", os.Getpid()%100000)
	a, b := upNamed(t, name, 1, 2), upNamed(t, name, 1, 2)
	if a.Opts.Cluster != b.Opts.Cluster {
		t.Fatalf("clusters %q and %q: the test needs one name", a.Opts.Cluster, b.Opts.Cluster)
	}
	exe, _ := os.Executable()
	for _, c := range []*cluster.Cluster{a, b} {
		bsubSleep(t, c)
	}
	base := filepath.Join("/sys/fs/cgroup/memory/basalt", a.Opts.Cluster)
	testutil.Eventually(t, 30*time.Second, "a job cgroup for each cluster under "+base, func() bool { return jobGroups(base) == 2 })
	// a's LIM dies and is started again by hand, as lsadmin limstartup
	// would.
	killDaemon(t, a.Opts.Dir, "lim", "host1")
	lim := exec.Command(exe)
	lim.Args = []string{"lim"}
	lim.Env = append(os.Environ(), "LSF_ENVDIR="+a.EnvDir, "BASALT_HOST=host1")
	if err := lim.Start(); err != nil {
		t.Fatal(err)
	}
	limDone := make(chan error, 1)
	go func() { limDone <- lim.Wait() }()
	select {
	case err := <-limDone:
		t.Fatalf("the LIM started by hand ended at once: %v", err)
	case <-time.After(time.Second): // real time: it must be up and serving
	}
	if err := cluster.Down(context.Background(), a.Opts.Dir, ""); err != nil {
		t.Fatal(err)
	}
	select {
	case <-limDone:
	case <-time.After(15 * time.Second):
		lim.Process.Kill()
		t.Error("a LIM started by hand on the cluster's configuration survived its down")
	}
	if n := jobGroups(base); n != 1 {
		t.Fatalf("%d job cgroups after one cluster's down, want the other's 1", n)
	}
	if left := processesOf(b.Opts.Dir); len(left) == 0 {
		t.Fatal("the other cluster's processes are gone")
	}
	m, _ := filepath.Glob(filepath.Join(base, "*", "*", "cgroup.procs"))
	procs, _ := os.ReadFile(m[0])
	if len(strings.Fields(string(procs))) == 0 {
		t.Fatal("the other cluster's job was killed")
	}
}

// bsubSleep submits "sleep 60" to c from host1 with a real bsub process.
func bsubSleep(t *testing.T, c *cluster.Cluster) {
	t.Helper()
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "-o", "/dev/null", "sleep", "60")
	cmd.Args[0] = "bsub"
	cmd.Env = append(os.Environ(), "LSF_ENVDIR="+c.EnvDir, "BASALT_HOST=host1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("bsub: %v: %s", err, out)
	}
}
