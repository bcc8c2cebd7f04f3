package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/basalt-lsf/basalt/internal/clock"
)

const simTrace = `; MaxNodes: 2
; MaxProcs: 4
1 0 -1 100 2 -1 -1 2 100 -1 1 1 1 -1 -1 -1 -1 -1
2 1 -1 50 4 -1 -1 4 50 -1 1 2 2 -1 -1 -1 -1 -1
3 2 -1 20 2 -1 -1 2 30 -1 1 3 3 -1 -1 -1 -1 -1
4 3 -1 500 2 -1 -1 2 600 -1 1 3 3 -1 -1 -1 -1 -1
`

func runSimCmd(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &Env{Name: "sim", Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" },
		Getwd: func() (string, error) { return dir, nil }, Clock: clock.Real()}
	rc := runSim(context.Background(), env, args)
	return out.String(), errb.String(), rc
}

func writeTrace(t *testing.T, text string) (string, string) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "t.swf"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, "t.swf"
}

func TestSimJSON(t *testing.T) {
	dir, f := writeTrace(t, simTrace)
	out, errs, rc := runSimCmd(t, dir, "--json", "--policy", "backfill", f, "--csv", "out.csv", "--swf", "out.swf")
	if rc != 0 {
		t.Fatalf("rc %d: %s", rc, errs)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, k := range []string{"jobs", "makespan_s", "utilization", "mean_wait_s", "mean_bounded_slowdown"} {
		if _, ok := m[k]; !ok {
			t.Errorf("no key %s in %s", k, out)
		}
	}
	if m["jobs"].(float64) != 4 || m["backfilled"].(float64) != 1 {
		t.Errorf("summary %s", out)
	}
	swf, _ := os.ReadFile(filepath.Join(dir, "out.swf"))
	// Job 3 backfilled at once (wait 0), job 2 waited 99 s.
	if !strings.Contains(string(swf), "\n2 1 99 50 4 ") || !strings.Contains(string(swf), "\n3 2 0 20 2 ") {
		t.Errorf("swf:\n%s", swf)
	}
	csv, _ := os.ReadFile(filepath.Join(dir, "out.csv"))
	if !strings.Contains(string(csv), "3,5,u3,normal,2,2,2,22,0,20,1.0000,true,done\n") {
		t.Errorf("csv:\n%s", csv)
	}
}

func TestSimWhatIf(t *testing.T) {
	dir, f := writeTrace(t, simTrace)
	out, errs, rc := runSimCmd(t, dir, "--policy", "fcfs", "--vs-policy", "backfill", f)
	if rc != 0 {
		t.Fatalf("rc %d: %s", rc, errs)
	}
	for _, want := range []string{"A: default/fcfs", "B: default/backfill", "backfilled", "+1", "Jobs that moved most",
		"       3        5 u3            2        148          0       -148"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}

func TestSimBadInput(t *testing.T) {
	bad := simTrace + "5 4 -1 x 2 -1 -1 2 600 -1 1 3 3 -1 -1 -1 -1 -1\n6 5 -1 10 9 -1 -1 9 600 -1 1 3 3 -1 -1 -1 -1 -1\n"
	dir, f := writeTrace(t, bad)
	out, errs, rc := runSimCmd(t, dir, "--json", f)
	if rc != 0 {
		t.Fatalf("rc %d: %s", rc, errs)
	}
	for _, want := range []string{`t.swf: line 7: field 4 (run time): "x" is not a number`,
		"t.swf: line 8: field 8 (requested processors): job 6 asks for 9 slots, the cluster has 4: not replayed"} {
		if !strings.Contains(errs, want) {
			t.Errorf("no %q in\n%s", want, errs)
		}
	}
	if !strings.Contains(out, `"jobs":4`) {
		t.Errorf("the rest not replayed: %s", out)
	}
	out, errs, rc = runSimCmd(t, dir, "--strict", f)
	if rc == 0 || out != "" || !strings.Contains(errs, "not run (--strict)") {
		t.Errorf("strict: rc %d out %q err %q", rc, out, errs)
	}
}
