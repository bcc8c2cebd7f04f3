package logging

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
)

func TestParseMask(t *testing.T) {
	for _, c := range []struct {
		mask string
		want slog.Level
		bad  bool
	}{
		{"", slog.LevelWarn, false},
		{"LOG_EMERG", LevelEmerg, false},
		{"LOG_ALERT", LevelAlert, false},
		{"LOG_CRIT", LevelCrit, false},
		{"LOG_ERR", slog.LevelError, false},
		{"LOG_WARNING", slog.LevelWarn, false},
		{"LOG_NOTICE", slog.LevelInfo, false},
		{"LOG_INFO", slog.LevelInfo, false},
		{"LOG_DEBUG", slog.LevelDebug, false},
		{"LOG_DEBUG1", LevelDebug1, false},
		{"LOG_DEBUG2", LevelDebug2, false},
		{"LOG_DEBUG3", LevelDebug3, false},
		{" log_debug ", slog.LevelDebug, false},
		{"LOG_DEBUG4", slog.LevelWarn, true},
		{"LOG_WARN", slog.LevelWarn, true},
		{"DEBUG", slog.LevelWarn, true},
		{"7", slog.LevelWarn, true},
	} {
		got, err := ParseMask(c.mask)
		if got != c.want || (err != nil) != c.bad {
			t.Errorf("ParseMask(%q) = %v, %v; want %v, error %v", c.mask, got, err, c.want, c.bad)
		}
		if c.bad && !strings.Contains(err.Error(), fmt.Sprintf("%q", c.mask)) {
			t.Errorf("ParseMask(%q): error %q does not name the value", c.mask, err)
		}
	}
	// Each level is strictly between its neighbours, most severe first.
	for i := 1; i < len(masks); i++ {
		if masks[i].level > masks[i-1].level {
			t.Errorf("%s (%v) is more severe than %s (%v)", masks[i].name, masks[i].level, masks[i-1].name, masks[i-1].level)
		}
	}
}

type params map[string]string

func (p params) Get(name string) string { return p[name] }

func TestMaskParam(t *testing.T) {
	for _, c := range []struct {
		p                 params
		daemon            string
		wantName, wantVal string
	}{
		{params{}, "mbatchd", "LSF_LOG_MASK", "LOG_WARNING"},
		{params{"LSF_LOG_MASK": "LOG_INFO"}, "mbatchd", "LSF_LOG_MASK", "LOG_INFO"},
		{params{"LSF_LOG_MASK": "LOG_INFO", "LSB_LOG_MASK": "LOG_DEBUG"}, "mbatchd", "LSB_LOG_MASK", "LOG_DEBUG"},
		{params{"LSF_LOG_MASK": "LOG_INFO", "LSB_LOG_MASK": "LOG_DEBUG"}, "sbatchd", "LSB_LOG_MASK", "LOG_DEBUG"},
		{params{"LSF_LOG_MASK": "LOG_INFO", "LSB_LOG_MASK": "LOG_DEBUG"}, "lim", "LSF_LOG_MASK", "LOG_INFO"},
		{params{"LSF_LOG_MASK": "LOG_INFO", "LSF_LOG_MASK_LIM": "LOG_ERR"}, "lim", "LSF_LOG_MASK_LIM", "LOG_ERR"},
		{params{"LSF_LOG_MASK": "LOG_INFO", "LSF_LOG_MASK_LIM": "LOG_ERR"}, "melim", "LSF_LOG_MASK_LIM", "LOG_ERR"},
		{params{"LSF_LOG_MASK_LIM": "LOG_ERR"}, "sbatchd", "LSF_LOG_MASK", "LOG_WARNING"},
		{params{"LSB_LOG_MASK": "LOG_DEBUG", "LSB_LOG_MASK_MBD": "LOG_ERR"}, "mbatchd", "LSB_LOG_MASK_MBD", "LOG_ERR"},
		{params{"LSB_LOG_MASK": "LOG_DEBUG", "LSB_LOG_MASK_MBD": "LOG_ERR"}, "sbatchd", "LSB_LOG_MASK", "LOG_DEBUG"},
		{params{"LSF_LOG_MASK": "LOG_INFO", "LSB_LOG_MASK_SBD": " LOG_DEBUG2 "}, "sbatchd", "LSB_LOG_MASK_SBD", "LOG_DEBUG2"},
		{params{"LSB_LOG_MASK_SBD": "LOG_DEBUG2"}, "lim", "LSF_LOG_MASK", "LOG_WARNING"},
		{params{"LSF_LOG_MASK": "LOG_INFO", "LSF_LOG_MASK_RES": "LOG_DEBUG"}, "res", "LSF_LOG_MASK_RES", "LOG_DEBUG"},
		{params{"LSF_LOG_MASK": "LOG_INFO", "LSF_LOG_MASK_LIM": "LOG_DEBUG", "LSB_LOG_MASK": "LOG_ERR"}, "res", "LSF_LOG_MASK", "LOG_INFO"},
		{params{"LSF_LOG_MASK_RES": "LOG_DEBUG"}, "lim", "LSF_LOG_MASK", "LOG_WARNING"},
	} {
		n, v := MaskParam(c.p, c.daemon)
		if n != c.wantName || v != c.wantVal {
			t.Errorf("MaskParam(%v, %s) = %s=%s; want %s=%s", c.p, c.daemon, n, v, c.wantName, c.wantVal)
		}
	}
}

var stamp = time.Date(2026, 11, 28, 16, 50, 36, 123456789, time.Local)

func TestHandlerLine(t *testing.T) {
	var buf bytes.Buffer
	l := slog.New(NewHandler(&buf, &HandlerOptions{Level: LevelDebug3, Name: "mbatchd[42]", Now: func() time.Time { return stamp }}))
	l.Warn("dispatch rejected", "job", 12, "err", errors.New("host closed"))
	l.With("host", "host1").WithGroup("g").Info("two\nlines", "empty", "", "eq", "a=b", "d", 1500*time.Millisecond, slog.Group("s", "x", true))
	l.Log(context.Background(), LevelDebug2, "deep", "q", `say "hi"`, "u", "héllo")
	l.Log(context.Background(), LevelCrit, "crit")
	want := `2026-11-28 16:50:36.123 WARN mbatchd[42]: dispatch rejected job=12 err="host closed"
2026-11-28 16:50:36.123 INFO mbatchd[42]: two
lines host=host1 g.empty="" g.eq="a=b" g.d=1.5s g.s.x=true
2026-11-28 16:50:36.123 DEBUG2 mbatchd[42]: deep q="say \"hi\"" u=héllo
2026-11-28 16:50:36.123 CRIT mbatchd[42]: crit
`
	if got := buf.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestHandlerLevel(t *testing.T) {
	for _, c := range []struct {
		mask    string
		written string
	}{
		{"LOG_ERR", "E"},
		{"LOG_WARNING", "EW"},
		{"LOG_NOTICE", "EWI"},
		{"LOG_INFO", "EWI"},
		{"LOG_DEBUG", "EWID"},
		{"LOG_DEBUG1", "EWID1"},
		{"LOG_DEBUG3", "EWID123"},
		{"LOG_BOGUS", "EW"},
	} {
		lv, _ := ParseMask(c.mask)
		var buf bytes.Buffer
		l := slog.New(NewHandler(&buf, &HandlerOptions{Level: lv}))
		for _, e := range []struct {
			l slog.Level
			m string
		}{{slog.LevelError, "E"}, {slog.LevelWarn, "W"}, {slog.LevelInfo, "I"}, {slog.LevelDebug, "D"}, {LevelDebug1, "1"}, {LevelDebug2, "2"}, {LevelDebug3, "3"}} {
			l.Log(context.Background(), e.l, e.m)
		}
		var got string
		for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
			if f := strings.Fields(line); len(f) > 0 {
				got += f[len(f)-1]
			}
		}
		if got != c.written {
			t.Errorf("%s: wrote %q, want %q", c.mask, got, c.written)
		}
	}
}

func TestNewBadMask(t *testing.T) {
	dir := t.TempDir()
	l := New(Config{Daemon: "sbatchd", Host: "host1", Dir: dir, MaskParam: "LSB_LOG_MASK", Mask: "LOG_VERBOSE"})
	l.Info("not written")
	l.Warn("written")
	l.Close()
	b, err := os.ReadFile(filepath.Join(dir, "sbatchd.log.host1"))
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(?m)^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} WARN sbatchd\[\d+\]: LSB_LOG_MASK=LOG_VERBOSE is not a log mask: LOG_WARNING used\n.* WARN sbatchd\[\d+\]: written\n\z`)
	if !re.Match(b) {
		t.Errorf("log:\n%s", b)
	}
}

func TestNewFallsBackOnStderr(t *testing.T) {
	dir := t.TempDir()
	// A file where the directory should be: not writable as a directory.
	notDir := filepath.Join(dir, "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"", notDir} {
		var stderr bytes.Buffer
		l := New(Config{Daemon: "lim", Host: "h", Dir: d, Mask: "LOG_INFO", Stderr: &stderr})
		l.Info("hello", "k", "v")
		if l.Path() != "" {
			t.Errorf("dir %q: path %q", d, l.Path())
		}
		l.Close()
		if !strings.Contains(stderr.String(), "INFO lim[") || !strings.HasSuffix(stderr.String(), ": hello k=v\n") {
			t.Errorf("dir %q: stderr %q", d, stderr.String())
		}
		if d != "" && !strings.Contains(stderr.String(), "LSF_LOGDIR unusable") {
			t.Errorf("dir %q: fallback not said: %q", d, stderr.String())
		}
	}
}

// TestReopen: lines written, file renamed away, reopen, lines written:
// each file has its own lines, whole, none lost, even with writers busy
// during the reopen.
func TestReopen(t *testing.T) {
	dir := t.TempDir()
	l := New(Config{Daemon: "mbatchd", Host: "h1", Dir: dir, Mask: "LOG_INFO"})
	defer l.Close()
	path := filepath.Join(dir, "mbatchd.log.h1")
	if l.Path() != path {
		t.Fatalf("path %q", l.Path())
	}
	l.Info("before")
	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	// Written after the rename, before the reopen: still the old file.
	l.Info("renamed")
	const writers, lines = 4, 500
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range lines {
				l.Info("busy", "w", w, "i", i, "pad", strings.Repeat("x", 200))
			}
		}()
	}
	if err := l.Reopen(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	l.Info("after")
	old, _ := os.ReadFile(path + ".1")
	cur, _ := os.ReadFile(path)
	if !strings.Contains(string(old), ": before\n") || !strings.Contains(string(old), ": renamed\n") || strings.Contains(string(old), ": after\n") {
		t.Errorf("old file:\n%s", old)
	}
	if !strings.HasSuffix(string(cur), ": after\n") || strings.Contains(string(cur), "before") {
		t.Errorf("new file ends %q", cur[max(0, len(cur)-100):])
	}
	seen := map[string]bool{}
	line := regexp.MustCompile(`^\S+ \S+ INFO mbatchd\[\d+\]: busy w=(\d) i=(\d+) pad=x{200}$`)
	for _, f := range [][]byte{old, cur} {
		for _, s := range strings.Split(strings.TrimSuffix(string(f), "\n"), "\n") {
			if !strings.Contains(s, "busy") {
				continue
			}
			m := line.FindStringSubmatch(s)
			if m == nil {
				t.Fatalf("damaged line %q", s)
			}
			seen[m[1]+"/"+m[2]] = true
		}
	}
	if len(seen) != writers*lines {
		t.Errorf("%d busy lines found, want %d", len(seen), writers*lines)
	}
}

// TestReopenOnSignal: SIGHUP to this process reopens a Daemon log.
func TestReopenOnSignal(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	log, closeLog, err := Daemon(ctx, params{"LSF_LOGDIR": dir, "LSF_LOG_MASK": "LOG_INFO"}, "sbatchd", "h2", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer closeLog()
	path := filepath.Join(dir, "sbatchd.log.h2")
	log.Info("one")
	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	// The reopen is asynchronous: its own line says it happened.
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(path)
		if strings.Contains(string(b), "log reopened signal=hangup") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no reopen after SIGHUP; %s: %q", path, b)
		}
		time.Sleep(10 * time.Millisecond)
	}
	log.Info("two")
	old, _ := os.ReadFile(path + ".1")
	cur, _ := os.ReadFile(path)
	if !strings.Contains(string(old), ": one\n") || strings.Contains(string(old), "two") {
		t.Errorf("old file %q", old)
	}
	if !strings.HasSuffix(string(cur), ": two\n") {
		t.Errorf("new file %q", cur)
	}
}

func TestHCLog(t *testing.T) {
	var buf bytes.Buffer
	lv := new(slog.LevelVar)
	h := NewHandler(&buf, &HandlerOptions{Level: lv, Name: "mbatchd[1]", Now: func() time.Time { return stamp }})
	hl := HCLog(h, "raft")
	emit := func() {
		hl.Trace("t")
		hl.Debug("d")
		hl.Info("i", "term", 3)
		hl.Warn("w")
		hl.Error("e", "err", errors.New("boom"))
	}
	levels := func() string {
		var s string
		for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
			if f := strings.Fields(line); len(f) > 2 {
				s += f[2] + " "
			}
		}
		buf.Reset()
		return strings.TrimSpace(s)
	}
	for _, c := range []struct {
		mask  string
		want  string
		level hclog.Level
	}{
		{"LOG_WARNING", "WARN ERROR", hclog.Warn},
		{"LOG_ERR", "ERROR", hclog.Error},
		{"LOG_INFO", "INFO WARN ERROR", hclog.Info},
		{"LOG_DEBUG", "DEBUG INFO WARN ERROR", hclog.Debug},
		{"LOG_DEBUG2", "DEBUG INFO WARN ERROR", hclog.Debug},
		{"LOG_DEBUG3", "DEBUG3 DEBUG INFO WARN ERROR", hclog.Trace},
	} {
		l, _ := ParseMask(c.mask)
		lv.Set(l)
		emit()
		if got := levels(); got != c.want {
			t.Errorf("%s: levels %q, want %q", c.mask, got, c.want)
		}
		if hl.GetLevel() != c.level {
			t.Errorf("%s: GetLevel %v, want %v", c.mask, hl.GetLevel(), c.level)
		}
		if hl.IsDebug() != (c.level <= hclog.Debug) || hl.IsWarn() != (c.level <= hclog.Warn) {
			t.Errorf("%s: IsDebug %v IsWarn %v", c.mask, hl.IsDebug(), hl.IsWarn())
		}
	}
	// Names, implied arguments, hclog's formats, SetLevel.
	lv.Set(LevelDebug3)
	sub := hl.Named("snapshot").With("id", "1-2")
	sub.Info("saved", "n", hclog.Fmt("%d%%", 50), "h", hclog.Hex(255))
	sub.SetLevel(hclog.Warn)
	sub.Info("dropped")
	hl.Info("dropped too: the level is shared")
	sub.SetLevel(hclog.NoLevel)
	hl.StandardLogger(&hclog.StandardLoggerOptions{InferLevels: true}).Print("[WARN] std line")
	want := `2026-11-28 16:50:36.123 INFO mbatchd[1]: raft.snapshot: saved id=1-2 n=50% h=0xff
2026-11-28 16:50:36.123 WARN mbatchd[1]: raft: std line
`
	if got := buf.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if hl.Named("x").Name() != "raft.x" || hl.ResetNamed("y").Name() != "y" {
		t.Errorf("names %q %q", hl.Named("x").Name(), hl.ResetNamed("y").Name())
	}
}

func FuzzParseMask(f *testing.F) {
	for _, m := range masks {
		f.Add(m.name)
	}
	f.Add("")
	f.Add("LOG_\x00")
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseMask(s)
		if err != nil && l != slog.LevelWarn {
			t.Errorf("ParseMask(%q) = %v with error", s, l)
		}
	})
}

// BenchmarkHandler compares a line's cost with slog.TextHandler's (the
// handler mbatchd and sbatchd used before):
//
//	go test -run '^$' -bench Handler -benchtime 200000x ./internal/logging
func BenchmarkHandler(b *testing.B) {
	for _, c := range []struct {
		name string
		h    slog.Handler
	}{
		{"basalt", NewHandler(io.Discard, &HandlerOptions{Name: "mbatchd[1]"})},
		{"slog.TextHandler", slog.NewTextHandler(io.Discard, nil)},
	} {
		b.Run(c.name, func(b *testing.B) {
			l := slog.New(c.h)
			err := errors.New("connection refused")
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				l.Info("launch not acknowledged", "job", i, "host", "host12", "err", err)
			}
		})
	}
}
