package esub

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/basalt-lsf/basalt/api"
)

func sample() *api.JobSpec {
	return &api.JobSpec{
		Command: "sim -n 4 \"big run\"", JobName: "j1", Queues: []string{"normal", "short"}, OutFile: "o.%J",
		Exclusive: true, ResReq: []string{"select[mem>100]", "span[hosts=1]"}, Project: "p$1", MinProcs: 4, MaxProcs: 8,
		Files:  []*api.FileTransfer{{Local: "a", Op: ">", Remote: "b"}, {Local: "c", Op: "<", Remote: "d"}},
		Limits: &api.Limits{CPU: 600, Mem: 1024, Run: 3600}, EsubParams: "fluent(x) mpi", Hold: true, UserPriority: 5,
		AskedHosts: []string{"hostA", "hostB+2"},
	}
}

func TestParamFile(t *testing.T) {
	got := string(ParamFile(Params(sample())))
	want := `LSB_SUB2_JOB_PRIORITY=5
LSB_SUB_ADDITIONAL="fluent(x) mpi"
LSB_SUB_COMMAND_LINE="sim -n 4 \"big run\""
LSB_SUB_EXCLUSIVE=Y
LSB_SUB_HOLD=Y
LSB_SUB_HOSTS="hostA hostB+2"
LSB_SUB_JOB_NAME="j1"
LSB_SUB_MAX_NUM_PROCESSORS=8
LSB_SUB_NUM_PROCESSORS=4
LSB_SUB_OTHER_FILES=2
LSB_SUB_OTHER_FILES_0="a > b"
LSB_SUB_OTHER_FILES_1="c < d"
LSB_SUB_OUT_FILE="o.%J"
LSB_SUB_PROJECT_NAME="p\$1"
LSB_SUB_QUEUE="normal short"
LSB_SUB_RES_REQ="select[mem>100] span[hosts=1]"
LSB_SUB_RLIMIT_CPU=600
LSB_SUB_RLIMIT_RSS=1024
LSB_SUB_RLIMIT_RUN=3600
`
	if got != want {
		t.Errorf("ParamFile =\n%s\nwant\n%s", got, want)
	}
	// The file is what a shell reads back.
	path := filepath.Join(t.TempDir(), "parm")
	os.WriteFile(path, []byte(got), 0o600)
	out, err := exec.Command("/bin/sh", "-c", `. "$0"; printf '%s|%s|%s' "$LSB_SUB_COMMAND_LINE" "$LSB_SUB_PROJECT_NAME" "$LSB_SUB_OTHER_FILES_1"`, path).Output()
	if err != nil || string(out) != `sim -n 4 "big run"|p$1|c < d` {
		t.Errorf("sourced: %q, %v", out, err)
	}
}

func TestParseAssignments(t *testing.T) {
	src := "# comment\n\nLSB_SUB_QUEUE=\"short\"\nexport A_B=plain\\ word\nC='single $x' # trailing\nD=\"a\\\"b\\\\c\\$d\"e'f'\nE=\n"
	got, err := ParseAssignments("f", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []Assignment{{"LSB_SUB_QUEUE", "short", 3}, {"A_B", "plain word", 4}, {"C", "single $x", 5}, {"D", `a"b\c$def`, 6}, {"E", "", 7}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

func TestParseAssignmentsErrors(t *testing.T) {
	tests := []struct {
		src       string
		line, col int
		msg       string
	}{
		{"=x", 1, 1, "expected a variable name"},
		{"ok=1\n1A=x", 2, 1, "expected a variable name"},
		{"NAME value", 1, 5, "expected '=' after NAME"},
		{"N=\"open", 1, 3, "unterminated double-quoted string"},
		{"  N='open", 1, 5, "unterminated single-quoted string"},
		{"N=a b", 1, 5, "unexpected text after the value"},
		{"N=a\\", 1, 4, "backslash at the end of the line"},
	}
	for _, tt := range tests {
		_, err := ParseAssignments("mod", []byte(tt.src))
		var l ErrorList
		if !errors.As(err, &l) || len(l) != 1 {
			t.Errorf("%q: %v, want one error", tt.src, err)
			continue
		}
		e := l[0]
		if e.File != "mod" || e.Line != tt.line || e.Col != tt.col || !strings.Contains(e.Msg, tt.msg) {
			t.Errorf("%q: %v, want mod:%d:%d: %s", tt.src, e, tt.line, tt.col, tt.msg)
		}
	}
}

func FuzzParseAssignments(f *testing.F) {
	f.Add("A=1\nB=\"x y\"\nC='z'\n")
	f.Add("export X=\"a\\\"b\" # c")
	f.Add("N=\"\\")
	f.Fuzz(func(t *testing.T, s string) {
		as, err := ParseAssignments("f", []byte(s))
		if err != nil {
			var l ErrorList
			if !errors.As(err, &l) || len(l) == 0 {
				t.Fatalf("error %v is not a positioned list", err)
			}
			for _, e := range l {
				if e.Line < 1 || e.Col < 1 {
					t.Fatalf("bad position %v", e)
				}
			}
		}
		// Values survive quoting: quoted and parsed again, they are equal.
		for _, a := range as {
			back, err := ParseAssignments("q", []byte(a.Name+"="+Quote(a.Value)))
			if err != nil || len(back) != 1 || back[0].Value != a.Value {
				t.Fatalf("%q: requoted %v %v", a.Value, back, err)
			}
		}
		spec := &api.JobSpec{}
		Apply(spec, as)
		ApplyEnv(nil, as)
	})
}

func TestApply(t *testing.T) {
	spec := sample()
	as, err := ParseAssignments("m", []byte(`LSB_SUB_QUEUE="long"
LSB_SUB_EXCLUSIVE=N
LSB_SUB_PROJECT_NAME=SUB_RESET
LSB_SUB_RLIMIT_RUN=60
LSB_SUB_RES_REQ="rusage[mem=10]"
LSB_SUB_OTHER_FILES_2="e >> f"
LSB_SUB_NUM_PROCESSORS=x
LSB_SUB_BOGUS=1
LSB_SUB_NOTIFY_END=maybe
`))
	if err != nil {
		t.Fatal(err)
	}
	warns := Apply(spec, as)
	if len(warns) != 3 || !strings.Contains(warns[0], "line 7: LSB_SUB_NUM_PROCESSORS") ||
		!strings.Contains(warns[1], "LSB_SUB_BOGUS: not a parameter") || !strings.Contains(warns[2], "is not Y or N") {
		t.Errorf("warnings %q", warns)
	}
	if !reflect.DeepEqual(spec.Queues, []string{"long"}) || spec.Exclusive || spec.Project != "" || spec.Limits.Run != 60 ||
		!reflect.DeepEqual(spec.ResReq, []string{"rusage[mem=10]"}) || spec.MinProcs != 4 {
		t.Errorf("spec %+v", spec)
	}
	if len(spec.Files) != 3 || *spec.Files[2] != (api.FileTransfer{Local: "e", Op: ">>", Remote: "f"}) {
		t.Errorf("files %+v", spec.Files)
	}
	env := ApplyEnv([]string{"A=1", "B=2"}, []Assignment{{Name: "B", Value: "3"}, {Name: "C", Value: "4"}, {Name: "A", Value: Reset}})
	if !reflect.DeepEqual(env, []string{"B=3", "C=4"}) {
		t.Errorf("ApplyEnv = %q", env)
	}
}

func TestMethodNames(t *testing.T) {
	tests := map[string][]string{
		"":                   nil,
		"fluent":             {"fluent"},
		"fluent(a b) mpi,ls": {"fluent(a b)", "mpi", "ls"},
		"  x(  (y) ) z ":     {"x(  (y) )", "z"},
	}
	for in, want := range tests {
		if got := MethodNames(in); !reflect.DeepEqual(got, want) {
			t.Errorf("MethodNames(%q) = %q, want %q", in, got, want)
		}
	}
}

func writeExe(t *testing.T, dir, name, script string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestRun(t *testing.T) {
	dir := t.TempDir()
	// esub: validates the project, passes data to eexec, routes big jobs.
	writeExe(t, dir, "esub", `. "$LSB_SUB_PARM_FILE"
echo "esub saw $LSB_SUB_QUEUE abort=$LSB_SUB_ABORT_VALUE"
if [ "$LSB_SUB_PROJECT_NAME" = "forbidden" ]; then echo "project refused" >&2; exit $LSB_SUB_ABORT_VALUE; fi
if [ "$LSB_SUB_NUM_PROCESSORS" -gt 2 ]; then echo 'LSB_SUB_QUEUE="parallel"' >> "$LSB_SUB_MODIFY_FILE"; fi
echo 'FROM_ESUB="yes it is"' >> "$LSB_SUB_MODIFY_ENVFILE"
exit 3
`)
	writeExe(t, dir, "esub.mpi", `. "$LSB_SUB_PARM_FILE"
echo "mpi saw $LSB_SUB_QUEUE"
echo 'LSB_SUB_JOB_NAME="mpi-job"' > "$LSB_SUB_MODIFY_FILE"
`)
	spec := &api.JobSpec{Command: "a.out", Queues: []string{"normal"}, MinProcs: 4, Project: "ok", Env: []string{"PATH=/bin"}}
	var stderr bytes.Buffer
	res, err := Run(context.Background(), spec, Options{ServerDir: dir, Methods: MethodNames("mpi(4) mpi"), Env: []string{"PATH=/usr/bin:/bin"}, Stderr: &stderr})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Ran, []string{filepath.Join(dir, "esub"), filepath.Join(dir, "esub.mpi")}) {
		t.Errorf("ran %q", res.Ran)
	}
	if got := string(res.Output); got != "esub saw normal abort=97\nmpi saw parallel\n" {
		t.Errorf("output %q", got)
	}
	if !reflect.DeepEqual(res.Spec.Queues, []string{"parallel"}) || res.Spec.JobName != "mpi-job" ||
		!reflect.DeepEqual(res.Spec.Env, []string{"PATH=/bin", "FROM_ESUB=yes it is"}) {
		t.Errorf("spec %+v", res.Spec)
	}
	if spec.Queues[0] != "normal" || spec.JobName != "" {
		t.Error("Run changed its argument")
	}
	// Rejection.
	spec.Project = "forbidden"
	_, err = Run(context.Background(), spec, Options{ServerDir: dir, Stderr: &stderr})
	if !errors.Is(err, ErrAborted) || !strings.Contains(stderr.String(), "project refused") {
		t.Errorf("abort: %v, stderr %q", err, stderr.String())
	}
	// A requested method without its esub.
	if _, err := Run(context.Background(), spec, Options{ServerDir: dir, Methods: []string{"nosuch"}}); err == nil || !strings.Contains(err.Error(), "esub.nosuch") {
		t.Errorf("missing method: %v", err)
	}
	// No esub at all: unchanged.
	res, err = Run(context.Background(), spec, Options{ServerDir: t.TempDir()})
	if err != nil || !reflect.DeepEqual(res.Spec, spec) || len(res.Ran) != 0 {
		t.Errorf("no esub: %+v, %v", res, err)
	}
	// A malformed modify file is an error naming the file and position.
	writeExe(t, dir, "esub.bad", `echo 'LSB_SUB_QUEUE="x' > "$LSB_SUB_MODIFY_FILE"`+"\n")
	spec.Project = "ok"
	if _, err := Run(context.Background(), spec, Options{ServerDir: dir, Methods: []string{"bad"}}); err == nil || !strings.Contains(err.Error(), ":1:15: unterminated double-quoted string") {
		t.Errorf("bad modify file: %v", err)
	}
}
