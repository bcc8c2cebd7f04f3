package chkpnt

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestParseSpec(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Spec
		col  int // >0: error at this column
	}{
		{in: "/ck", want: Spec{Dir: "/ck"}},
		{in: " /ck  30 ", want: Spec{Dir: "/ck", Period: 30 * time.Minute}},
		{in: "/ck method=criu", want: Spec{Dir: "/ck", Method: "criu"}},
		{in: "/ck method=my-app_2 5", want: Spec{Dir: "/ck", Period: 5 * time.Minute, Method: "my-app_2"}},
		{in: "", col: 1},
		{in: "/ck 0", col: 5},
		{in: "/ck x", col: 5},
		{in: "/ck 5 6", col: 7},
		{in: "/ck method=", col: 5},
		{in: "/ck method=a/b", col: 5},
		{in: "/ck method=a method=b", col: 14},
	} {
		got, err := ParseSpec(c.in)
		if c.col > 0 {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Col != c.col {
				t.Errorf("ParseSpec(%q) = %v, %v; want error at column %d", c.in, got, err, c.col)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ParseSpec(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
}

func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"/ck 30 method=criu", "", "a b c", "x method=", "\t5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sp, err := ParseSpec(s)
		if err == nil && (sp.Dir == "" || sp.Period < 0) {
			t.Fatalf("ParseSpec(%q) = %+v without error", s, sp)
		}
		var pe *ParseError
		if err != nil && (!errors.As(err, &pe) || pe.Col < 1 || pe.Col > len(s)+1) {
			t.Fatalf("ParseSpec(%q): error %v without a column in the input", s, err)
		}
	})
}

func TestParseArgs(t *testing.T) {
	a, err := ParseArgs([]string{"-f", "-k", "-d", "/d/1", "42"})
	if err != nil || !a.Force || !a.Kill || a.Dir != "/d/1" || a.PGID != 42 {
		t.Fatalf("ParseArgs = %+v, %v", a, err)
	}
	if got := strings.Join(a.Argv(), " "); got != "-f -k -d /d/1 42" {
		t.Errorf("Argv = %q", got)
	}
	for _, bad := range [][]string{{"-k", "-s", "1"}, {}, {"-d"}, {"x"}, {"-q", "1"}, {"1", "2"}} {
		if _, err := ParseArgs(bad); err == nil {
			t.Errorf("ParseArgs(%q) accepted", bad)
		}
	}
}

func TestJobDir(t *testing.T) {
	if got := JobDir("/ck", 12, 0); got != "/ck/12" {
		t.Errorf("JobDir = %s", got)
	}
	if got := JobDir("/ck", 12, 3); got != "/ck/12_3" {
		t.Errorf("JobDir element = %s", got)
	}
}

func script(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func envOf(m map[string]string) Env {
	var v []string
	for k, x := range m {
		v = append(v, k+"="+x)
	}
	return Env{Getenv: func(k string) string { return m[k] }, Environ: append(v, "PATH="+os.Getenv("PATH"))}
}

func TestFind(t *testing.T) {
	sd, md := t.TempDir(), t.TempDir()
	script(t, sd, "echkpnt.site", "exit 0\n")
	script(t, sd, "erestart.site", "exit 0\n")
	script(t, md, "echkpnt.other", "exit 0\n") // no erestart.other
	if m, err := Find("", "", sd); err != nil || !m.Builtin() || m.Name != MethodDefault {
		t.Errorf("Find default = %+v, %v", m, err)
	}
	if m, err := Find("site", "", sd); err != nil || m.Echkpnt != filepath.Join(sd, "echkpnt.site") {
		t.Errorf("Find site = %+v, %v", m, err)
	}
	if _, err := Find("site", md, sd); !errors.Is(err, ErrNoMethod) {
		t.Errorf("Find site in the method directory only: %v", err)
	}
	if _, err := Find("other", md, sd); err == nil || !strings.Contains(err.Error(), "erestart.other") {
		t.Errorf("Find without erestart: %v", err)
	}
	if m, err := Find("criu", "", ""); err != nil || m.Name != MethodCRIU || !m.Builtin() {
		t.Errorf("Find criu = %+v, %v", m, err)
	}
	if _, err := Find("../x", "", sd); err == nil {
		t.Error("Find accepted a path as a method name")
	}
}

// TestExternalMethod runs a site's echkpnt.<name> and erestart.<name>: the
// arguments, the environment, the kept output, a failure, and the
// restart command with the directory moved to the new job ID.
func TestExternalMethod(t *testing.T) {
	sd, ck := t.TempDir(), t.TempDir()
	script(t, sd, "echkpnt.t", `echo "args $*"; echo "dir $LSB_CHKPNT_DIR"; echo oops >&2; exit ${FAIL:-0}`+"\n")
	script(t, sd, "erestart.t", `echo "LSB_RESTART_CMD=resume $*" > "$LSB_CHKPNT_DIR/.restart_cmd"`+"\n")
	old := filepath.Join(ck, "7")
	env := map[string]string{"LSB_ECHKPNT_METHOD": "t", "LSF_SERVERDIR": sd, "LSB_CHKPNT_DIR": old, "LSB_ECHKPNT_KEEP_OUTPUT": "Y"}
	ctx := context.Background()
	if err := Echkpnt(ctx, Args{Kill: true, PGID: 99}, envOf(env)); err != nil {
		t.Fatal(err)
	}
	out, _ := os.ReadFile(filepath.Join(old, "echkpnt.out"))
	if want := "args -k -d " + old + " 99\ndir " + old + "\n"; string(out) != want {
		t.Errorf("echkpnt.out = %q, want %q", out, want)
	}
	if e, _ := os.ReadFile(filepath.Join(old, "echkpnt.err")); string(e) != "oops\n" {
		t.Errorf("echkpnt.err = %q", e)
	}
	if !Checkpointed(old) {
		t.Fatal("no checkpoint mark")
	}
	env["FAIL"] = "3"
	if err := Echkpnt(ctx, Args{PGID: 99}, envOf(env)); err == nil || !strings.Contains(err.Error(), "exit status 3") {
		t.Errorf("failing method: %v", err)
	}
	delete(env, "FAIL")
	renv := envOf(env)
	renv.Getenv = func(k string) string {
		if k == "LSB_CHKPNT_DIR" {
			return filepath.Join(ck, "12")
		}
		return env[k]
	}
	cmd, used, err := Erestart(ctx, old, []string{"-f"}, renv)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(ck, "12"); used != want || cmd != "resume -f "+want {
		t.Errorf("Erestart = %q, %q", cmd, used)
	}
	if l, err := os.Readlink(old); err != nil || l != "12" {
		t.Errorf("old directory link = %q, %v", l, err)
	}
	if _, _, err := Erestart(ctx, filepath.Join(ck, "nothing"), nil, renv); err == nil {
		t.Error("Erestart of a directory without a checkpoint succeeded")
	}
}

// TestDefaultMethod checkpoints a real process that saves its count on
// SIGUSR1, and restarts with its own command.
func TestDefaultMethod(t *testing.T) {
	ck := filepath.Join(t.TempDir(), "5")
	if err := os.MkdirAll(ck, 0o700); err != nil {
		t.Fatal(err)
	}
	job := exec.Command("/bin/sh", "-c", `trap 'echo 41 > "$D/count"; : > "$D/chkpnt.done"' USR1; echo ready > "$D/ready"; while :; do sleep 0.05; done`)
	job.Env = append(os.Environ(), "D="+ck)
	job.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := job.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = syscall.Kill(-job.Process.Pid, syscall.SIGKILL); _ = job.Wait() }()
	// Waits on a real process are bounded generously: a loaded machine
	// can leave it unscheduled for seconds.
	const patience = 20 * time.Second
	for start := time.Now(); ; { // the trap must be set before the signal
		if _, err := os.Stat(filepath.Join(ck, "ready")); err == nil {
			break
		}
		if time.Since(start) > patience {
			t.Fatal("the job did not start")
		}
		time.Sleep(10 * time.Millisecond) // waiting on a real process
	}
	env := envOf(map[string]string{"LSB_CHKPNT_DIR": ck, "LSB_ERESTART_USRCMD": "./count.sh"})
	if err := Echkpnt(context.Background(), Args{PGID: job.Process.Pid}, env); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(ck, "count")); string(b) != "41\n" {
		t.Errorf("saved state = %q", b)
	}
	// A suspended job is let run to save its state, then stopped again.
	if err := syscall.Kill(-job.Process.Pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	for start := time.Now(); !groupStopped(job.Process.Pid); {
		if time.Since(start) > patience {
			t.Fatal("the job does not stop")
		}
		time.Sleep(10 * time.Millisecond) // waiting on a real process
	}
	if err := Echkpnt(context.Background(), Args{PGID: job.Process.Pid}, env); err != nil {
		t.Fatalf("checkpoint of a stopped job: %v", err)
	}
	for start := time.Now(); !groupStopped(job.Process.Pid); {
		if time.Since(start) > patience {
			t.Fatal("the job is not stopped again after its checkpoint")
		}
		time.Sleep(10 * time.Millisecond) // the stop is delivered asynchronously
	}
	_ = syscall.Kill(-job.Process.Pid, syscall.SIGCONT)
	cmd, used, err := Erestart(context.Background(), ck, nil, env)
	if err != nil || cmd != "./count.sh" || used != ck {
		t.Errorf("Erestart = %q, %q, %v", cmd, used, err)
	}
	env = envOf(map[string]string{"LSB_CHKPNT_DIR": ck, "BASALT_ECHKPNT_TIMEOUT": "1", "LSB_ECHKPNT_SIGNAL": "URG"})
	if err := Echkpnt(context.Background(), Args{PGID: job.Process.Pid}, env); err == nil || !strings.Contains(err.Error(), "did not save its state") {
		t.Errorf("a job that ignores the signal: %v", err)
	}
}

func TestCRIU(t *testing.T) {
	if err := CRIUCheck(context.Background()); err != nil {
		t.Skipf("the criu method cannot run here: %v", err)
	}
	ck := t.TempDir()
	job := exec.Command("sleep", "100")
	job.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := job.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = job.Process.Kill(); _ = job.Wait() }()
	env := envOf(map[string]string{"LSB_CHKPNT_DIR": ck, "LSB_ECHKPNT_METHOD": "criu"})
	if err := Echkpnt(context.Background(), Args{PGID: job.Process.Pid}, env); err != nil {
		t.Fatal(err)
	}
	if m, _ := filepath.Glob(filepath.Join(ck, "criu", "*.img")); len(m) == 0 {
		t.Error("criu dump wrote no image")
	}
	cmd, _, err := Erestart(context.Background(), ck, nil, env)
	if err != nil || !strings.HasPrefix(cmd, "exec criu restore -D ") {
		t.Errorf("Erestart = %q, %v", cmd, err)
	}
}

func TestExecForm(t *testing.T) {
	for in, want := range map[string]string{
		"./count.sh":                "exec ./count.sh",
		" ./a b > out ":             "exec ./a b > out",
		"a; b":                      "a; b",
		"a && b":                    "a && b",
		"a | b":                     "a | b",
		"a &":                       "a &",
		"exec criu restore -D '/x'": "exec criu restore -D '/x'",
		"while :; do :; done":       "while :; do :; done",
		"if x":                      "if x",
		"(a)":                       "(a)",
		"a\nb":                      "a\nb",
	} {
		if got := ExecForm(in); got != want {
			t.Errorf("ExecForm(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseJobDir(t *testing.T) {
	for in, want := range map[string][2]int64{"12": {12, 0}, "12_3": {12, 3}} {
		id, idx, ok := ParseJobDir(in)
		if !ok || id != want[0] || int64(idx) != want[1] {
			t.Errorf("ParseJobDir(%q) = %d %d %v", in, id, idx, ok)
		}
		if got := JobDir("/d", id, idx); got != "/d/"+in {
			t.Errorf("JobDir(ParseJobDir(%q)) = %s", in, got)
		}
	}
	for _, bad := range []string{"", "x", "0", "-1", "1_", "1_0", "1_x", "_2"} {
		if _, _, ok := ParseJobDir(bad); ok {
			t.Errorf("ParseJobDir(%q) accepted", bad)
		}
	}
}

// FuzzParseArgs: echkpnt's and erestart's command lines never panic, and
// what echkpnt accepts renders back to itself.
func FuzzParseArgs(f *testing.F) {
	for _, s := range []string{"-f -k -d /x 5", "-s 1", "-d", "-c -x 9", "-f /dir"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		args := strings.Fields(s)
		if a, err := ParseArgs(args); err == nil {
			b, err := ParseArgs(a.Argv())
			if err != nil || b != a {
				t.Fatalf("%q: %+v renders as %q, read back as %+v, %v", s, a, a.Argv(), b, err)
			}
		}
		_, _, _ = ParseRestartArgs(args)
		if id, idx, ok := ParseJobDir(s); ok && (id <= 0 || idx < 0) {
			t.Fatalf("ParseJobDir(%q) = %d %d", s, id, idx)
		}
	})
}

func TestStatStateGroup(t *testing.T) {
	for _, c := range []struct {
		line  string
		state byte
		pgid  int
		ok    bool
	}{
		{"20103 (sh) T 16224 20103 17571 0 -1", 'T', 20103, true},
		{"7 (a (b) c) D 1 9 9", 'D', 9, true}, // a command name with ") "
		{"7 (sleep) t 1 42", 't', 42, true},
		{"7 (sh) S 1", 0, 0, false},      // no process group
		{"7 (sh) SS 1 2", 0, 0, false},   // not a state
		{"7 (sh) S 1 x", 0, 0, false},    // not a number
		{"7 sh S 1 2", 0, 0, false},      // no command name
		{"7 (sh) \x00 1 2", 0, 0, false}, // not a letter
		{"", 0, 0, false},
	} {
		state, pgid, ok := statStateGroup([]byte(c.line))
		if state != c.state || pgid != c.pgid || ok != c.ok {
			t.Errorf("statStateGroup(%q) = %q, %d, %v; want %q, %d, %v", c.line, state, pgid, ok, c.state, c.pgid, c.ok)
		}
	}
}

func FuzzStatStateGroup(f *testing.F) {
	f.Add([]byte("20103 (sh) T 16224 20103 17571 0 -1"))
	f.Add([]byte("7 (a (b) c) D 1 9 9"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if state, _, ok := statStateGroup(b); ok && state == 0 {
			t.Fatalf("ok with no state: %q", b)
		}
	})
}
