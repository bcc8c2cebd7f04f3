package logging

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestApplyDebug: -l lowers the level at once, -f moves the log to
// <name>.<daemon>.log.<host> in LSF_LOGDIR, -o restores lsf.conf's level,
// classes and the daemon's own file; each change is recorded on the log.
func TestApplyDebug(t *testing.T) {
	dir := t.TempDir()
	l := New(Config{Daemon: "lim", Host: "h1", Dir: dir, Mask: "LOG_WARNING", Classes: []string{"LC_COMM"}})
	defer l.Close()
	own := filepath.Join(dir, "lim.log.h1")
	l.Debug("hidden")
	path, err := l.Apply(Debug{Level: 2, Classes: []string{"LC_TRACE", "LC_EXEC"}, File: "dbg"})
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "dbg.lim.log.h1")
	if path != want {
		t.Fatalf("path %q, want %q", path, want)
	}
	l.Log(nil, LevelDebug2, "shown at debug2")
	l.Log(nil, LevelDebug3, "hidden at debug3")
	if got := strings.Join(l.Classes(), " "); got != "LC_TRACE LC_EXEC" {
		t.Errorf("classes %q", got)
	}
	if path, err = l.Apply(Debug{Reset: true}); err != nil || path != own {
		t.Fatalf("reset: %q, %v", path, err)
	}
	l.Info("hidden again")
	l.Warn("back home")
	dbg := read(t, want)
	for _, s := range []string{"log settings changed level=LOG_DEBUG2 classes=\"LC_TRACE LC_EXEC\" timing=0 file=" + want + " by=", "DEBUG2 lim[", "shown at debug2"} {
		if !strings.Contains(dbg, s) {
			t.Errorf("debug file lacks %q:\n%s", s, dbg)
		}
	}
	if strings.Contains(dbg, "debug3") || strings.Contains(dbg, "back home") {
		t.Errorf("debug file has lines it should not:\n%s", dbg)
	}
	home := read(t, own)
	for _, s := range []string{"log settings changed level=LOG_WARNING classes=LC_COMM timing=0 file=" + own + " by=", "back home"} {
		if !strings.Contains(home, s) {
			t.Errorf("own file lacks %q:\n%s", s, home)
		}
	}
	if strings.Contains(home, "hidden") || strings.Contains(home, "shown") {
		t.Errorf("own file has lines it should not:\n%s", home)
	}
	if _, err := l.Apply(Debug{Level: 4}); err == nil {
		t.Error("debug level 4 accepted")
	}
	if _, err := l.Apply(Debug{Timing: true, Level: 6}); err == nil {
		t.Error("timing level 6 accepted")
	}
}

// TestTimed: a timing level logs calls at least as long as its floor;
// -o goes back to lsf.conf's timing level.
func TestTimed(t *testing.T) {
	var buf bytes.Buffer
	l := New(Config{Daemon: "res", Host: "h", Stderr: &buf, Timing: 0})
	l.Timed("RES.Run", time.Hour)
	if buf.Len() != 0 {
		t.Fatalf("timing line with no timing level: %q", buf.String())
	}
	if _, err := l.Apply(Debug{Timing: true, Level: 3}); err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	l.Timed("RES.Run", 5*time.Millisecond)
	l.Timed("RES.Debug", 12*time.Millisecond)
	out := buf.String()
	if strings.Contains(out, "RES.Run") || !strings.Contains(out, "INFO res[") || !strings.Contains(out, "timing method=RES.Debug ms=12.000") {
		t.Errorf("level 3 timing lines:\n%s", out)
	}
	if _, err := l.Apply(Debug{Timing: true, Reset: true}); err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	l.Timed("RES.Debug", time.Hour)
	if buf.Len() != 0 {
		t.Errorf("timing after -o: %q", buf.String())
	}
	if l.Enabled(nil, slog.LevelInfo) {
		t.Error("timing changed the message level")
	}
}

func TestDebugParams(t *testing.T) {
	p := mapParams{"LSF_DEBUG_LIM": `"LC_TRACE LC_EXEC"`, "LSF_TIME_LIM": "3", "LSB_TIME_MBD": "9"}
	if c, n := DebugParams(p, "lim"); strings.Join(c, ",") != "LC_TRACE,LC_EXEC" || n != 3 {
		t.Errorf("lim: %q %d", c, n)
	}
	if c, n := DebugParams(p, "mbatchd"); len(c) != 0 || n != 0 {
		t.Errorf("mbatchd: %q %d", c, n)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

type mapParams map[string]string

func (m mapParams) Get(name string) string { return m[name] }
