package cgroup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/internal/clock"
	"github.com/basalt-lsf/basalt/internal/testutil"
)

const sampleMountinfo = `30 22 0:27 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
31 30 0:28 / /sys/fs/cgroup/cpu,cpuacct rw,relatime shared:9 - cgroup cgroup rw,cpu,cpuacct
34 30 0:31 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
36 30 0:33 / /sys/fs/cgroup/freezer rw,relatime - cgroup cgroup rw,freezer
38 30 0:35 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
39 30 0:36 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd
40 30 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
41 30 0:38 /sub /mnt/nested rw,relatime - cgroup cgroup rw,blkio
42 22 0:39 / /mnt/with\040blank rw - ext4 /dev/vdb rw
`

func TestParseMountinfo(t *testing.T) {
	ms, err := ParseMountinfo(strings.NewReader(sampleMountinfo))
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 9 {
		t.Fatalf("got %d mounts, want 9", len(ms))
	}
	tests := []struct {
		i    int
		want Mount
	}{
		{0, Mount{Root: "/", MountPoint: "/sys/fs/cgroup", FSType: "tmpfs", SuperOptions: []string{"rw", "mode=755"}}},
		{1, Mount{Root: "/", MountPoint: "/sys/fs/cgroup/cpu,cpuacct", FSType: "cgroup", SuperOptions: []string{"rw", "cpu", "cpuacct"}}},
		{6, Mount{Root: "/", MountPoint: "/sys/fs/cgroup/unified", FSType: "cgroup2", SuperOptions: []string{"rw"}}},
		{7, Mount{Root: "/sub", MountPoint: "/mnt/nested", FSType: "cgroup", SuperOptions: []string{"rw", "blkio"}}},
		{8, Mount{Root: "/", MountPoint: "/mnt/with blank", FSType: "ext4", SuperOptions: []string{"rw"}}},
	}
	for _, tt := range tests {
		if !reflect.DeepEqual(ms[tt.i], tt.want) {
			t.Errorf("mount %d = %+v, want %+v", tt.i, ms[tt.i], tt.want)
		}
	}
}

func TestParseMountinfoErrors(t *testing.T) {
	tests := []struct {
		in   string
		line int
		msg  string
	}{
		{"1 2 3:4 / /x rw\n", 1, `missing "-" separator`},
		{"30 22 0:27 / /sys rw - tmpfs tmpfs rw\n1 2 3:4 / /x rw -\n", 2, "missing file system type"},
		{"1 2 3:4 / /x rw - cgroup\n", 1, "missing file system type"},
		{"1 2\n", 1, `missing "-" separator`},
	}
	for _, tt := range tests {
		_, err := ParseMountinfo(strings.NewReader(tt.in))
		var me *MountinfoError
		if !errors.As(err, &me) {
			t.Errorf("%q: error %v, want *MountinfoError", tt.in, err)
			continue
		}
		if me.Line != tt.line || !strings.Contains(me.Msg, tt.msg) {
			t.Errorf("%q: line %d %q, want line %d containing %q", tt.in, me.Line, me.Msg, tt.line, tt.msg)
		}
	}
}

func TestUnescape(t *testing.T) {
	tests := []struct{ in, want string }{
		{`plain`, `plain`},
		{`a\040b`, `a b`},
		{`tab\011x`, "tab\tx"},
		{`back\134slash`, `back\slash`},
		{`bad\09`, `bad\09`},
		{`short\04`, `short\04`},
		{`end\`, `end\`},
		{`high\477`, `high\477`},
	}
	for _, tt := range tests {
		if got := unescape(tt.in); got != tt.want {
			t.Errorf("unescape(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzParseMountinfo(f *testing.F) {
	f.Add(sampleMountinfo)
	f.Add("1 2 3:4 / /x rw - cgroup cgroup rw,memory\n")
	f.Add(`1 2 3:4 /\134 /a\040b rw a:b - x y z` + "\n")
	f.Fuzz(func(t *testing.T, s string) {
		ms, err := ParseMountinfo(strings.NewReader(s))
		if err != nil {
			return
		}
		for _, m := range ms {
			if m.FSType == "" {
				t.Fatalf("mount with empty type from %q", s)
			}
		}
		FromMounts(ms)
	})
}

func TestFromMounts(t *testing.T) {
	ms, err := ParseMountinfo(strings.NewReader(sampleMountinfo))
	if err != nil {
		t.Fatal(err)
	}
	h := FromMounts(ms)
	want := Hierarchies{
		Unified: "/sys/fs/cgroup/unified",
		V1: map[string]string{
			"cpuacct": "/sys/fs/cgroup/cpu,cpuacct",
			"memory":  "/sys/fs/cgroup/memory",
			"freezer": "/sys/fs/cgroup/freezer",
			"pids":    "/sys/fs/cgroup/pids",
		},
	}
	if !reflect.DeepEqual(h, want) {
		t.Errorf("FromMounts = %+v, want %+v", h, want)
	}
	// A pure v2 host.
	h2 := FromMounts([]Mount{{Root: "/", MountPoint: "/sys/fs/cgroup", FSType: "cgroup2"}})
	if h2.Unified != "/sys/fs/cgroup" || len(h2.V1) != 0 {
		t.Errorf("pure v2: %+v", h2)
	}
}

func TestGroupLayout(t *testing.T) {
	h := Hierarchies{Unified: "/u", V1: map[string]string{"memory": "/m", "cpuacct": "/c", "freezer": "/f", "pids": "/p"}}
	m := New(h, "basalt/c1/host1")
	if m.Mode() != "v1+unified" {
		t.Errorf("Mode = %q", m.Mode())
	}
	g := m.Group("job.12.3")
	want := []string{"/u/basalt/c1/host1/job.12.3/cgroup.procs", "/m/basalt/c1/host1/job.12.3/cgroup.procs",
		"/c/basalt/c1/host1/job.12.3/cgroup.procs", "/f/basalt/c1/host1/job.12.3/cgroup.procs", "/p/basalt/c1/host1/job.12.3/cgroup.procs"}
	if got := g.ProcsFiles(); !reflect.DeepEqual(got, want) {
		t.Errorf("ProcsFiles = %q, want %q", got, want)
	}
	if g.procsFile() != "/u/basalt/c1/host1/job.12.3/cgroup.procs" {
		t.Errorf("procsFile = %q", g.procsFile())
	}
	if New(Hierarchies{V1: map[string]string{"memory": "/m"}}, "x").Mode() != "v1" {
		t.Error("v1 mode")
	}
	if New(Hierarchies{}, "x").Mode() != "none" {
		t.Error("none mode")
	}
	for _, bad := range []string{"", "a/b", "..", "."} {
		if _, err := m.Create(bad); err == nil {
			t.Errorf("Create(%q) succeeded", bad)
		}
	}
}

func TestParsePIDs(t *testing.T) {
	if got := parsePIDs([]byte("12\n7\n\nx\n-3\n")); !reflect.DeepEqual(got, []int{12, 7}) {
		t.Errorf("parsePIDs = %v", got)
	}
}

// liveManager returns a manager on this machine's real hierarchies under a
// parent private to the test, or skips when cgroups are not writable.
func liveManager(t *testing.T) *Manager {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("cgroup tests need root")
	}
	h, err := Detect()
	if err != nil {
		t.Skip(err)
	}
	parent := fmt.Sprintf("basalt-test/cg%d-%s", os.Getpid(), strings.ReplaceAll(t.Name(), "/", "_"))
	m := New(h, parent)
	if m.Mode() == "none" {
		t.Skip("no cgroup hierarchy mounted")
	}
	probe, err := m.Create("probe")
	if err != nil {
		t.Skipf("cgroups not writable: %v", err)
	}
	probe.Remove()
	t.Cleanup(func() {
		for _, d := range m.Group("x").dirs() {
			for p := filepath.Dir(d); strings.Contains(p, "basalt-test"); p = filepath.Dir(p) {
				syscall.Rmdir(p)
			}
		}
	})
	return m
}

// startIn starts a shell command whose process joins g before running
// anything (the shell writes its own PID, then execs).
func startIn(t *testing.T, g *Group, script string) *started {
	t.Helper()
	var join strings.Builder
	for _, f := range g.ProcsFiles() {
		fmt.Fprintf(&join, "echo $$ > %s; ", f)
	}
	cmd := exec.Command("/bin/sh", "-c", join.String()+"exec /bin/sh -c '"+script+"'")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &started{cmd: cmd}
	t.Cleanup(func() {
		g.Kill()
		s.Wait()
	})
	return s
}

// started is a process Wait may be called on more than once.
type started struct {
	cmd  *exec.Cmd
	once sync.Once
	err  error
}

func (s *started) Wait() error {
	s.once.Do(func() { s.err = s.cmd.Wait() })
	return s.err
}

// waitFor retries cond until it holds or the deadline passes: the kernel
// applies cgroup and signal changes asynchronously.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testutil.Eventually(t, 10*time.Second, what, cond)
}

func TestLiveGroupLifecycle(t *testing.T) {
	m := liveManager(t)
	g, err := m.Create("job.1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Open("job.1"); err != nil {
		t.Fatalf("Open: %v", err)
	}
	if _, err := m.Open("job.2"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Open(job.2) = %v, want ErrNotExist", err)
	}
	names, err := m.List()
	if err != nil || !reflect.DeepEqual(names, []string{"job.1"}) {
		t.Fatalf("List = %v, %v", names, err)
	}
	// A job that forks a setsid daemon which double-forks: every process
	// stays in the group and dies with it.
	cmd := startIn(t, g, `setsid sh -c "(sleep 300 &) ; sleep 300" & sleep 300`)
	waitFor(t, "4 processes in the group", func() bool {
		pids, _ := g.PIDs()
		return len(pids) >= 4
	})
	st, err := g.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if st.PIDs >= 0 && st.PIDs < 4 {
		t.Errorf("Stats.PIDs = %d, want >= 4", st.PIDs)
	}
	if empty, err := g.Empty(); err != nil || empty {
		t.Errorf("Empty = %v, %v", empty, err)
	}
	if err := g.Freeze(); err != nil {
		t.Fatalf("Freeze: %v", err)
	}
	if err := g.Thaw(); err != nil {
		t.Fatalf("Thaw: %v", err)
	}
	if err := g.Kill(); err != nil {
		t.Fatalf("Kill: %v", err)
	}
	cmd.Wait()
	waitFor(t, "empty group", func() bool {
		e, _ := g.Empty()
		return e
	})
	if err := g.Remove(); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	if _, err := m.Open("job.1"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open after Remove = %v", err)
	}
	if err := g.Remove(); err != nil {
		t.Errorf("second Remove: %v", err)
	}
}

func TestLiveSignalAndStats(t *testing.T) {
	m := liveManager(t)
	g, err := m.Create("job.2")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Remove()
	// Burn some CPU, then wait to be killed by SIGTERM.
	cmd := startIn(t, g, `i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; echo burnt; exec sleep 300`)
	waitFor(t, "the sleep", func() bool {
		pids, _ := g.PIDs()
		if len(pids) != 1 {
			return false
		}
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pids[0]))
		return strings.TrimSpace(string(b)) == "sleep"
	})
	st, err := g.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if st.User >= 0 && st.User+st.System <= 0 {
		t.Errorf("CPU time = %v + %v, want > 0", st.User, st.System)
	}
	if st.MemCurrent == 0 {
		t.Errorf("MemCurrent = 0")
	}
	n, err := g.Signal(syscall.SIGTERM)
	if err != nil || n != 1 {
		t.Fatalf("Signal = %d, %v", n, err)
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM {
		t.Fatalf("job ended with %v, want SIGTERM", err)
	}
}

func TestLiveMemoryLimit(t *testing.T) {
	m := liveManager(t)
	g, err := m.Create("job.3")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Remove()
	if err := g.SetMemoryLimit(64 << 20); err != nil {
		t.Skipf("no memory controller: %v", err)
	}
	if err := g.SetMemoryLimit(0); err != nil {
		t.Errorf("SetMemoryLimit(0): %v", err)
	}
	if err := g.SetPIDsLimit(10); err != nil {
		t.Skipf("no pids controller: %v", err)
	}
	if err := g.SetPIDsLimit(0); err != nil {
		t.Errorf("SetPIDsLimit(0): %v", err)
	}
}

func TestLiveWaitEmpty(t *testing.T) {
	m := liveManager(t)
	g, err := m.Create("job.4")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Remove()
	if err := g.WaitEmpty(clock.Real(), time.Second); err != nil {
		t.Fatalf("empty group: %v", err)
	}
	cmd := startIn(t, g, "sleep 300")
	waitFor(t, "the sleep", func() bool {
		pids, _ := g.PIDs()
		for _, p := range pids {
			if b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", p)); strings.TrimSpace(string(b)) == "sleep" {
				return true
			}
		}
		return false
	})
	if err := g.WaitEmpty(clock.Real(), 50*time.Millisecond); !errors.Is(err, ErrTimeout) {
		t.Fatalf("populated group: %v, want ErrTimeout", err)
	}
	if err := g.Kill(); err != nil {
		t.Fatal(err)
	}
	go cmd.Wait()
	if err := g.WaitEmpty(clock.Real(), 10*time.Second); err != nil {
		t.Fatalf("after Kill: %v", err)
	}
	if err := g.Remove(); err != nil {
		t.Fatalf("Remove after WaitEmpty: %v", err)
	}
}

func TestLiveRemoveParents(t *testing.T) {
	m := liveManager(t)
	g, err := m.Create("job.5")
	if err != nil {
		t.Fatal(err)
	}
	m.RemoveParents() // a group remains: nothing removed
	if _, err := m.Open("job.5"); err != nil {
		t.Fatalf("group removed with its parents: %v", err)
	}
	g.Remove()
	m.RemoveParents()
	for _, d := range m.Group("x").dirs() {
		if _, err := os.Stat(filepath.Dir(d)); !os.IsNotExist(err) {
			t.Errorf("%s remains: %v", filepath.Dir(d), err)
		}
	}
}

// TestLiveMake: Make creates a group, says when it was already there (in
// any hierarchy), and creates missing parents; Exists follows Remove.
func TestLiveMake(t *testing.T) {
	m := liveManager(t)
	g, existed, err := m.Make("job.7")
	if err != nil || existed {
		t.Fatalf("Make = %v, existed %v", err, existed)
	}
	defer g.Remove()
	if !g.Exists() {
		t.Error("Exists after Make = false")
	}
	if _, existed, err := m.Make("job.7"); err != nil || !existed {
		t.Errorf("second Make = %v, existed %v", err, existed)
	}
	// Present in one hierarchy only: still "existed".
	dirs := g.dirs()
	for _, d := range dirs[1:] {
		syscall.Rmdir(d)
	}
	if _, existed, err := m.Make("job.7"); err != nil || !existed {
		t.Errorf("Make over a partial group = %v, existed %v", err, existed)
	}
	if err := g.Remove(); err != nil {
		t.Fatal(err)
	}
	if g.Exists() {
		t.Error("Exists after Remove = true")
	}
	// Under a parent path that does not exist yet.
	m2 := New(m.h, m.Parent()+"/deeper")
	g2, existed, err := m2.Make("job.8")
	if err != nil || existed {
		t.Fatalf("Make under a new parent = %v, existed %v", err, existed)
	}
	g2.Remove()
	for _, d := range g2.dirs() {
		syscall.Rmdir(filepath.Dir(d))
	}
}

// TestLiveCPUAndOOMKills: the cheap reads agree with Stats.
func TestLiveCPUAndOOMKills(t *testing.T) {
	m := liveManager(t)
	g, err := m.Create("job.9")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Remove()
	cmd := startIn(t, g, `i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done`)
	cmd.Wait()
	cpu, err := g.CPU()
	if err != nil {
		t.Skipf("no CPU accounting: %v", err)
	}
	st, _ := g.Stats()
	if cpu <= 0 || st.User >= 0 && (cpu < (st.User+st.System)/2 || cpu > 2*(st.User+st.System)+100*time.Millisecond) {
		t.Errorf("CPU = %v, Stats says %v + %v", cpu, st.User, st.System)
	}
	if n := g.OOMKills(); n != st.OOMKills {
		t.Errorf("OOMKills = %d, Stats says %d", n, st.OOMKills)
	}
}
