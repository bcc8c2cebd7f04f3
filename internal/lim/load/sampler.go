package load

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/basalt-lsf/basalt/internal/clock"
	"github.com/basalt-lsf/basalt/internal/lim/hosttype"
)

// Values are the built-in load indices, indexed by load index number.
// Run queue lengths are raw, ut is a fraction, memory sizes are MB.
type Values [NumIndices]float64

// Static is a host's static resources. Memory sizes are in MB.
type Static struct {
	NCPUs, NProcs, NCores, NThreads, NDisks int
	MaxMem, MaxSwp, MaxTmp                  int
	Model, Type                             string
}

// Averaging time constants (LSF: r15s over 15 s, ut, pg and io over one
// minute).
const (
	tauR15s = 15 * time.Second
	tauMin  = 60 * time.Second
	// SampleInterval is how often LIM samples the load.
	SampleInterval = 5 * time.Second
)

// Sampler measures load indices. Call Sample every SampleInterval; the
// averages use the real time elapsed between calls. A Sampler is owned by
// one goroutine.
type Sampler struct {
	// Root is the file system root ("/" when empty): tests point it at
	// recorded samples.
	Root string
	// TmpDir is the directory whose file system gives tmp and maxtmp
	// ("/tmp" under Root when empty).
	TmpDir string
	// OverrideFile, when set and present, replaces measured values (see
	// ParseOverride). It is read at every sample.
	OverrideFile string
	// Clock gives the sampling times; the wall clock when nil.
	Clock clock.Clock
	// Statfs returns total and available bytes of the file system holding
	// path; syscall.Statfs when nil.
	Statfs func(path string) (total, avail uint64, err error)

	started  bool
	last     time.Time
	prevCPU  CPUTimes
	prevPg   uint64
	prevSect uint64
	r15s     float64
	ut       float64
	pg       float64
	io       float64
	cpuinfo  *CPUInfo
	vals     Values
}

func (s *Sampler) path(p string) string {
	root := s.Root
	if root == "" {
		root = "/"
	}
	return filepath.Join(root, p)
}

func (s *Sampler) read(p string) ([]byte, error) {
	b, err := os.ReadFile(s.path(p))
	if err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	return b, nil
}

func (s *Sampler) now() time.Time {
	if s.Clock == nil {
		return time.Now()
	}
	return s.Clock.Now()
}

func (s *Sampler) statfs(path string) (uint64, uint64, error) {
	if s.Statfs != nil {
		return s.Statfs(path)
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return 0, 0, fmt.Errorf("load: statfs %s: %w", path, err)
	}
	return st.Blocks * uint64(st.Bsize), st.Bavail * uint64(st.Bsize), nil
}

// smooth moves avg towards instant with time constant tau over dt.
func smooth(avg, instant float64, dt, tau time.Duration) float64 {
	f := math.Exp(-float64(dt) / float64(tau))
	return avg*f + instant*(1-f)
}

// Sample measures the host once. A file that cannot be read or parsed
// leaves its indices at their previous values; the errors are returned
// joined, with the values measured.
func (s *Sampler) Sample() (Values, Static, error) {
	var errs []error
	now := s.now()
	dt := now.Sub(s.last)
	first := !s.started
	var st Static

	// Run queues.
	if b, err := s.read("proc/loadavg"); err != nil {
		errs = append(errs, err)
	} else if la, err := ParseLoadavg(b); err != nil {
		errs = append(errs, err)
	} else {
		s.vals[R1m], s.vals[R15m] = la.R1m, la.R15m
	}
	if b, err := s.read("proc/stat"); err != nil {
		errs = append(errs, err)
	} else if ps, err := ParseStat(b); err != nil {
		errs = append(errs, err)
	} else {
		rq := math.Max(float64(ps.ProcsRunning-1), 0)
		tot := ps.CPU.Total()
		if first {
			s.r15s = rq
			if tot > 0 {
				s.ut = 1 - float64(ps.CPU.Idle+ps.CPU.IOWait)/float64(tot)
			}
		} else {
			s.r15s = smooth(s.r15s, rq, dt, tauR15s)
			if dTot := tot - s.prevCPU.Total(); tot > s.prevCPU.Total() {
				idle := float64((ps.CPU.Idle + ps.CPU.IOWait) - (s.prevCPU.Idle + s.prevCPU.IOWait))
				inst := math.Min(math.Max(1-idle/float64(dTot), 0), 1)
				s.ut = smooth(s.ut, inst, dt, tauMin)
			}
		}
		s.prevCPU = ps.CPU
		s.vals[R15s], s.vals[Ut] = s.r15s, s.ut
	}

	// Paging and disk I/O rates.
	if b, err := s.read("proc/vmstat"); err != nil {
		errs = append(errs, err)
	} else if vm, err := ParseVMStat(b); err != nil {
		errs = append(errs, err)
	} else {
		pages := vm.PswpIn + vm.PswpOut
		if !first && dt > 0 && pages >= s.prevPg {
			s.pg = smooth(s.pg, float64(pages-s.prevPg)/dt.Seconds(), dt, tauMin)
		}
		s.prevPg = pages
		s.vals[Pg] = s.pg
	}
	if b, err := s.read("proc/diskstats"); err != nil {
		errs = append(errs, err)
	} else if ds, err := ParseDiskstats(b); err != nil {
		errs = append(errs, err)
	} else {
		sect := ds.SectorsRead + ds.SectorsWritten
		if !first && dt > 0 && sect >= s.prevSect {
			kbps := float64(sect-s.prevSect) * 512 / 1024 / dt.Seconds()
			s.io = smooth(s.io, kbps, dt, tauMin)
		}
		s.prevSect = sect
		s.vals[Io] = s.io
		st.NDisks = ds.Disks
	}

	// Memory and swap.
	if b, err := s.read("proc/meminfo"); err != nil {
		errs = append(errs, err)
	} else if mi, err := ParseMeminfo(b); err != nil {
		errs = append(errs, err)
	} else {
		s.vals[Mem] = float64(mi.MemFree+mi.Buffers+mi.Cached) / 1024
		s.vals[Swp] = float64(mi.SwapFree) / 1024
		st.MaxMem = int(mi.MemTotal / 1024)
		st.MaxSwp = int(mi.SwapTotal / 1024)
	}

	// /tmp.
	tmp := s.TmpDir
	if tmp == "" {
		tmp = s.path("tmp")
	}
	if total, avail, err := s.statfs(tmp); err != nil {
		errs = append(errs, err)
	} else {
		s.vals[Tmp] = float64(avail) / (1 << 20)
		st.MaxTmp = int(total >> 20)
	}

	// Logins and idle time.
	ls, it, err := s.logins(now)
	if err != nil {
		errs = append(errs, err)
	}
	s.vals[Ls], s.vals[It] = ls, it

	// Processors.
	if s.cpuinfo == nil {
		if b, err := s.read("proc/cpuinfo"); err != nil {
			errs = append(errs, err)
		} else if ci, err := ParseCPUInfo(b); err != nil {
			errs = append(errs, err)
		} else {
			s.cpuinfo = &ci
		}
	}
	if ci := s.cpuinfo; ci != nil {
		st.NCPUs, st.NProcs, st.NCores, st.NThreads = ci.NCPUs, ci.NProcs, ci.NCores, ci.NThreads
	} else {
		st.NCPUs, st.NProcs, st.NCores, st.NThreads = 1, 1, 1, 1
	}
	st.Type = "X86_64"
	st.Model = "x86_64"
	if arch := hosttype.Machine(); arch != "" {
		st.Type, st.Model = hosttype.Of(arch), arch
	}

	s.started = true
	s.last = now
	vals := s.vals
	if s.OverrideFile != "" {
		if err := s.applyOverride(&vals, &st); err != nil {
			errs = append(errs, err)
		}
	}
	return vals, st, errors.Join(errs...)
}

// logins returns ls (login sessions) and it (idle minutes).
func (s *Sampler) logins(now time.Time) (float64, float64, error) {
	var sessions []Session
	b, err := os.ReadFile(s.path("var/run/utmp"))
	if err == nil {
		sessions, err = ParseUtmp(b)
	} else if errors.Is(err, os.ErrNotExist) {
		err = nil // no utmp: nobody logged in (containers)
	}
	idle := time.Duration(-1)
	for _, se := range sessions {
		fi, serr := os.Stat(s.path(filepath.Join("dev", se.Line)))
		if serr != nil {
			continue
		}
		d := now.Sub(atime(fi))
		if d < 0 {
			d = 0
		}
		if idle < 0 || d < idle {
			idle = d
		}
	}
	if idle < 0 {
		// Nobody at a terminal: idle since boot.
		if b, uerr := s.read("proc/uptime"); uerr == nil {
			if up, perr := ParseUptime(b); perr == nil {
				idle = time.Duration(up * float64(time.Second))
			}
		}
		if idle < 0 {
			idle = 0
		}
	}
	return float64(len(sessions)), math.Floor(idle.Minutes()), err
}

func (s *Sampler) applyOverride(v *Values, st *Static) error {
	b, err := os.ReadFile(s.OverrideFile)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("load: override: %w", err)
	}
	o, err := ParseOverride(b)
	if err != nil {
		return fmt.Errorf("load: %s: %w", s.OverrideFile, err)
	}
	o.Apply(v, st)
	return nil
}

// Apply replaces v's and st's values by the override's.
func (o *Override) Apply(v *Values, st *Static) {
	for i, x := range o.Index {
		v[i] = x
	}
	for k, x := range o.Static {
		n := 0
		fmt.Sscan(x, &n)
		switch k {
		case "ncpus":
			st.NCPUs = n
		case "nprocs":
			st.NProcs = n
		case "ncores":
			st.NCores = n
		case "nthreads":
			st.NThreads = n
		case "ndisks":
			st.NDisks = n
		case "maxmem":
			st.MaxMem = n
		case "maxswp":
			st.MaxSwp = n
		case "maxtmp":
			st.MaxTmp = n
		case "model":
			st.Model = x
		case "type":
			st.Type = x
		}
	}
}

// Effective is lsload -E's run queue length: the raw length spread over
// ncpus processors (LSF's effective run queue).
func Effective(raw float64, ncpus int) float64 {
	return normalizeRq(raw, 1, ncpus) - 1
}

// Normalized is lsload -N's run queue length: the effective length
// divided by the host's CPU factor.
func Normalized(raw, cpuf float64, ncpus int) float64 {
	if !(cpuf > 0) {
		cpuf = 1
	}
	return Effective(raw, ncpus) / cpuf
}

// normalizeRq spreads a run queue over n processors: every full multiple
// of n is a full load on each processor, and the remainder is weighted so
// that a partly used multiprocessor looks lighter than its raw count.
func normalizeRq(raw, cpuf float64, n int) float64 {
	if raw < 0 {
		return 0
	}
	if n < 1 {
		return (raw + 1) / cpuf
	}
	nf := float64(n)
	whole := math.Floor(raw / nf)
	frac := (raw - nf*whole) / nf
	slope := 1 - 1/nf
	k := math.Min(math.Min(frac, 0.9), slope)
	slope = math.Min(slope, 0.9)
	w := slope * (1 - frac) / (1 - k)
	v := (w*whole + (1-w)*raw/nf + 1) / cpuf
	if v < 0 {
		return 0
	}
	return v
}
