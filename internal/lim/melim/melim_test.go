package melim

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/internal/clock"
	"github.com/basalt-lsf/basalt/internal/logging"
	"github.com/basalt-lsf/basalt/internal/testutil"
)

func TestParseUpdate(t *testing.T) {
	tests := []struct {
		in   string
		want []Value
		err  string
	}{
		{"3 tmp2 47.5 nio 344.0 licenses 5", []Value{{"tmp2", 47.5}, {"nio", 344}, {"licenses", 5}}, ""},
		{"1 tmp 20", []Value{{"tmp", 20}}, ""},
		{"  1\tusr_tmp   -3.5e2 \r", []Value{{"usr_tmp", -350}}, ""},
		{"0", []Value{}, ""},
		{"", nil, ""},
		{"x tmp 1", nil, `column 1: number of indices "x" is not a non-negative integer`},
		{"-1", nil, `column 1: number of indices "-1" is not a non-negative integer`},
		{"2 tmp 1", nil, "column 8: 2 indices announced, 2 name/value words found"},
		{"1 tmp 1 nio 2", nil, "column 9: 1 indices announced, but more words follow"},
		{"1 tmp", nil, "column 6: 1 indices announced, 1 name/value words found"},
		{"1 9lives 1", nil, `column 3: index name "9lives" starts with a digit or sign`},
		{"1 a-b 1", nil, `column 3: index name "a-b" contains '-'`},
		{"2 a 1 b x", nil, `column 9: value "x" of b is not a number within ±INFINIT_LOAD`},
		{"1 a 1e30", nil, `column 5: value "1e30" of a is not a number within ±INFINIT_LOAD`},
		{"1 a NaN", nil, `column 5: value "NaN" of a is not a number within ±INFINIT_LOAD`},
	}
	for _, tt := range tests {
		got, err := ParseUpdate(tt.in)
		if e := errString(err); e != tt.err {
			t.Errorf("ParseUpdate(%q) error %q, want %q", tt.in, e, tt.err)
			continue
		}
		if err == nil && !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseUpdate(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func FuzzParseUpdate(f *testing.F) {
	for _, s := range []string{"3 tmp2 47.5 nio 344.0 licenses 5", "1 tmp 20", "x", "2 a 1 b", "1 a 1e400"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		vs, err := ParseUpdate(s)
		if err != nil {
			if _, ok := err.(*SyntaxError); !ok {
				t.Fatalf("error %T is not a *SyntaxError", err)
			}
			return
		}
		// A good string re-formatted parses to the same values.
		var b strings.Builder
		fmt.Fprintf(&b, "%d", len(vs))
		for _, v := range vs {
			fmt.Fprintf(&b, " %s %v", v.Name, v.Value)
		}
		again, err := ParseUpdate(b.String())
		if err != nil || len(again) != len(vs) {
			t.Fatalf("reparse of %q: %v, %v", b.String(), again, err)
		}
	})
}

// harness runs a Manager over scripts in a temporary LSF_SERVERDIR.
type harness struct {
	t      *testing.T
	dir    string
	clk    *clock.Fake
	events chan Event
	logBuf *syncBuf
	m      *Manager
	kept   []Event // events received while waiting for another elim's
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newHarness(t *testing.T, scripts map[string]string) *harness {
	h := &harness{t: t, dir: t.TempDir(), clk: clock.NewFake(time.Unix(1700000000, 0)),
		events: make(chan Event, 256), logBuf: &syncBuf{}}
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(h.dir, name), []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

func (h *harness) start(cfg Config) {
	cfg.ServerDir = h.dir
	cfg.Clock = h.clk
	cfg.Log = slog.New(logging.NewHandler(h.logBuf, &logging.HandlerOptions{Level: slog.LevelDebug}))
	cfg.OnEvent = func(e Event) { h.events <- e }
	if cfg.Env == nil {
		cfg.Env = []string{"PATH=" + os.Getenv("PATH")}
	}
	m, err := Start(cfg)
	if err != nil {
		h.t.Fatal(err)
	}
	h.m = m
	h.t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		m.Stop(ctx)
	})
}

// wait returns the next event of elim (any kind in kinds), failing after a
// generous real-time bound (the elims are real processes).
// restartScheduled waits until the manager has scheduled restart number n
// of elim (its timer exists), so that advancing the clock fires it: the
// Exited event comes before the timer is made.
func (h *harness) restartScheduled(elim string, n int) {
	h.t.Helper()
	want := "elim " + elim + ": restarting in"
	if !testutil.Poll(20*time.Second, func() bool { return strings.Count(h.logBuf.String(), want) >= n }) {
		h.t.Fatalf("restart %d of %s never scheduled; log:\n%s", n, elim, h.logBuf.String())
	}
}

func (h *harness) wait(elim string, kinds ...EventKind) Event {
	h.t.Helper()
	match := func(e Event) bool {
		for _, k := range kinds {
			if e.Elim == elim && e.Kind == k {
				return true
			}
		}
		return false
	}
	for i, e := range h.kept {
		if e.Elim == elim {
			h.kept = append(h.kept[:i], h.kept[i+1:]...)
			if match(e) {
				return e
			}
			return h.wait(elim, kinds...)
		}
	}
	deadline := time.After(20 * time.Second)
	for {
		select {
		case e := <-h.events:
			if e.Elim != elim {
				h.kept = append(h.kept, e)
				continue
			}
			if match(e) {
				return e
			}
		case <-deadline:
			h.t.Fatalf("no %v event from %s; log:\n%s", kinds, elim, h.logBuf.String())
		}
	}
}

func TestGoodElimAndEnvironment(t *testing.T) {
	h := newHarness(t, map[string]string{
		"elim.good": `echo "3 nio 344.0 licenses 5 args $#"
echo "1 env_ok $( [ "$LSF_RESOURCES" = "nio licenses" ] && [ "$LSF_MASTER" = Y ] && [ "$ELIM_ABORT_VALUE" = 97 ] && echo 1 || echo 0)"
exec sleep 1000
`,
		"elim_backup": "echo '1 nio 1'\n", // not an elim name
	})
	h.start(Config{Resources: []string{"nio", "licenses"}, Master: true, Args: []string{"-a", "b"}, BlockTime: -1, Restarts: -1})
	h.wait("elim.good", Started)
	h.wait("elim.good", Updated)
	h.wait("elim.good", Updated)
	got := h.m.Values()
	want := map[string]float64{"nio": 344, "licenses": 5, "args": 2, "env_ok": 1}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Values = %v, want %v", got, want)
	}
}

func TestMalformedLinesIgnored(t *testing.T) {
	h := newHarness(t, map[string]string{
		"elim.bad": `echo "2 a 1"
echo "1 a x"
echo "1 good 7"
exec sleep 1000
`,
	})
	h.start(Config{BlockTime: -1, Restarts: -1})
	e := h.wait("elim.bad", BadUpdate)
	if !strings.Contains(e.Detail, "2 indices announced") {
		t.Errorf("first bad update detail = %q", e.Detail)
	}
	h.wait("elim.bad", BadUpdate)
	h.wait("elim.bad", Updated)
	if got := h.m.Values(); !reflect.DeepEqual(got, map[string]float64{"good": 7}) {
		t.Errorf("Values = %v", got)
	}
	if !strings.Contains(h.logBuf.String(), `elim elim.bad: bad load update string "1 a x": column 5`) {
		t.Errorf("log lacks the bad line:\n%s", h.logBuf.String())
	}
}

func TestCrashingElimRestartedEvery90s(t *testing.T) {
	h := newHarness(t, map[string]string{
		"elim.crash":  "echo '1 crash 5'\nexit 3\n",
		"elim.steady": "while :; do echo '1 steady 1'; sleep 1000; done\n",
	})
	h.start(Config{BlockTime: -1, Restarts: -1})
	h.wait("elim.steady", Updated)
	h.wait("elim.crash", Started)
	if e := h.wait("elim.crash", Exited); e.Detail != "exit status 3" {
		t.Errorf("exit detail %q", e.Detail)
	}
	// Its value went with it; the other elim is untouched.
	if got := h.m.Values(); !reflect.DeepEqual(got, map[string]float64{"steady": 1}) {
		t.Errorf("Values after crash = %v", got)
	}
	h.clk.Advance(89 * time.Second)
	h.m.Values() // let the manager run
	select {
	case e := <-h.events:
		if e.Elim == "elim.crash" && e.Kind == Started {
			t.Fatal("restarted before 90 s")
		}
	default:
	}
	h.clk.Advance(time.Second)
	h.wait("elim.crash", Started)
	h.wait("elim.crash", Exited)
}

func TestRestartCap(t *testing.T) {
	h := newHarness(t, map[string]string{"elim.crash": "exit 1\n"})
	h.start(Config{BlockTime: -1, Restarts: 1})
	h.wait("elim.crash", Exited)
	h.restartScheduled("elim.crash", 1)
	h.clk.Advance(RestartInterval)
	h.wait("elim.crash", Started)
	h.wait("elim.crash", Exited)
	if e := h.wait("elim.crash", GaveUp); e.Detail != "1" {
		t.Errorf("gave up after %s restarts", e.Detail)
	}
}

func TestAbortingElimNotRestarted(t *testing.T) {
	h := newHarness(t, map[string]string{
		"elim.abort": `case " $LSF_RESOURCES " in *" myrsc "*) ;; *) exit $ELIM_ABORT_VALUE;; esac
echo "1 myrsc 1"; exec sleep 1000
`,
	})
	h.start(Config{Resources: []string{"other"}, BlockTime: -1, Restarts: -1})
	if e := h.wait("elim.abort", Aborted, Exited); e.Kind != Aborted || e.Detail != "97" {
		t.Fatalf("event %+v, want aborted with 97", e)
	}
	h.clk.Advance(10 * RestartInterval)
	h.m.Values()
	select {
	case e := <-h.events:
		t.Fatalf("unexpected event after abort: %+v", e)
	default:
	}
}

func TestSlowElimBlockTime(t *testing.T) {
	h := newHarness(t, map[string]string{
		"elim.slow": "printf '1 slow 3'\nexec sleep 1000\n",
	})
	h.start(Config{BlockTime: 2 * time.Second, Restarts: -1})
	h.wait("elim.slow", Partial)
	h.clk.Advance(2 * time.Second)
	if e := h.wait("elim.slow", Blocked); e.Detail != "1 slow 3" {
		t.Errorf("blocked detail %q", e.Detail)
	}
	h.wait("elim.slow", Exited)
	if got := h.m.Values(); len(got) != 0 {
		t.Errorf("a partial line gave values: %v", got)
	}
	h.restartScheduled("elim.slow", 1)
	h.clk.Advance(RestartInterval)
	h.wait("elim.slow", Started)
}

func TestSeveralElimsLatestWins(t *testing.T) {
	h := newHarness(t, map[string]string{
		"elim.a": "echo '2 shared 1 a_only 10'\nuntil [ -e go_a ]; do sleep 0.05; done\necho '1 shared 3'\nexec sleep 1000\n",
		"elim.b": "until [ -e go_b ]; do sleep 0.05; done\necho '1 shared 2'\nexec sleep 1000\n",
	})
	h.start(Config{BlockTime: -1, Restarts: -1, Debug: true})
	h.wait("elim.a", Updated)
	if v := h.m.Values(); !reflect.DeepEqual(v, map[string]float64{"shared": 1, "a_only": 10}) {
		t.Errorf("Values after a = %v", v)
	}
	must(t, os.WriteFile(filepath.Join(h.dir, "go_b"), nil, 0o644))
	h.wait("elim.b", Updated)
	if v := h.m.Values(); !reflect.DeepEqual(v, map[string]float64{"shared": 2, "a_only": 10}) {
		t.Errorf("Values after b = %v", v)
	}
	must(t, os.WriteFile(filepath.Join(h.dir, "go_a"), nil, 0o644))
	h.wait("elim.a", Updated)
	if v := h.m.Values(); !reflect.DeepEqual(v, map[string]float64{"shared": 3, "a_only": 10}) {
		t.Errorf("Values after a again = %v", v)
	}
	if !strings.Contains(h.logBuf.String(), "elim elim.b: 1 shared 2") {
		t.Errorf("LSF_ELIM_DEBUG did not log the update:\n%s", h.logBuf.String())
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestStopTerminatesElims(t *testing.T) {
	h := newHarness(t, map[string]string{
		"elim.term": "trap 'echo bye >&2; exit 0' TERM\necho '1 x 1'\nwhile :; do sleep 1; done\n",
	})
	h.start(Config{BlockTime: -1, Restarts: -1})
	h.wait("elim.term", Updated)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.m.Stop(ctx); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if !strings.Contains(h.logBuf.String(), "elim elim.term: terminated") {
		t.Errorf("log:\n%s", h.logBuf.String())
	}
	if h.m.Values() != nil {
		t.Error("Values after Stop is not nil")
	}
}
