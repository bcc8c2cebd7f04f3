package procfs

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/basalt-lsf/basalt/internal/sbd/rawfile"
)

// TicksPerSecond is USER_HZ, the unit of the CPU times in /proc/<pid>/stat
// (100 on every Linux architecture Basalt runs on).
const TicksPerSecond = 100

// Stat is the part of /proc/<pid>/stat Basalt uses.
type Stat struct {
	PID     int
	Comm    string
	State   byte
	PPID    int
	PGID    int
	Session int
	// CPU times in clock ticks: the process's own, and those of its
	// children it has waited for.
	UTime, STime, CUTime, CSTime uint64
	NumThreads                   int
	// StartTime is when the process started, in ticks since boot: with
	// the PID it identifies a process across PID reuse.
	StartTime uint64
	// VSize is the virtual memory size in bytes; RSS the resident set in
	// pages.
	VSize uint64
	RSS   int64
}

// StatError is a malformed stat line.
type StatError struct {
	Field string
	Msg   string
}

func (e *StatError) Error() string { return fmt.Sprintf("proc stat: %s: %s", e.Field, e.Msg) }

// ParseStat parses a /proc/<pid>/stat line. The command name is between
// the first '(' and the last ')' (it may itself hold parentheses and
// blanks); the fields after it are numbered from 3 (state) as in proc(5).
func ParseStat(b []byte) (Stat, error) {
	var s Stat
	open := bytes.IndexByte(b, '(')
	closing := bytes.LastIndexByte(b, ')')
	if open < 0 || closing < open {
		return s, &StatError{Field: "comm", Msg: "no parenthesised command name"}
	}
	pid, err := strconv.Atoi(string(bytes.TrimSpace(b[:open])))
	if err != nil {
		return s, &StatError{Field: "pid", Msg: err.Error()}
	}
	s.PID = pid
	s.Comm = string(b[open+1 : closing])
	f := bytes.Fields(b[closing+1:])
	// f[0] is field 3 (state); field n is f[n-3].
	const need = 24 - 3 + 1 // up to rss (field 24)
	if len(f) < need {
		return s, &StatError{Field: "fields", Msg: fmt.Sprintf("%d fields after the command name, want at least %d", len(f), need)}
	}
	if len(f[0]) != 1 {
		return s, &StatError{Field: "state", Msg: fmt.Sprintf("%q is not one character", f[0])}
	}
	s.State = f[0][0]
	ints := []struct {
		n    int
		name string
		dst  *int
	}{{4, "ppid", &s.PPID}, {5, "pgrp", &s.PGID}, {6, "session", &s.Session}, {20, "num_threads", &s.NumThreads}}
	for _, x := range ints {
		v, err := strconv.Atoi(string(f[x.n-3]))
		if err != nil {
			return s, &StatError{Field: x.name, Msg: err.Error()}
		}
		*x.dst = v
	}
	uints := []struct {
		n    int
		name string
		dst  *uint64
	}{{14, "utime", &s.UTime}, {15, "stime", &s.STime}, {22, "starttime", &s.StartTime}, {23, "vsize", &s.VSize}}
	for _, x := range uints {
		v, err := strconv.ParseUint(string(f[x.n-3]), 10, 64)
		if err != nil {
			return s, &StatError{Field: x.name, Msg: err.Error()}
		}
		*x.dst = v
	}
	// cutime and cstime are signed in the kernel's format (long).
	for _, x := range []struct {
		n    int
		name string
		dst  *uint64
	}{{16, "cutime", &s.CUTime}, {17, "cstime", &s.CSTime}} {
		v, err := strconv.ParseInt(string(f[x.n-3]), 10, 64)
		if err != nil {
			return s, &StatError{Field: x.name, Msg: err.Error()}
		}
		if v > 0 {
			*x.dst = uint64(v)
		}
	}
	rss, err := strconv.ParseInt(string(f[24-3]), 10, 64)
	if err != nil {
		return s, &StatError{Field: "rss", Msg: err.Error()}
	}
	s.RSS = rss
	return s, nil
}

// FS is a proc file system mounted at Root ("/proc" when empty).
type FS struct{ Root string }

func (p FS) root() string {
	if p.Root == "" {
		return "/proc"
	}
	return p.Root
}

// Stat reads process pid's stat line.
func (p FS) Stat(pid int) (Stat, error) {
	b, err := rawfile.ReadFile(filepath.Join(p.root(), strconv.Itoa(pid), "stat"))
	if err != nil {
		return Stat{}, err
	}
	s, err := ParseStat(b)
	if err != nil {
		return s, fmt.Errorf("pid %d: %w", pid, err)
	}
	return s, nil
}

// PIDs lists the processes, sorted.
func (p FS) PIDs() ([]int, error) {
	ents, err := os.ReadDir(p.root())
	if err != nil {
		return nil, err
	}
	var out []int
	for _, e := range ents {
		if n, err := strconv.Atoi(e.Name()); err == nil && n > 0 {
			out = append(out, n)
		}
	}
	sort.Ints(out)
	return out, nil
}

// Table is a snapshot of the processes, by PID.
type Table map[int]Stat

// Snapshot reads every process's stat line. Processes that exit while it
// runs are skipped.
func (p FS) Snapshot() (Table, error) {
	pids, err := p.PIDs()
	if err != nil {
		return nil, err
	}
	t := make(Table, len(pids))
	for _, pid := range pids {
		if s, err := p.Stat(pid); err == nil {
			t[pid] = s
		}
	}
	return t, nil
}

// Descendants returns the processes below pid in the parent links (not pid
// itself), sorted.
func (t Table) Descendants(pid int) []int {
	children := map[int][]int{}
	for p, s := range t {
		children[s.PPID] = append(children[s.PPID], p)
	}
	var out []int
	stack := []int{pid}
	seen := map[int]bool{pid: true}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, c := range children[p] {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
				stack = append(stack, c)
			}
		}
	}
	sort.Ints(out)
	return out
}

// Usage is the aggregate of a set of processes, as LSF's PIM reports it.
type Usage struct {
	// CPU time in ticks (own plus waited-for children) of the live
	// processes.
	UTicks, STicks uint64
	// RSS and VSize in bytes, summed.
	RSS, VSize int64
	Threads    int
	PIDs       []int
	PGIDs      []int
}

// Sum aggregates the processes pids of t (missing ones are skipped).
func (t Table) Sum(pids []int) Usage {
	var u Usage
	page := int64(os.Getpagesize())
	pg := map[int]bool{}
	for _, pid := range pids {
		s, ok := t[pid]
		if !ok || s.State == 'Z' {
			continue
		}
		u.UTicks += s.UTime + s.CUTime
		u.STicks += s.STime + s.CSTime
		u.RSS += s.RSS * page
		u.VSize += int64(s.VSize)
		u.Threads += s.NumThreads
		u.PIDs = append(u.PIDs, pid)
		if !pg[s.PGID] {
			pg[s.PGID] = true
			u.PGIDs = append(u.PGIDs, s.PGID)
		}
	}
	sort.Ints(u.PIDs)
	sort.Ints(u.PGIDs)
	return u
}

// Alive reports whether process pid exists and started at startTime (0:
// any start time), i.e. is not a reuse of the PID by another process.
// Zombies are not alive.
func (p FS) Alive(pid int, startTime uint64) bool {
	if pid <= 0 {
		return false
	}
	s, err := p.Stat(pid)
	if err != nil || s.State == 'Z' || s.State == 'X' {
		return false
	}
	return startTime == 0 || s.StartTime == startTime
}

// Environ reads process pid's initial environment (NUL-separated entries,
// as /proc/<pid>/environ shows them); readable only for processes of the
// caller's user, or by root.
func (p FS) Environ(pid int) ([]byte, error) {
	return rawfile.ReadFile(filepath.Join(p.root(), strconv.Itoa(pid), "environ"))
}
