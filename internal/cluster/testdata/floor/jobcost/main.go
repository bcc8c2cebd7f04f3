// Command jobcost prints the CPU a trivial job costs any batch system on
// this machine at least, step by step: fork, exec and wait of /bin/true
// (os/exec, then the bare syscalls), the job's cgroups made and removed in
// the hierarchies sbatchd uses, and both together with the child joining
// its groups. scripts/throughput.sh runs it beside the real cluster's
// per-job CPU, so that Basalt's cost reads against this floor. Needs root
// and writable cgroupfs for the cgroup lines (skipped otherwise).
//
//	go run ./internal/cluster/testdata/floor/jobcost -n 2000
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// cpu is this process's and its waited-for children's CPU time.
func cpu() time.Duration {
	var self, children syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	sum := func(r syscall.Rusage) time.Duration { return time.Duration(r.Utime.Nano() + r.Stime.Nano()) }
	return sum(self) + sum(children)
}

func main() {
	n := flag.Int("n", 2000, "jobs per step")
	root := flag.String("cgroup", "/sys/fs/cgroup", "cgroupfs mount point")
	flag.Parse()
	// The hierarchies sbatchd puts a job in: v1 controllers, and the
	// unified one of the hybrid layout; on a v2-only machine, the one.
	var hier []string
	for _, h := range []string{"memory", "cpuacct", "freezer", "pids", "unified"} {
		if st, err := os.Stat(filepath.Join(*root, h)); err == nil && st.IsDir() {
			hier = append(hier, filepath.Join(*root, h, "basalt-jobcost"))
		}
	}
	if len(hier) == 0 {
		hier = []string{filepath.Join(*root, "basalt-jobcost")}
	}
	cgroups := true
	for _, h := range hier {
		if err := os.MkdirAll(h, 0o755); err != nil {
			fmt.Fprintf(os.Stderr, "jobcost: no cgroup steps: %v\n", err)
			cgroups = false
			break
		}
		defer os.Remove(h)
	}
	step := func(name string, f func(i int) error) {
		c0, t0 := cpu(), time.Now()
		for i := 0; i < *n; i++ {
			if err := f(i); err != nil {
				fmt.Fprintf(os.Stderr, "jobcost: %s: %v\n", name, err)
				os.Exit(1)
			}
		}
		fmt.Printf("%-34s %6.3f ms CPU/job %6.3f ms/job elapsed\n", name,
			float64(cpu()-c0)/1e6/float64(*n), float64(time.Since(t0))/1e6/float64(*n))
	}
	spawn := func() (int, error) {
		return syscall.ForkExec("/bin/true", []string{"true"}, &syscall.ProcAttr{Files: []uintptr{0, 1, 2}})
	}
	wait := func(pid int) error {
		var ws syscall.WaitStatus
		_, err := syscall.Wait4(pid, &ws, 0, nil)
		return err
	}
	step("os/exec /bin/true", func(int) error { return exec.Command("/bin/true").Run() })
	step("fork+exec+wait4 /bin/true", func(int) error {
		pid, err := spawn()
		if err != nil {
			return err
		}
		return wait(pid)
	})
	if !cgroups {
		return
	}
	groups := func(i int) []string {
		var ds []string
		for _, h := range hier {
			ds = append(ds, filepath.Join(h, "job."+strconv.Itoa(i)))
		}
		return ds
	}
	step("cgroups made and removed", func(i int) error {
		ds := groups(i)
		for _, d := range ds {
			if err := os.Mkdir(d, 0o755); err != nil {
				return err
			}
		}
		for _, d := range ds {
			if err := os.Remove(d); err != nil {
				return err
			}
		}
		return nil
	})
	step("cgroups + fork+exec+join+wait4", func(i int) error {
		ds := groups(*n + i)
		for _, d := range ds {
			if err := os.Mkdir(d, 0o755); err != nil {
				return err
			}
		}
		pid, err := spawn()
		if err != nil {
			return err
		}
		for _, d := range ds {
			// The child may have exited already: joining is what is timed.
			os.WriteFile(filepath.Join(d, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0)
		}
		if err := wait(pid); err != nil {
			return err
		}
		for _, d := range ds {
			if err := os.Remove(d); err != nil {
				return err
			}
		}
		return nil
	})
}
