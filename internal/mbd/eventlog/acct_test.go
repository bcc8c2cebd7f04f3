package eventlog

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/basalt-lsf/basalt/api"
)

// writeAcct renders finished runs into an lsb.acct, with an OpenLava-era
// record and a damaged line among them.
func writeAcct(t *testing.T, dir string) {
	t.Helper()
	var b []byte
	finish := func(id int64, idx int32, user, queue, project, name string, hosts []string, submit, start, end int64, st api.JobState) {
		var eh []*api.ExecHost
		for _, h := range hosts {
			eh = append(eh, &api.ExecHost{Host: h, Slots: 1})
		}
		job := &Job{ID: id, Index: idx, User: user, Queue: queue, Project: project, Name: name, SubmitTime: submit,
			StartTime: start, EndTime: end, ExecHosts: eh, Spec: &api.JobSpec{Command: "run " + name, JobName: name, Project: project}}
		if idx > 0 {
			job.ArraySpec = "1-5"
			job.Spec.JobName = name + "[1-5]"
		}
		_, acct := Render(&api.Event{Time: end * 1e9, JobStatus: &api.EvJobStatus{JobID: id, Index: idx, State: st,
			Usage: &api.Usage{CPUTime: 1}}}, job)
		b = AppendRecord(b, acct[0])
	}
	finish(1, 0, "alice", "normal", "p1", "align", []string{"h1"}, t0, t0+10, t0+100, api.StateDone)
	finish(2, 0, "bob", "short", "p2", "sort", []string{"h2", "h3"}, t0+5, t0+20, t0+200, api.StateExit)
	b = append(b, "\"JOB_FINISH\" \"10.1\" 5 garbage\n"...)
	finish(3, 2, "alice", "long", "p1", "arr", []string{"h3"}, t0+30, t0+40, t0+300, api.StateDone)
	finish(4, 0, "carol", "normal", "p2", "never-ran", nil, t0+50, 0, t0+60, api.StateExit)
	b = append(b, line(`"JOB_FINISH" "2.0" 1700000400 5 500 0 1 1700000300 0 0 1700000310 "dave" "normal" "" "" ""`,
		`"old" "/w" "" "" "" "1.5" 0 1 "h1" 64 1.0 "legacy" "true"`,
		`0.100000 0.000000 10 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 "" "p1" 0 1 "" 0 50 60 "" ""`)...)
	b = append(b, '\n')
	if err := os.WriteFile(filepath.Join(dir, AcctFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestReadAcct(t *testing.T) {
	dir := t.TempDir()
	writeAcct(t, dir)
	ctx := context.Background()
	ids := func(f Filter) string {
		res, err := ReadAcct(ctx, &AcctQuery{Filter: f, Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Warnings) != 1 {
			t.Errorf("warnings %v, want the damaged line", res.Warnings)
		} else {
			var pe *ParseError
			if !errors.As(res.Warnings[0], &pe) || pe.Line != 3 || pe.Name != "jobId" || !strings.HasSuffix(pe.File, AcctFile) {
				t.Errorf("warning %v", res.Warnings[0])
			}
		}
		var out []string
		for _, j := range res.Jobs {
			out = append(out, j.JobName)
		}
		return strings.Join(out, " ")
	}
	tests := []struct {
		name string
		f    Filter
		want string
	}{
		{"all finished", Filter{}, "align sort arr[2] never-ran legacy"},
		{"-d", Filter{States: uint32(api.StateDone)}, "align arr[2] legacy"},
		{"-e", Filter{States: uint32(api.StateExit)}, "sort never-ran"},
		{"-u", Filter{Users: []string{"alice", "dave"}}, "align arr[2] legacy"},
		{"-q", Filter{Queues: []string{"short", "long"}}, "sort arr[2]"},
		{"-m", Filter{Hosts: []string{"h3"}}, "sort arr[2]"},
		{"-P", Filter{Projects: []string{"p2"}}, "sort never-ran"},
		{"-J", Filter{JobName: "a*"}, "align arr[2]"},
		{"-J array name", Filter{JobName: "arr"}, "arr[2]"},
		{"job ID", Filter{Jobs: []*api.JobRef{{JobID: 3}}}, "arr[2]"},
		{"job element", Filter{Jobs: []*api.JobRef{{JobID: 3, Index: 1}}}, ""},
		{"-C", Filter{Completed: Window{t0 + 150, t0 + 350}}, "sort arr[2]"},
		{"-S", Filter{Submitted: Window{To: t0 + 5}}, "align sort"},
		{"-D excludes jobs that never ran", Filter{Dispatched: Window{From: 1}}, "align sort arr[2] legacy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ids(tt.f); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	res, _ := ReadAcct(ctx, &AcctQuery{Dir: dir, Filter: Filter{Jobs: []*api.JobRef{{JobID: 2}}}})
	j := res.Jobs[0]
	if j.User != "bob" || j.State != api.StateExit || j.SubmitTime != t0+5 || j.StartTime != t0+20 || j.EndTime != t0+200 ||
		len(j.ExecHosts) != 2 || j.NumSlots != 2 || j.Spec.Command != "run sort" || j.Usage.CPUTime != 1 {
		t.Errorf("job 2 = %+v", j)
	}
	legacy, _ := ReadAcct(ctx, &AcctQuery{Dir: dir, Filter: Filter{Users: []string{"dave"}}})
	if l := legacy.Jobs[0]; l.JobID != 5 || l.Usage.MaxMem != 50 || l.Usage.MaxSwap != 60 || l.Spec.Project != "p1" || l.FromHost != "old" {
		t.Errorf("OpenLava record = %+v usage %+v", l, l.Usage)
	}
}

func TestReadAcctFiles(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	// No lsb.acct yet: nothing finished.
	res, err := ReadAcct(ctx, &AcctQuery{Dir: dir})
	if err != nil || len(res.Jobs) != 0 {
		t.Errorf("empty dir: %v %v", res, err)
	}
	// An explicit -f file must exist.
	if _, err := ReadAcct(ctx, &AcctQuery{Files: []string{filepath.Join(dir, "nope")}}); err == nil {
		t.Error("missing -f file: no error")
	}
	writeAcct(t, dir)
	p := filepath.Join(dir, AcctFile)
	res, err = ReadAcct(ctx, &AcctQuery{Files: []string{p, p}})
	if err != nil || len(res.Jobs) != 10 {
		t.Errorf("two files: %d jobs, %v", len(res.Jobs), err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := ReadAcct(cctx, &AcctQuery{Dir: dir}); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: %v", err)
	}
}

func TestReadHistoryFiles(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	res, err := ReadHistory(ctx, &HistoryQuery{Dir: dir})
	if err != nil || len(res.Jobs) != 0 {
		t.Errorf("empty dir: %+v %v", res, err)
	}
	// bhist -f: a file of another name, whose header is an archive's time.
	p := filepath.Join(dir, "saved.events")
	content := "# 1700000999\n" + line(`"JOB_NEW" "10.1" 1700000000 8 500 0 1 1700000000 0 0 0 0 0 "u"`, minus11,
		`"" 1.00 0 "q" "" "h" "" "" "" "" "" "" "1.8" 0 "" "" "j" "c" 0 "" "" 1 "" "" "" "" 0 0 "" "" "" 0`) + "\n" +
		"not a record\n"
	os.WriteFile(p, []byte(content), 0o644)
	res, err = ReadHistory(ctx, &HistoryQuery{Files: []string{p}, Filter: Filter{States: AllStates}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Jobs) != 1 || res.Jobs[0].Job.JobID != 8 || len(res.Warnings) != 1 {
		t.Errorf("jobs %d warnings %v", len(res.Jobs), res.Warnings)
	}
	if _, err := ReadHistory(ctx, &HistoryQuery{Files: []string{filepath.Join(dir, "nope")}}); err == nil {
		t.Error("missing -f file: no error")
	}
}

func TestReaderLines(t *testing.T) {
	in := "# 12\n\n   \n# a comment\n" + `"JOB_CLEAN" "10.1" 5 1 0` + "\n" + `"JOB_CLEAN" "10.1" 6 2 0`
	r := NewReader(strings.NewReader(in), "f")
	rec, err := r.Next()
	if err != nil || rec.Log.(*JobClean).JobID != 1 || r.Line() != 5 || r.Offset() != int64(strings.Index(in, `"JOB_CLEAN"`)) {
		t.Fatalf("first: %v %v line %d offset %d", rec, err, r.Line(), r.Offset())
	}
	if n, ok := r.Header(); !ok || n != 12 {
		t.Errorf("header %d %v", n, ok)
	}
	rec, err = r.Next() // last line without newline
	if err != nil || rec.Log.(*JobClean).JobID != 2 {
		t.Fatalf("second: %v %v", rec, err)
	}
	if _, err := r.Next(); err == nil || err.Error() != "EOF" {
		t.Errorf("end: %v", err)
	}
	// A line too long is an error, and reading goes on after it.
	long := strings.Repeat("x", MaxLineLen+10)
	r = NewReader(strings.NewReader(long+"\n"+`"JOB_CLEAN" "10.1" 6 3 0`+"\n"), "f")
	if _, err := r.Next(); err == nil || !strings.Contains(err.Error(), "longer than") {
		t.Errorf("long line: %v", err)
	}
	if rec, err := r.Next(); err != nil || rec.Log.(*JobClean).JobID != 3 {
		t.Errorf("after the long line: %v %v", rec, err)
	}
}

func TestPeekJobID(t *testing.T) {
	for _, g := range goldenRecords {
		id, isJob, ok := peekJobID([]byte(g.want))
		wantID, _, wantJob := g.rec.JobID()
		if !ok || isJob != wantJob || isJob && id != wantID {
			t.Errorf("%s: peekJobID = %d, %v, %v; want %d, %v", g.name, id, isJob, ok, wantID, wantJob)
		}
	}
	for _, l := range []string{``, `"JOB_NEW"`, `"JOB_NEW" "10.1"`, `"JOB_NEW" "10.1" 5`, `"JOB_SWITCH" "10.1" 5 1`,
		`"JOB_NE""W" "10.1" 5 1`, `"JOB_NEW" "10.1" 5 x`, `"JOB_MODIFY2" "10.1" 5 "x[1]"`} {
		if _, _, ok := peekJobID([]byte(l)); ok {
			t.Errorf("peekJobID(%s) ok", l)
		}
	}
	// Skipping in the reader.
	in := strings.Join([]string{`"JOB_CLEAN" "10.1" 5 1 0`, `"QUEUE_CTRL" "10.1" 5 1 "q" 0 "u" ""`,
		`"JOB_CLEAN" "10.1" 6 2 0`, `"JOB_CLEAN" "10.1" 6 "bad" 0`}, "\n")
	r := NewReader(strings.NewReader(in), "f")
	r.SkipJobs(func(id int64) bool { return id == 2 })
	rec, err := r.Next()
	if err != nil || rec.Log.(*JobClean).JobID != 2 {
		t.Fatalf("%v %v", rec, err)
	}
	if _, err := r.Next(); err == nil || err.Error() == "EOF" {
		t.Errorf("a line whose job ID cannot be read must be parsed (and reported): %v", err)
	}
}
