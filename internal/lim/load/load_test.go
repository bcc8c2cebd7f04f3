package load

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/internal/clock"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(b)) }

func TestParseLoadavg(t *testing.T) {
	tests := []struct {
		in   string
		want Loadavg
		err  string
	}{
		{"0.52 0.58 0.59 2/345 12345\n", Loadavg{0.52, 0.58, 0.59, 2, 345}, ""},
		{"1 2 3 0/1 1", Loadavg{1, 2, 3, 0, 1}, ""},
		{"0.52 0.58", Loadavg{}, "loadavg:1: want at least 4 fields, found 2"},
		{"x 0.58 0.59 2/345 1", Loadavg{}, `loadavg:1: field 1: bad load average "x"`},
		{"0.5 -1 0.59 2/345 1", Loadavg{}, `loadavg:1: field 2: bad load average "-1"`},
		{"0.5 0.5 0.5 2345 1", Loadavg{}, `loadavg:1: field 4: want running/total, found "2345"`},
		{"0.5 0.5 0.5 a/3 1", Loadavg{}, `loadavg:1: field 4: bad running count "a"`},
		{"0.5 0.5 0.5 1/b 1", Loadavg{}, `loadavg:1: field 4: bad process count "b"`},
	}
	for _, tt := range tests {
		got, err := ParseLoadavg([]byte(tt.in))
		if errText(err) != tt.err || err == nil && got != tt.want {
			t.Errorf("ParseLoadavg(%q) = %+v, %v; want %+v, %q", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestParseStat(t *testing.T) {
	tests := []struct {
		in   string
		want Stat
		err  string
	}{
		{"cpu  10 1 5 100 2 0 3 0 0 0\ncpu0 1 1 1 1\nprocs_running 3\nbtime 1700000000\n",
			Stat{CPU: CPUTimes{10, 1, 5, 100, 2, 0, 3, 0}, ProcsRunning: 3, BootTime: 1700000000}, ""},
		{"cpu 1 2 3 4\n", Stat{CPU: CPUTimes{User: 1, Nice: 2, System: 3, Idle: 4}}, ""},
		{"intr 5\n", Stat{}, "stat:1: no cpu line"},
		{"cpu 1 2 3\n", Stat{}, "stat:1: cpu line: want at least 4 counters, found 3"},
		{"ctxt 4\ncpu 1 2 x 4\n", Stat{}, `stat:2: cpu line: counter 3: bad number "x"`},
		{"cpu 1 2 3 4\nprocs_running\n", Stat{}, "stat:2: procs_running: want one value, found 0"},
		{"cpu 1 2 3 4\nbtime -4\n", Stat{}, `stat:2: btime: bad value "-4"`},
	}
	for _, tt := range tests {
		got, err := ParseStat([]byte(tt.in))
		if errText(err) != tt.err || err == nil && got != tt.want {
			t.Errorf("ParseStat(%q) = %+v, %v; want %+v, %q", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestParseVMStatMeminfo(t *testing.T) {
	vm, err := ParseVMStat([]byte("nr_free_pages 5\npswpin 7\npswpout 9\n"))
	if err != nil || vm != (VMStat{7, 9}) {
		t.Errorf("ParseVMStat = %+v, %v", vm, err)
	}
	if _, err := ParseVMStat([]byte("pswpin 7\npswpout x\n")); errText(err) != `vmstat:2: pswpout: bad number "x"` {
		t.Errorf("ParseVMStat error = %v", err)
	}
	if _, err := ParseVMStat([]byte("pswpin7\n")); errText(err) != `vmstat:1: want "name value", found "pswpin7"` {
		t.Errorf("ParseVMStat error = %v", err)
	}
	mi, err := ParseMeminfo([]byte("MemTotal:  2048 kB\nMemFree: 1024 kB\nBuffers: 10 kB\nCached: 20 kB\nSwapTotal: 0 kB\nSwapFree: 0 kB\nHugePages_Total: 0\n"))
	if err != nil || mi != (Meminfo{2048, 1024, 10, 20, 0, 0}) {
		t.Errorf("ParseMeminfo = %+v, %v", mi, err)
	}
	for in, want := range map[string]string{
		"MemFree: 1 kB\n":               "meminfo:1: no MemTotal",
		"MemTotal: 1 kB\nMemFree: x kB": `meminfo:2: MemFree: bad number "x"`,
		"MemTotal: 1 MB\n":              `meminfo:1: MemTotal: want "N kB", found "1 MB"`,
		"MemTotal 1 kB\n":               `meminfo:1: want "Name: value", found "MemTotal 1 kB"`,
	} {
		if _, err := ParseMeminfo([]byte(in)); errText(err) != want {
			t.Errorf("ParseMeminfo(%q) error = %v, want %q", in, err, want)
		}
	}
}

func TestParseDiskstats(t *testing.T) {
	in := `   8       0 sda 100 0 1000 0 50 0 3000 0 0 0 0
   8       1 sda1 90 0 900 0 40 0 2000 0 0 0 0
 259       0 nvme0n1 10 0 40 0 5 0 60 0 0 0 0
 259       1 nvme0n1p1 10 0 40 0 5 0 60 0 0 0 0
   7       0 loop0 1 0 8 0 0 0 0 0 0 0 0
 253       0 dm-0 1 0 8 0 1 0 8 0 0 0 0
`
	d, err := ParseDiskstats([]byte(in))
	if err != nil || d != (DiskStats{Disks: 2, SectorsRead: 1040, SectorsWritten: 3060}) {
		t.Errorf("ParseDiskstats = %+v, %v", d, err)
	}
	if _, err := ParseDiskstats([]byte("8 0 sda 1 2 3\n")); errText(err) != "diskstats:1: want at least 10 fields, found 6" {
		t.Errorf("short line error = %v", err)
	}
	if _, err := ParseDiskstats([]byte("8 0 sda 1 0 x 0 1 0 2 0\n")); errText(err) != `diskstats:1: sda: bad sector counts "x" "2"` {
		t.Errorf("bad number error = %v", err)
	}
}

func TestParseCPUInfo(t *testing.T) {
	tests := []struct {
		in   string
		want CPUInfo
		err  string
	}{
		{strings.Repeat("processor\t: 0\nmodel name\t: Xeon\nphysical id\t: 0\nsiblings\t: 4\ncpu cores\t: 2\n\n", 4) +
			strings.Repeat("processor\t: 0\nphysical id\t: 1\nsiblings\t: 4\ncpu cores\t: 2\n\n", 4),
			CPUInfo{NCPUs: 8, NProcs: 2, NCores: 2, NThreads: 2, Model: "Xeon"}, ""},
		{"processor : 0\nprocessor : 1\n", CPUInfo{NCPUs: 2, NProcs: 1, NCores: 2, NThreads: 1}, ""},
		{"model name : x\n", CPUInfo{}, "cpuinfo:1: no processor entry"},
		{"processor : 0\ncpu cores : two\n", CPUInfo{}, `cpuinfo:2: cpu cores: bad number "two"`},
	}
	for _, tt := range tests {
		got, err := ParseCPUInfo([]byte(tt.in))
		if errText(err) != tt.err || err == nil && got != tt.want {
			t.Errorf("ParseCPUInfo = %+v, %v; want %+v, %q", got, err, tt.want, tt.err)
		}
	}
}

func TestParseUtmp(t *testing.T) {
	b := AppendUtmp(nil, Session{User: "alice", Line: "pts/0"})
	b = append(b, make([]byte, utmpSize)...) // EMPTY record
	b = AppendUtmp(b, Session{User: "bob", Line: "tty1"})
	got, err := ParseUtmp(b)
	if err != nil || len(got) != 2 || got[0] != (Session{"alice", "pts/0"}) || got[1] != (Session{"bob", "tty1"}) {
		t.Errorf("ParseUtmp = %+v, %v", got, err)
	}
	if _, err := ParseUtmp(b[:utmpSize+10]); errText(err) != "utmp:2: truncated record: file size 394 is not a multiple of 384" {
		t.Errorf("truncated error = %v", err)
	}
}

func TestParseOverride(t *testing.T) {
	o, err := ParseOverride([]byte("# test host\nr15s 0.5\nut 0.25   # a quarter\nncpus 4\nmodel Xeon\n"))
	if err != nil || o.Index[R15s] != 0.5 || o.Index[Ut] != 0.25 || o.Static["ncpus"] != "4" || o.Static["model"] != "Xeon" {
		t.Fatalf("ParseOverride = %+v, %v", o, err)
	}
	for in, want := range map[string]string{
		"r15s\n":         `line 1, column 1: want "name value", found 1 words`,
		"  foo 1\n":      `line 1, column 3: unknown index or resource "foo"`,
		"mem 1\nr1m x\n": `line 2, column 5: r1m: bad number "x"`,
		"ncpus -2\n":     `line 1, column 7: ncpus: bad count "-2"`,
	} {
		if _, err := ParseOverride([]byte(in)); errText(err) != want {
			t.Errorf("ParseOverride(%q) error = %v, want %q", in, err, want)
		}
	}
}

// TestSampleRecorded replays two /proc samples recorded 15 s apart on a
// 2-CPU virtual machine (testdata/rec0, rec1; pswpin/pswpout edited to
// give a paging rate) and checks every index against the values computed
// by hand from the recorded counters.
func TestSampleRecorded(t *testing.T) {
	clk := clock.NewFake(time.Unix(1700000000, 0))
	s := &Sampler{Root: "testdata/rec0", Clock: clk,
		Statfs: func(string) (uint64, uint64, error) { return 10 << 30, 3 << 30, nil }}
	v0, st, err := s.Sample()
	if err != nil {
		t.Fatal(err)
	}
	// rec0: procs_running 1 (the sampler itself); cpu 40524 0 20678 221991 374 0 1220.
	ut0 := 1 - float64(221991+374)/float64(40524+20678+221991+374+1220)
	want0 := Values{R15s: 0, R1m: 1.42, R15m: 0.68, Ut: ut0, Pg: 0, Io: 0, Ls: 0,
		It: math.Floor(1430.09 / 60), Tmp: 3 << 10, Swp: 0, Mem: float64(23805276+6028+501364) / 1024}
	for i := range want0 {
		if i == Mem {
			continue // rec0's meminfo differs; checked on rec1
		}
		if !near(v0[i], want0[i]) {
			t.Errorf("rec0 %s = %v, want %v", IndexNames[i], v0[i], want0[i])
		}
	}
	wantSt := Static{NCPUs: 2, NProcs: 1, NCores: 2, NThreads: 1, NDisks: 1, MaxMem: 24683620 / 1024, MaxSwp: 0, MaxTmp: 10 << 10}
	st.Model, st.Type = "", ""
	if st != wantSt {
		t.Errorf("static = %+v, want %+v", st, wantSt)
	}

	clk.Advance(15 * time.Second)
	s.Root = "testdata/rec1"
	v1, _, err := s.Sample()
	if err != nil {
		t.Fatal(err)
	}
	f15, f60 := math.Exp(-1), math.Exp(-0.25)
	// rec1: procs_running 4: run queue 3.
	// cpu 41435 0 21112 223466 392 0 1242: 2860 ticks, 1493 idle+iowait.
	// pswpin+pswpout 165 -> 1065: 60 pages/s.
	// vda sectors read+written 5352410 -> 5764058: 205824 KB in 15 s.
	want1 := Values{
		R15s: 3 * (1 - f15),
		R1m:  1.43, R15m: 0.69,
		Ut:  ut0*f60 + (1-1493.0/2860)*(1-f60),
		Pg:  60 * (1 - f60),
		Io:  205824.0 / 15 * (1 - f60),
		Ls:  0,
		It:  math.Floor(1444.46 / 60),
		Tmp: 3 << 10,
		Swp: 0,
		Mem: float64(23805276+6028+501364) / 1024,
	}
	for i := range want1 {
		if !near(v1[i], want1[i]) {
			t.Errorf("rec1 %s = %v, want %v", IndexNames[i], v1[i], want1[i])
		}
	}
}

func TestSampleLoginsAndOverride(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"loadavg", "stat", "vmstat", "diskstats", "meminfo", "cpuinfo", "uptime"} {
		b, err := os.ReadFile(filepath.Join("testdata/rec1/proc", f))
		if err != nil {
			t.Fatal(err)
		}
		must(t, os.MkdirAll(filepath.Join(root, "proc"), 0o755))
		must(t, os.WriteFile(filepath.Join(root, "proc", f), b, 0o644))
	}
	must(t, os.MkdirAll(filepath.Join(root, "var/run"), 0o755))
	must(t, os.MkdirAll(filepath.Join(root, "dev/pts"), 0o755))
	utmp := AppendUtmp(nil, Session{"alice", "pts/0"})
	utmp = AppendUtmp(utmp, Session{"bob", "pts/1"})
	utmp = AppendUtmp(utmp, Session{"carol", "pts/9"}) // no such tty: counted, no idle time
	must(t, os.WriteFile(filepath.Join(root, "var/run/utmp"), utmp, 0o644))
	now := time.Unix(1700000000, 0)
	for tty, idle := range map[string]time.Duration{"pts/0": 42 * time.Minute, "pts/1": 7*time.Minute + 30*time.Second} {
		p := filepath.Join(root, "dev", tty)
		must(t, os.WriteFile(p, nil, 0o600))
		must(t, os.Chtimes(p, now.Add(-idle), now.Add(-idle)))
	}
	ov := filepath.Join(root, "override")
	s := &Sampler{Root: root, Clock: clock.NewFake(now), OverrideFile: ov,
		Statfs: func(string) (uint64, uint64, error) { return 1 << 30, 1 << 29, nil }}
	v, st, err := s.Sample()
	if err != nil {
		t.Fatal(err)
	}
	if v[Ls] != 3 || v[It] != 7 {
		t.Errorf("ls, it = %v, %v; want 3, 7", v[Ls], v[It])
	}
	must(t, os.WriteFile(ov, []byte("r15s 2.5\nmem 100\nncpus 16\nmodel TestModel\n"), 0o644))
	v, st, err = s.Sample()
	if err != nil {
		t.Fatal(err)
	}
	if v[R15s] != 2.5 || v[Mem] != 100 || st.NCPUs != 16 || st.Model != "TestModel" || v[Ls] != 3 {
		t.Errorf("override not applied: %v %+v", v, st)
	}
	must(t, os.WriteFile(ov, []byte("bogus 1\n"), 0o644))
	if _, _, err := s.Sample(); err == nil || !strings.Contains(err.Error(), `line 1, column 1: unknown index or resource "bogus"`) {
		t.Errorf("bad override error = %v", err)
	}
}

func TestSampleMissingFiles(t *testing.T) {
	s := &Sampler{Root: t.TempDir(), Statfs: func(string) (uint64, uint64, error) { return 0, 0, errors.New("no fs") }}
	_, st, err := s.Sample()
	if err == nil {
		t.Fatal("Sample on an empty root succeeded")
	}
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("error %v does not wrap ErrNotExist", err)
	}
	if st.NCPUs != 1 {
		t.Errorf("ncpus without cpuinfo = %d, want 1", st.NCPUs)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestEffectiveNormalized(t *testing.T) {
	tests := []struct {
		raw   float64
		n     int
		cpuf  float64
		eff   float64
		normd float64
	}{
		{0, 1, 1, 0, 0},
		{2, 1, 1, 2, 2},         // one CPU: effective is raw
		{2, 4, 1, 0.125, 0.125}, // half a 4-way host busy: light
		{4, 4, 1, 1, 1},         // full
		{8, 4, 2, 2, 1},         // twice full, twice as fast
		{-1, 4, 1, -1, -1},      // invalid raw: clamps
	}
	for _, tt := range tests {
		if got := Effective(tt.raw, tt.n); !near(got, tt.eff) {
			t.Errorf("Effective(%v, %d) = %v, want %v", tt.raw, tt.n, got, tt.eff)
		}
		if got := Normalized(tt.raw, tt.cpuf, tt.n); !near(got, tt.normd) {
			t.Errorf("Normalized(%v, %v, %d) = %v, want %v", tt.raw, tt.cpuf, tt.n, got, tt.normd)
		}
	}
}

func FuzzParsers(f *testing.F) {
	for _, p := range []string{"loadavg", "stat", "vmstat", "diskstats", "meminfo", "cpuinfo", "uptime"} {
		b, err := os.ReadFile("testdata/rec0/proc/" + p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("r15s 1\nncpus 2\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ParseLoadavg(b)
		ParseStat(b)
		ParseVMStat(b)
		ParseMeminfo(b)
		ParseDiskstats(b)
		ParseCPUInfo(b)
		ParseUptime(b)
		ParseUtmp(b)
		ParseOverride(b)
	})
}
