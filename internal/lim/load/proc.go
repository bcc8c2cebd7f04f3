package load

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// ParseError reports a malformed /proc file: the file, the line (1-based)
// and what was wrong.
type ParseError struct {
	File string
	Line int
	Msg  string
}

func (e *ParseError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// Loadavg is /proc/loadavg.
type Loadavg struct {
	R1m, R5m, R15m float64
	Running, Total int
}

// ParseLoadavg reads /proc/loadavg: "0.52 0.58 0.59 2/345 12345".
func ParseLoadavg(b []byte) (Loadavg, error) {
	var l Loadavg
	f := strings.Fields(string(b))
	if len(f) < 4 {
		return l, &ParseError{"loadavg", 1, fmt.Sprintf("want at least 4 fields, found %d", len(f))}
	}
	var err error
	for i, p := range []*float64{&l.R1m, &l.R5m, &l.R15m} {
		if *p, err = strconv.ParseFloat(f[i], 64); err != nil || *p < 0 {
			return l, &ParseError{"loadavg", 1, fmt.Sprintf("field %d: bad load average %q", i+1, f[i])}
		}
	}
	run, total, ok := strings.Cut(f[3], "/")
	if !ok {
		return l, &ParseError{"loadavg", 1, fmt.Sprintf("field 4: want running/total, found %q", f[3])}
	}
	if l.Running, err = strconv.Atoi(run); err != nil || l.Running < 0 {
		return l, &ParseError{"loadavg", 1, fmt.Sprintf("field 4: bad running count %q", run)}
	}
	if l.Total, err = strconv.Atoi(total); err != nil || l.Total < 0 {
		return l, &ParseError{"loadavg", 1, fmt.Sprintf("field 4: bad process count %q", total)}
	}
	return l, nil
}

// CPUTimes are the aggregate "cpu" line of /proc/stat, in clock ticks.
type CPUTimes struct {
	User, Nice, System, Idle, IOWait, IRQ, SoftIRQ, Steal uint64
}

// Total is every tick counted.
func (c CPUTimes) Total() uint64 {
	return c.User + c.Nice + c.System + c.Idle + c.IOWait + c.IRQ + c.SoftIRQ + c.Steal
}

// Stat is what LIM reads of /proc/stat.
type Stat struct {
	CPU          CPUTimes
	ProcsRunning int
	BootTime     int64
}

// ParseStat reads /proc/stat.
func ParseStat(b []byte) (Stat, error) {
	var s Stat
	sawCPU := false
	for n, line := range lines(b) {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "cpu":
			if len(f) < 5 {
				return s, &ParseError{"stat", n + 1, fmt.Sprintf("cpu line: want at least 4 counters, found %d", len(f)-1)}
			}
			ptrs := []*uint64{&s.CPU.User, &s.CPU.Nice, &s.CPU.System, &s.CPU.Idle, &s.CPU.IOWait, &s.CPU.IRQ, &s.CPU.SoftIRQ, &s.CPU.Steal}
			for i := 1; i < len(f) && i <= len(ptrs); i++ {
				v, err := strconv.ParseUint(f[i], 10, 64)
				if err != nil {
					return s, &ParseError{"stat", n + 1, fmt.Sprintf("cpu line: counter %d: bad number %q", i, f[i])}
				}
				*ptrs[i-1] = v
			}
			sawCPU = true
		case "procs_running":
			v, err := field1Int(f)
			if err != nil {
				return s, &ParseError{"stat", n + 1, "procs_running: " + err.Error()}
			}
			s.ProcsRunning = int(v)
		case "btime":
			v, err := field1Int(f)
			if err != nil {
				return s, &ParseError{"stat", n + 1, "btime: " + err.Error()}
			}
			s.BootTime = v
		}
	}
	if !sawCPU {
		return s, &ParseError{"stat", 1, "no cpu line"}
	}
	return s, nil
}

func field1Int(f []string) (int64, error) {
	if len(f) != 2 {
		return 0, fmt.Errorf("want one value, found %d", len(f)-1)
	}
	v, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("bad value %q", f[1])
	}
	return v, nil
}

// VMStat holds the paging counters of /proc/vmstat.
type VMStat struct {
	PswpIn, PswpOut uint64
}

// ParseVMStat reads /proc/vmstat ("name value" lines); missing counters are 0.
func ParseVMStat(b []byte) (VMStat, error) {
	var v VMStat
	for n, line := range lines(b) {
		name, val, ok := strings.Cut(line, " ")
		if !ok {
			if strings.TrimSpace(line) == "" {
				continue
			}
			return v, &ParseError{"vmstat", n + 1, fmt.Sprintf("want \"name value\", found %q", line)}
		}
		var dst *uint64
		switch name {
		case "pswpin":
			dst = &v.PswpIn
		case "pswpout":
			dst = &v.PswpOut
		default:
			continue
		}
		x, err := strconv.ParseUint(strings.TrimSpace(val), 10, 64)
		if err != nil {
			return v, &ParseError{"vmstat", n + 1, fmt.Sprintf("%s: bad number %q", name, val)}
		}
		*dst = x
	}
	return v, nil
}

// Meminfo holds the /proc/meminfo fields LIM uses, in kB.
type Meminfo struct {
	MemTotal, MemFree, Buffers, Cached, SwapTotal, SwapFree uint64
}

// ParseMeminfo reads /proc/meminfo ("Name:   123 kB" lines).
func ParseMeminfo(b []byte) (Meminfo, error) {
	var m Meminfo
	seen := 0
	for n, line := range lines(b) {
		name, rest, ok := strings.Cut(line, ":")
		if !ok {
			if strings.TrimSpace(line) == "" {
				continue
			}
			return m, &ParseError{"meminfo", n + 1, fmt.Sprintf("want \"Name: value\", found %q", line)}
		}
		var dst *uint64
		switch name {
		case "MemTotal":
			dst = &m.MemTotal
		case "MemFree":
			dst = &m.MemFree
		case "Buffers":
			dst = &m.Buffers
		case "Cached":
			dst = &m.Cached
		case "SwapTotal":
			dst = &m.SwapTotal
		case "SwapFree":
			dst = &m.SwapFree
		default:
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 || len(f) > 2 || len(f) == 2 && f[1] != "kB" {
			return m, &ParseError{"meminfo", n + 1, fmt.Sprintf("%s: want \"N kB\", found %q", name, strings.TrimSpace(rest))}
		}
		x, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			return m, &ParseError{"meminfo", n + 1, fmt.Sprintf("%s: bad number %q", name, f[0])}
		}
		*dst = x
		seen++
	}
	if m.MemTotal == 0 {
		return m, &ParseError{"meminfo", 1, "no MemTotal"}
	}
	return m, nil
}

// DiskStats sums the sectors read and written on whole disks.
type DiskStats struct {
	Disks                       int
	SectorsRead, SectorsWritten uint64
}

// ParseDiskstats reads /proc/diskstats. Partitions, loop, ram, zram and
// device-mapper devices are skipped: LSF's ndisks counts local disks, and
// counting partitions would count I/O twice.
func ParseDiskstats(b []byte) (DiskStats, error) {
	var d DiskStats
	var names []string
	type row struct {
		name       string
		read, writ uint64
	}
	var rows []row
	for n, line := range lines(b) {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) < 10 {
			return d, &ParseError{"diskstats", n + 1, fmt.Sprintf("want at least 10 fields, found %d", len(f))}
		}
		r, err1 := strconv.ParseUint(f[5], 10, 64)
		w, err2 := strconv.ParseUint(f[9], 10, 64)
		if err1 != nil || err2 != nil {
			return d, &ParseError{"diskstats", n + 1, fmt.Sprintf("%s: bad sector counts %q %q", f[2], f[5], f[9])}
		}
		names = append(names, f[2])
		rows = append(rows, row{f[2], r, w})
	}
	for _, r := range rows {
		if !wholeDisk(r.name, names) {
			continue
		}
		d.Disks++
		d.SectorsRead += r.read
		d.SectorsWritten += r.writ
	}
	return d, nil
}

func wholeDisk(name string, all []string) bool {
	for _, p := range []string{"loop", "ram", "zram", "dm-", "md", "sr", "fd", "nbd"} {
		if strings.HasPrefix(name, p) {
			return false
		}
	}
	// A partition is another device's name followed by digits (sda1,
	// vda2) or by "p" and digits (nvme0n1p1, mmcblk0p1).
	for _, other := range all {
		if other == name || !strings.HasPrefix(name, other) {
			continue
		}
		rest := strings.TrimPrefix(name[len(other):], "p")
		if rest != "" && strings.Trim(rest, "0123456789") == "" {
			return false
		}
	}
	return true
}

// CPUInfo is what LIM reads of /proc/cpuinfo.
type CPUInfo struct {
	NCPUs    int // logical processors
	NProcs   int // physical processors (sockets)
	NCores   int // cores per processor
	NThreads int // threads per core
	Model    string
}

// ParseCPUInfo reads /proc/cpuinfo. Missing topology fields (some
// virtual machines and architectures) give one socket of NCPUs cores.
func ParseCPUInfo(b []byte) (CPUInfo, error) {
	var c CPUInfo
	sockets := map[string]bool{}
	cores, siblings := 0, 0
	for n, line := range lines(b) {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		atoi := func() (int, error) {
			x, err := strconv.Atoi(v)
			if err != nil || x < 0 {
				return 0, &ParseError{"cpuinfo", n + 1, fmt.Sprintf("%s: bad number %q", k, v)}
			}
			return x, nil
		}
		var err error
		switch k {
		case "processor":
			c.NCPUs++
		case "physical id":
			sockets[v] = true
		case "cpu cores":
			cores, err = atoi()
		case "siblings":
			siblings, err = atoi()
		case "model name":
			if c.Model == "" {
				c.Model = v
			}
		}
		if err != nil {
			return c, err
		}
	}
	if c.NCPUs == 0 {
		return c, &ParseError{"cpuinfo", 1, "no processor entry"}
	}
	c.NProcs = len(sockets)
	if c.NProcs == 0 {
		c.NProcs = 1
	}
	c.NCores = cores
	if c.NCores == 0 {
		c.NCores = c.NCPUs / c.NProcs
	}
	c.NThreads = 1
	if siblings > 0 && c.NCores > 0 && siblings >= c.NCores {
		c.NThreads = siblings / c.NCores
	}
	return c, nil
}

// ParseUptime reads /proc/uptime: seconds since boot.
func ParseUptime(b []byte) (float64, error) {
	f := strings.Fields(string(b))
	if len(f) < 1 {
		return 0, &ParseError{"uptime", 1, "empty"}
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil || v < 0 {
		return 0, &ParseError{"uptime", 1, fmt.Sprintf("bad uptime %q", f[0])}
	}
	return v, nil
}

func lines(b []byte) []string {
	b = bytes.TrimRight(b, "\n")
	if len(b) == 0 {
		return nil
	}
	return strings.Split(string(b), "\n")
}
