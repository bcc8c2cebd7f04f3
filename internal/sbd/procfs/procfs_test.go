package procfs

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
)

const sampleStat = "4242 (my (odd) cmd) S 1 4242 4242 0 -1 4194560 120 0 0 0 7 3 2 1 20 0 3 0 123456 9437184 250 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0"

func TestParseStat(t *testing.T) {
	s, err := ParseStat([]byte(sampleStat + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := Stat{PID: 4242, Comm: "my (odd) cmd", State: 'S', PPID: 1, PGID: 4242, Session: 4242,
		UTime: 7, STime: 3, CUTime: 2, CSTime: 1, NumThreads: 3, StartTime: 123456, VSize: 9437184, RSS: 250}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("ParseStat = %+v\nwant %+v", s, want)
	}
}

func TestParseStatErrors(t *testing.T) {
	tests := []struct{ in, field string }{
		{"", "comm"},
		{"12 no parens S 1", "comm"},
		{"x (a) S 1 2 3", "pid"},
		{"1 (a) S 1 2 3", "fields"},
		{"1 (a) SS 1 1 1 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 5 100 2", "state"},
		{"1 (a) S x 1 1 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 5 100 2", "ppid"},
		{"1 (a) S 1 1 1 0 -1 0 0 0 0 0 u 1 0 0 20 0 1 0 5 100 2", "utime"},
		{"1 (a) S 1 1 1 0 -1 0 0 0 0 0 1 1 c 0 20 0 1 0 5 100 2", "cutime"},
		{"1 (a) S 1 1 1 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 5 100 r", "rss"},
	}
	for _, tt := range tests {
		_, err := ParseStat([]byte(tt.in))
		var se *StatError
		if !errors.As(err, &se) || se.Field != tt.field {
			t.Errorf("ParseStat(%q) = %v, want error in field %s", tt.in, err, tt.field)
		}
	}
}

func FuzzParseStat(f *testing.F) {
	f.Add(sampleStat)
	f.Add("1 (a) S 1 1 1 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 5 100 2")
	f.Add("1 ()) S")
	f.Fuzz(func(t *testing.T, s string) {
		st, err := ParseStat([]byte(s))
		if err == nil && st.State == 0 {
			t.Fatalf("parsed %q without a state", s)
		}
	})
}

// fakeProc writes a proc tree: pid -> stat line.
func fakeProc(t *testing.T, procs map[int]string) FS {
	dir := t.TempDir()
	for pid, line := range procs {
		d := filepath.Join(dir, strconv.Itoa(pid))
		os.Mkdir(d, 0o755)
		os.WriteFile(filepath.Join(d, "stat"), []byte(line), 0o644)
	}
	os.Mkdir(filepath.Join(dir, "self"), 0o755)
	return FS{Root: dir}
}

func statLine(pid, ppid, pgid int, state string, ut, st, rss int) string {
	return strconv.Itoa(pid) + " (p) " + state + " " + strconv.Itoa(ppid) + " " + strconv.Itoa(pgid) +
		" 1 0 -1 0 0 0 0 0 " + strconv.Itoa(ut) + " " + strconv.Itoa(st) + " 0 0 20 0 2 0 " + strconv.Itoa(1000+pid) +
		" 4096 " + strconv.Itoa(rss)
}

func TestSnapshotDescendantsSum(t *testing.T) {
	p := fakeProc(t, map[int]string{
		1:  statLine(1, 0, 1, "S", 0, 0, 0),
		10: statLine(10, 1, 10, "S", 1, 1, 10), // shepherd
		11: statLine(11, 10, 11, "S", 5, 2, 100),
		12: statLine(12, 11, 11, "R", 3, 0, 50),
		13: statLine(13, 10, 13, "S", 1, 0, 20), // orphan reparented to the shepherd, own session
		14: statLine(14, 13, 13, "Z", 9, 9, 0),
		20: statLine(20, 1, 20, "S", 1, 1, 1), // unrelated
	})
	pids, err := p.PIDs()
	if err != nil || !reflect.DeepEqual(pids, []int{1, 10, 11, 12, 13, 14, 20}) {
		t.Fatalf("PIDs = %v, %v", pids, err)
	}
	tab, err := p.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if got := tab.Descendants(10); !reflect.DeepEqual(got, []int{11, 12, 13, 14}) {
		t.Errorf("Descendants(10) = %v", got)
	}
	if got := tab.Descendants(12); len(got) != 0 {
		t.Errorf("Descendants(12) = %v", got)
	}
	u := tab.Sum([]int{11, 12, 13, 14, 99})
	page := int64(os.Getpagesize())
	want := Usage{UTicks: 9, STicks: 2, RSS: 170 * page, VSize: 3 * 4096, Threads: 6, PIDs: []int{11, 12, 13}, PGIDs: []int{11, 13}}
	if !reflect.DeepEqual(u, want) {
		t.Errorf("Sum = %+v\nwant %+v", u, want)
	}
	if !p.Alive(11, 1011) || p.Alive(11, 5) || !p.Alive(11, 0) || p.Alive(14, 0) || p.Alive(99, 0) {
		t.Error("Alive")
	}
}

func TestLiveSelf(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	var p FS
	s, err := p.Stat(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if s.PPID != os.Getpid() || s.Comm != "sleep" || s.StartTime == 0 {
		t.Errorf("Stat(child) = %+v", s)
	}
	if !p.Alive(cmd.Process.Pid, s.StartTime) {
		t.Error("child not alive")
	}
	tab, err := p.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, d := range tab.Descendants(os.Getpid()) {
		found = found || d == cmd.Process.Pid
	}
	if !found {
		t.Error("child not among descendants")
	}
}

func BenchmarkSnapshot(b *testing.B) {
	var p FS
	for i := 0; i < b.N; i++ {
		if _, err := p.Snapshot(); err != nil {
			b.Fatal(err)
		}
	}
}
