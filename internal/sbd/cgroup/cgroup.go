package cgroup

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/basalt-lsf/basalt/internal/sbd/rawfile"
)

// The v1 controllers a job group uses. cpuacct may be co-mounted with cpu.
const (
	ctlMemory  = "memory"
	ctlCPUAcct = "cpuacct"
	ctlFreezer = "freezer"
	ctlPids    = "pids"
)

var v1Controllers = []string{ctlMemory, ctlCPUAcct, ctlFreezer, ctlPids}

// Hierarchies says where the cgroup file systems are mounted.
type Hierarchies struct {
	// Unified is the cgroup2 mount point ("" when none). On a pure v2 host
	// it carries the controllers; in the hybrid layout it has none but still
	// offers cgroup.kill, cgroup.freeze, cgroup.events and cpu.stat.
	Unified string
	// V1 maps a v1 controller name to its hierarchy's mount point.
	V1 map[string]string
}

// FromMounts picks the hierarchies out of a mount table. Only mounts of a
// hierarchy's root ("/") are used: a job group is created under the mount
// point, so a mount showing a sub-cgroup would place it elsewhere than its
// name says.
func FromMounts(ms []Mount) Hierarchies {
	h := Hierarchies{V1: map[string]string{}}
	for _, m := range ms {
		if m.Root != "/" {
			continue
		}
		switch m.FSType {
		case "cgroup2":
			if h.Unified == "" {
				h.Unified = m.MountPoint
			}
		case "cgroup":
			for _, o := range m.SuperOptions {
				for _, c := range v1Controllers {
					if o == c {
						if _, dup := h.V1[c]; !dup {
							h.V1[c] = m.MountPoint
						}
					}
				}
			}
		}
	}
	return h
}

// Detect reads /proc/self/mountinfo.
func Detect() (Hierarchies, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return Hierarchies{}, fmt.Errorf("cgroup: %w", err)
	}
	defer f.Close()
	ms, err := ParseMountinfo(f)
	if err != nil {
		return Hierarchies{}, fmt.Errorf("cgroup: %w", err)
	}
	return FromMounts(ms), nil
}

// Manager creates and opens job groups under one parent path.
type Manager struct {
	h      Hierarchies
	parent string
	// pureV2: the unified hierarchy carries the controllers (no v1 ones
	// are used).
	pureV2 bool
}

// New returns a manager for groups under parent (a relative path such as
// "basalt/cluster1/host1") in the hierarchies h.
func New(h Hierarchies, parent string) *Manager {
	m := &Manager{h: h, parent: filepath.Clean(parent)}
	if h.Unified != "" {
		if b, err := rawfile.ReadFile(filepath.Join(h.Unified, "cgroup.controllers")); err == nil {
			ctls := strings.Fields(string(b))
			if contains(ctls, "memory") && contains(ctls, "pids") {
				m.pureV2 = true
			}
		}
	}
	return m
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Mode describes the layout in use: "v2", "v1+unified", "v1" or "none".
func (m *Manager) Mode() string {
	switch {
	case m.pureV2:
		return "v2"
	case len(m.h.V1) > 0 && m.h.Unified != "":
		return "v1+unified"
	case len(m.h.V1) > 0:
		return "v1"
	case m.h.Unified != "":
		return "v2"
	}
	return "none"
}

// Parent is the manager's parent path.
func (m *Manager) Parent() string { return m.parent }

// Group returns the handle of group name without touching the file system.
func (m *Manager) Group(name string) *Group {
	g := &Group{name: name, pureV2: m.pureV2}
	rel := filepath.Join(m.parent, name)
	if m.h.Unified != "" {
		g.unified = filepath.Join(m.h.Unified, rel)
	}
	if !m.pureV2 {
		g.v1 = map[string]string{}
		for c, mp := range m.h.V1 {
			g.v1[c] = filepath.Join(mp, rel)
		}
	}
	return g
}

// Create makes group name in every hierarchy (and the parent path as
// needed). It fails when no hierarchy could hold it; a hierarchy that
// refuses (a read-only mount, a non-root user) is skipped as long as the
// group exists somewhere processes can be listed from.
func (m *Manager) Create(name string) (*Group, error) {
	g, _, err := m.Make(name)
	return g, err
}

// Make is Create, in one system call per hierarchy when the parent path
// exists; existed reports that the group was already there in some
// hierarchy (it may hold processes: see Empty).
func (m *Manager) Make(name string) (g *Group, existed bool, err error) {
	if err := checkName(name); err != nil {
		return nil, false, err
	}
	g = m.Group(name)
	var errs []error
	made := 0
	for _, dir := range g.dirs() {
		err := rawfile.Mkdir(dir, 0o755)
		switch {
		case err == nil:
		case errors.Is(err, fs.ErrExist):
			existed = true
		case errors.Is(err, fs.ErrNotExist):
			err = m.mkdirAll(dir)
		}
		if err != nil && !errors.Is(err, fs.ErrExist) {
			errs = append(errs, err)
			g.drop(dir)
			continue
		}
		made++
	}
	if made == 0 {
		if len(errs) == 0 {
			return nil, false, fmt.Errorf("cgroup: no cgroup hierarchy is mounted")
		}
		return nil, false, fmt.Errorf("cgroup: creating %s: %w", name, errors.Join(errs...))
	}
	if g.procsFile() == "" {
		g.Remove()
		return nil, false, fmt.Errorf("cgroup: creating %s: no usable hierarchy", name)
	}
	return g, existed, nil
}

// mkdirAll creates dir and its missing ancestors below the mount point; on
// pure v2 it enables the memory, pids and cpu controllers in each ancestor
// it creates, so the job group gets them.
func (m *Manager) mkdirAll(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if m.pureV2 {
		for p := filepath.Dir(dir); len(p) > len(m.h.Unified); p = filepath.Dir(p) {
			for _, c := range []string{"+memory", "+pids", "+cpu"} {
				_ = writeFile(filepath.Join(p, "cgroup.subtree_control"), c)
			}
		}
	}
	return nil
}

func checkName(name string) error {
	if name == "" || strings.ContainsAny(name, "/\x00") || name == "." || name == ".." {
		return fmt.Errorf("cgroup: bad group name %q", name)
	}
	return nil
}

// Open returns group name if it exists in at least one hierarchy.
func (m *Manager) Open(name string) (*Group, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	g := m.Group(name)
	found := false
	for _, dir := range g.dirs() {
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			found = true
		} else {
			g.drop(dir)
		}
	}
	if !found || g.procsFile() == "" {
		return nil, fmt.Errorf("cgroup: %s: %w", name, fs.ErrNotExist)
	}
	return g, nil
}

// List returns the names of the groups under the parent, sorted.
func (m *Manager) List() ([]string, error) {
	g := m.Group("x")
	dir := filepath.Dir(g.procsDir())
	if g.procsDir() == "" {
		return nil, nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("cgroup: %w", err)
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}

// RemoveParents removes the manager's parent path (basalt/<cluster>/<host>,
// then basalt/<cluster>, then basalt) in every hierarchy where it is empty;
// directories still holding groups stay.
func (m *Manager) RemoveParents() {
	for _, d := range m.Group("x").dirs() {
		mount := strings.TrimSuffix(d, filepath.Join(m.parent, "x"))
		for p := filepath.Dir(d); len(p) > len(mount) && strings.HasPrefix(p, mount); p = filepath.Dir(p) {
			if syscall.Rmdir(p) != nil {
				break
			}
		}
	}
}

// Group is one job's control group.
type Group struct {
	name    string
	pureV2  bool
	unified string            // directory in the unified hierarchy, "" if unused
	v1      map[string]string // controller -> directory
}

// Name is the group's name under its parent.
func (g *Group) Name() string { return g.name }

func (g *Group) dirs() []string {
	var out []string
	if g.unified != "" {
		out = append(out, g.unified)
	}
	seen := map[string]bool{}
	for _, c := range v1Controllers {
		if d := g.v1[c]; d != "" && !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

func (g *Group) drop(dir string) {
	if g.unified == dir {
		g.unified = ""
	}
	for c, d := range g.v1 {
		if d == dir {
			delete(g.v1, c)
		}
	}
}

// procsDir is the directory processes are listed from: the unified one
// when present, else the first v1 hierarchy of pids, freezer, memory,
// cpuacct.
func (g *Group) procsDir() string {
	if g.unified != "" {
		return g.unified
	}
	for _, c := range []string{ctlPids, ctlFreezer, ctlMemory, ctlCPUAcct} {
		if d := g.v1[c]; d != "" {
			return d
		}
	}
	return ""
}

func (g *Group) procsFile() string {
	if d := g.procsDir(); d != "" {
		return filepath.Join(d, "cgroup.procs")
	}
	return ""
}

// ProcsFiles are the cgroup.procs files a process writes its PID to in
// order to join the group (one per hierarchy).
func (g *Group) ProcsFiles() []string {
	var out []string
	for _, d := range g.dirs() {
		out = append(out, filepath.Join(d, "cgroup.procs"))
	}
	return out
}

// Exists reports whether the group's directory exists in the hierarchy
// processes are listed from.
func (g *Group) Exists() bool {
	d := g.procsDir()
	if d == "" {
		return false
	}
	_, err := os.Stat(d)
	return err == nil
}

// Unified is the group's directory in the unified (v2) hierarchy, ""
// when it has none; a process can be cloned straight into it
// (CLONE_INTO_CGROUP).
func (g *Group) Unified() string { return g.unified }

// Join moves process pid into the group in every hierarchy.
func (g *Group) Join(pid int) error {
	return JoinFiles(g.ProcsFiles(), pid)
}

// JoinFiles writes pid to each cgroup.procs file (what a process being set
// up for a job does for itself, given the list from ProcsFiles).
func JoinFiles(files []string, pid int) error {
	b := []byte(strconv.Itoa(pid))
	for _, f := range files {
		if err := rawfile.WriteFile(f, b, 0, 0); err != nil {
			return fmt.Errorf("cgroup: joining %s: %w", f, err)
		}
	}
	return nil
}

// PIDs lists the processes in the group.
func (g *Group) PIDs() ([]int, error) {
	f := g.procsFile()
	if f == "" {
		return nil, fmt.Errorf("cgroup: %s: no hierarchy", g.name)
	}
	b, err := rawfile.ReadFile(f)
	if err != nil {
		return nil, fmt.Errorf("cgroup: %w", err)
	}
	return parsePIDs(b), nil
}

func parsePIDs(b []byte) []int {
	var out []int
	for _, f := range bytes.Fields(b) {
		if n, err := strconv.Atoi(string(f)); err == nil && n > 0 {
			out = append(out, n)
		}
	}
	return out
}

// Empty reports whether no process is left in the group.
func (g *Group) Empty() (bool, error) {
	if g.unified != "" {
		if v, ok, err := readKeyed(filepath.Join(g.unified, "cgroup.events"), "populated"); err == nil && ok {
			return v == 0, nil
		}
	}
	pids, err := g.PIDs()
	if err != nil {
		return false, err
	}
	return len(pids) == 0, nil
}

// Signal sends sig to every process of the group, repeating the listing
// until a round finds no process it has not signalled (processes forked
// meanwhile are caught); it returns how many processes were signalled.
func (g *Group) Signal(sig syscall.Signal) (int, error) {
	done := map[int]bool{}
	for round := 0; round < 16; round++ {
		pids, err := g.PIDs()
		if err != nil {
			return len(done), err
		}
		fresh := 0
		for _, p := range pids {
			if done[p] {
				continue
			}
			done[p] = true
			fresh++
			_ = syscall.Kill(p, sig)
		}
		if fresh == 0 {
			break
		}
	}
	return len(done), nil
}

// Kill kills every process of the group with SIGKILL: atomically through
// cgroup.kill when the kernel has it, else by freezing the group, killing
// each process and thawing (a frozen process cannot fork away), repeated
// until the group is empty or a bound is reached.
func (g *Group) Kill() error {
	if g.unified != "" {
		if err := writeFile(filepath.Join(g.unified, "cgroup.kill"), "1"); err == nil {
			return nil
		}
	}
	frozen := g.Freeze() == nil
	for round := 0; round < 16; round++ {
		pids, err := g.PIDs()
		if err != nil {
			if frozen {
				_ = g.Thaw()
			}
			return err
		}
		if len(pids) == 0 {
			break
		}
		for _, p := range pids {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
		if !frozen {
			continue
		}
		// Killed tasks of a frozen v1 group die only once thawed.
		_ = g.Thaw()
		frozen = g.Freeze() == nil
	}
	if frozen {
		return g.Thaw()
	}
	return nil
}

// Freeze stops every process of the group (cgroup.freeze on v2, the v1
// freezer otherwise). It does not wait for the group to be fully frozen.
func (g *Group) Freeze() error { return g.setFrozen(true) }

// Thaw resumes the processes Freeze stopped.
func (g *Group) Thaw() error { return g.setFrozen(false) }

func (g *Group) setFrozen(on bool) error {
	if g.unified != "" {
		v := "0"
		if on {
			v = "1"
		}
		if err := writeFile(filepath.Join(g.unified, "cgroup.freeze"), v); err == nil {
			return nil
		}
	}
	if d := g.v1[ctlFreezer]; d != "" {
		v := "THAWED"
		if on {
			v = "FROZEN"
		}
		return writeFile(filepath.Join(d, "freezer.state"), v)
	}
	return fmt.Errorf("cgroup: %s: no freezer", g.name)
}

// Stats is a group's accounting. A field is -1 when the hierarchy that
// provides it is not in use.
type Stats struct {
	// CPU time used by every process that ever ran in the group.
	User, System time.Duration
	// Memory: current and peak charge (including page cache), and the
	// anonymous (resident, non-file) part now, in bytes.
	MemCurrent, MemPeak, MemAnon int64
	// PIDs is the number of tasks now.
	PIDs int64
	// OOMKills counts processes the kernel killed for the group's memory
	// limit.
	OOMKills int64
}

// Stats reads the group's accounting files.
func (g *Group) Stats() (Stats, error) {
	s := Stats{User: -1, System: -1, MemCurrent: -1, MemPeak: -1, MemAnon: -1, PIDs: -1, OOMKills: -1}
	if d := g.v1[ctlCPUAcct]; d != "" {
		u, err1 := readInt(filepath.Join(d, "cpuacct.usage_user"))
		sy, err2 := readInt(filepath.Join(d, "cpuacct.usage_sys"))
		if err1 == nil && err2 == nil {
			s.User, s.System = time.Duration(u), time.Duration(sy)
		} else if u, ok, err := readKeyed(filepath.Join(d, "cpuacct.stat"), "user"); err == nil && ok {
			sy, _, _ := readKeyed(filepath.Join(d, "cpuacct.stat"), "system")
			s.User, s.System = ticks(u), ticks(sy)
		}
	}
	if s.User < 0 && g.unified != "" {
		if u, ok, err := readKeyed(filepath.Join(g.unified, "cpu.stat"), "user_usec"); err == nil && ok {
			sy, _, _ := readKeyed(filepath.Join(g.unified, "cpu.stat"), "system_usec")
			s.User, s.System = time.Duration(u)*time.Microsecond, time.Duration(sy)*time.Microsecond
		}
	}
	if d := g.v1[ctlMemory]; d != "" {
		if v, err := readInt(filepath.Join(d, "memory.usage_in_bytes")); err == nil {
			s.MemCurrent = v
		}
		if v, err := readInt(filepath.Join(d, "memory.max_usage_in_bytes")); err == nil {
			s.MemPeak = v
		}
		if v, ok, err := readKeyed(filepath.Join(d, "memory.stat"), "total_rss"); err == nil && ok {
			s.MemAnon = v
		}
		if v, ok, err := readKeyed(filepath.Join(d, "memory.oom_control"), "oom_kill"); err == nil && ok {
			s.OOMKills = v
		}
	} else if g.pureV2 && g.unified != "" {
		if v, err := readInt(filepath.Join(g.unified, "memory.current")); err == nil {
			s.MemCurrent = v
		}
		if v, err := readInt(filepath.Join(g.unified, "memory.peak")); err == nil {
			s.MemPeak = v
		}
		if v, ok, err := readKeyed(filepath.Join(g.unified, "memory.stat"), "anon"); err == nil && ok {
			s.MemAnon = v
		}
		if v, ok, err := readKeyed(filepath.Join(g.unified, "memory.events"), "oom_kill"); err == nil && ok {
			s.OOMKills = v
		}
	}
	pidsDir := g.v1[ctlPids]
	if g.pureV2 {
		pidsDir = g.unified
	}
	if pidsDir != "" {
		if v, err := readInt(filepath.Join(pidsDir, "pids.current")); err == nil {
			s.PIDs = v
		}
	}
	return s, nil
}

// CPU is the CPU time (user and system) used by every process that ever
// ran in the group: one read of cpuacct.usage, or of cpu.stat on the
// unified hierarchy. Stats reads much more.
func (g *Group) CPU() (time.Duration, error) {
	if d := g.v1[ctlCPUAcct]; d != "" {
		if v, err := readInt(filepath.Join(d, "cpuacct.usage")); err == nil {
			return time.Duration(v), nil
		}
	}
	if g.unified != "" {
		if v, ok, err := readKeyed(filepath.Join(g.unified, "cpu.stat"), "usage_usec"); err == nil && ok {
			return time.Duration(v) * time.Microsecond, nil
		}
	}
	return 0, fmt.Errorf("cgroup: %s: no CPU accounting", g.name)
}

// OOMKills is Stats().OOMKills alone: processes the kernel killed for the
// group's memory limit (-1 without a memory controller).
func (g *Group) OOMKills() int64 {
	if d := g.v1[ctlMemory]; d != "" {
		if v, ok, err := readKeyed(filepath.Join(d, "memory.oom_control"), "oom_kill"); err == nil && ok {
			return v
		}
		return -1
	}
	if g.pureV2 && g.unified != "" {
		if v, ok, err := readKeyed(filepath.Join(g.unified, "memory.events"), "oom_kill"); err == nil && ok {
			return v
		}
	}
	return -1
}

// ticks converts USER_HZ clock ticks (100 per second on Linux) to a
// duration.
func ticks(n int64) time.Duration { return time.Duration(n) * 10 * time.Millisecond }

// SetMemoryLimit caps the group's memory charge at bytes (0: no limit).
func (g *Group) SetMemoryLimit(bytes int64) error {
	if d := g.v1[ctlMemory]; d != "" {
		v := "-1"
		if bytes > 0 {
			v = strconv.FormatInt(bytes, 10)
		}
		return writeFile(filepath.Join(d, "memory.limit_in_bytes"), v)
	}
	if g.pureV2 && g.unified != "" {
		v := "max"
		if bytes > 0 {
			v = strconv.FormatInt(bytes, 10)
		}
		return writeFile(filepath.Join(g.unified, "memory.max"), v)
	}
	return fmt.Errorf("cgroup: %s: no memory controller", g.name)
}

// SetPIDsLimit caps the number of tasks in the group (0: no limit).
func (g *Group) SetPIDsLimit(n int64) error {
	d := g.v1[ctlPids]
	if g.pureV2 {
		d = g.unified
	}
	if d == "" {
		return fmt.Errorf("cgroup: %s: no pids controller", g.name)
	}
	v := "max"
	if n > 0 {
		v = strconv.FormatInt(n, 10)
	}
	return writeFile(filepath.Join(d, "pids.max"), v)
}

// Tasks is the number of tasks (threads of every process) the group holds
// now, as its pids controller counts them.
func (g *Group) Tasks() (int64, error) {
	d := g.v1[ctlPids]
	if g.pureV2 {
		d = g.unified
	}
	if d == "" {
		return 0, fmt.Errorf("cgroup: %s: no pids controller", g.name)
	}
	b, err := rawfile.ReadFile(filepath.Join(d, "pids.current"))
	if err != nil {
		return 0, fmt.Errorf("cgroup: %w", err)
	}
	n, err := strconv.ParseInt(string(bytes.TrimSpace(b)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("cgroup: %s: pids.current: %w", g.name, err)
	}
	return n, nil
}

// Remove deletes the group from every hierarchy; it fails while processes
// remain. Hierarchies where it is already gone are not an error. The
// hierarchy processes are listed from goes last, so a group that Exists
// is not fully removed.
func (g *Group) Remove() error {
	var errs []error
	dirs := g.dirs()
	if p := g.procsDir(); p != "" {
		for i, d := range dirs {
			if d == p {
				dirs = append(append(dirs[:i:i], dirs[i+1:]...), p)
				break
			}
		}
	}
	for _, d := range dirs {
		if err := rawfile.Rmdir(d); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("cgroup: removing %s: %w", d, err))
		}
	}
	return errors.Join(errs...)
}

// writeFile writes a cgroup control file.
func writeFile(path, v string) error { return rawfile.WriteFile(path, []byte(v), 0, 0) }

func readInt(path string) (int64, error) {
	b, err := rawfile.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
}

// readKeyed reads the value of key in a "key value" per line file
// (memory.stat, cpu.stat, cgroup.events...).
func readKeyed(path, key string) (int64, bool, error) {
	b, err := rawfile.ReadFile(path)
	if err != nil {
		return 0, false, err
	}
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		k, v, ok := bytes.Cut(line, []byte{' '})
		if ok && string(k) == key {
			n, err := strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64)
			if err != nil {
				return 0, false, fmt.Errorf("cgroup: %s: %s: %w", path, key, err)
			}
			return n, true, nil
		}
	}
	return 0, false, nil
}
