package shepherd

import (
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/sbd/sbdwire"
)

func TestAction(t *testing.T) {
	tests := []struct {
		in   string
		want step
		ok   bool
	}{
		{"", step{}, false},
		{"default", step{}, false},
		{"CHKPNT", step{chkpnt: true}, true},
		{"SIGTSTP", step{sig: syscall.SIGTSTP}, true},
		{"tstp", step{sig: syscall.SIGTSTP}, true},
		{" SIGUSR1 ", step{sig: syscall.SIGUSR1}, true},
		{"9", step{cmd: "9"}, true},
		{"kill -STOP $LSB_JOBPIDS", step{cmd: "kill -STOP $LSB_JOBPIDS"}, true},
		{"/usr/local/bin/suspend_job", step{cmd: "/usr/local/bin/suspend_job"}, true},
	}
	for _, tt := range tests {
		got, ok := action(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("action(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func sigs(ss ...syscall.Signal) []step {
	var out []step
	for _, s := range ss {
		out = append(out, step{sig: s})
	}
	return out
}

func TestPlans(t *testing.T) {
	custom := &api.QueueExec{TerminateAction: "SIGUSR1"}
	tests := []struct {
		q      *api.QueueExec
		reason string
		want   []step
	}{
		{nil, "TERM_RUNLIMIT", sigs(syscall.SIGUSR2, syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL)},
		{nil, "TERM_CPULIMIT", sigs(syscall.SIGXCPU, syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL)},
		{nil, "TERM_SWAP", sigs(syscall.SIGQUIT, syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL)},
		{nil, "TERM_PROCESSLIMIT", sigs(syscall.SIGQUIT, syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL)},
		{nil, "TERM_MEMLIMIT", sigs(syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL)},
		{&api.QueueExec{}, "TERM_THREADLIMIT", sigs(syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL)},
		{custom, "TERM_RUNLIMIT", sigs(syscall.SIGUSR1)},
	}
	for _, tt := range tests {
		if got := limitPlan(tt.q, tt.reason); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("limitPlan(%s) = %v, want %v", tt.reason, got, tt.want)
		}
	}
	if got := terminatePlan(nil); !reflect.DeepEqual(got, sigs(syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL)) {
		t.Errorf("terminatePlan(nil) = %v", got)
	}
	if got := terminatePlan(&api.QueueExec{TerminateAction: "CHKPNT"}); !reflect.DeepEqual(got, []step{{chkpnt: true, sig: syscall.SIGKILL}}) {
		t.Errorf("TERMINATE[CHKPNT] = %v", got)
	}
	if got := resumeStep(&api.QueueExec{ResumeAction: "CHKPNT"}); got != (step{sig: syscall.SIGCONT}) {
		t.Errorf("RESUME[CHKPNT] = %v (not a RESUME action)", got)
	}
	if got := terminatePlan(&api.QueueExec{TerminateAction: "kill -9 $LSB_JOBPIDS"}); !reflect.DeepEqual(got, []step{{cmd: "kill -9 $LSB_JOBPIDS"}}) {
		t.Errorf("terminatePlan(command) = %v", got)
	}
}

func TestSuspendResumeSteps(t *testing.T) {
	tests := []struct {
		l    *api.JobLaunch
		want step
	}{
		{&api.JobLaunch{ExecHosts: []*api.ExecHost{{Host: "a", Slots: 1}}}, step{sig: syscall.SIGSTOP}},
		{&api.JobLaunch{ExecHosts: []*api.ExecHost{{Host: "a", Slots: 2}}}, step{sig: syscall.SIGTSTP}},
		{&api.JobLaunch{ExecHosts: []*api.ExecHost{{Host: "a"}, {Host: "b"}}}, step{sig: syscall.SIGTSTP}},
		{&api.JobLaunch{Spec: &api.JobSpec{Interactive: true}}, step{sig: syscall.SIGTSTP}},
		{&api.JobLaunch{Queue: &api.QueueExec{SuspendAction: "SIGUSR1"}}, step{sig: syscall.SIGUSR1}},
		{&api.JobLaunch{Queue: &api.QueueExec{SuspendAction: "CHKPNT"}}, step{chkpnt: true, sig: syscall.SIGSTOP}},
		{&api.JobLaunch{Queue: &api.QueueExec{SuspendAction: "CHKPNT"}, Spec: &api.JobSpec{Interactive: true}}, step{chkpnt: true, sig: syscall.SIGTSTP}},
	}
	for i, tt := range tests {
		if got := suspendStep(tt.l); got != tt.want {
			t.Errorf("%d: suspendStep = %v, want %v", i, got, tt.want)
		}
	}
	if resumeStep(nil) != (step{sig: syscall.SIGCONT}) || resumeStep(&api.QueueExec{ResumeAction: "run-it"}) != (step{cmd: "run-it"}) {
		t.Error("resumeStep")
	}
}

func TestOutcome(t *testing.T) {
	q := &api.QueueExec{RequeueExitValues: []int32{7, 31}, ExcludeExitValues: []int32{20}}
	exit := func(n int) syscall.WaitStatus { return syscall.WaitStatus(n << 8) }
	tests := []struct {
		name       string
		ws         syscall.WaitStatus
		termReason string
		requeue    bool
		state      api.JobState
		reason     string
		rq, excl   bool
	}{
		{"success", exit(0), "", false, api.StateDone, "", false, false},
		{"success despite kill", exit(0), "TERM_OWNER", false, api.StateDone, "", false, false},
		{"failure", exit(1), "", false, api.StateExit, "", false, false},
		{"requeue value", exit(7), "", false, api.StateExit, "", true, false},
		{"exclude value", exit(20), "", false, api.StateExit, "", true, true},
		{"requeue value after LSF kill", exit(31), "TERM_RUNLIMIT", false, api.StateExit, "TERM_RUNLIMIT", false, false},
		{"signal is never requeued", syscall.WaitStatus(7), "", false, api.StateExit, "TERM_EXTERNAL_SIGNAL", false, false},
		{"killed by LSF", syscall.WaitStatus(syscall.SIGKILL), "TERM_OWNER", false, api.StateExit, "TERM_OWNER", false, false},
		{"brequeue", syscall.WaitStatus(syscall.SIGKILL), "TERM_REQUEUE_ADMIN", true, api.StateExit, "TERM_REQUEUE_ADMIN", true, false},
		{"no queue", exit(7), "", false, api.StateExit, "", false, false},
	}
	for _, tt := range tests {
		qq := q
		if tt.name == "no queue" {
			qq = nil
		}
		st, reason, rq, excl := outcome(tt.ws, qq, tt.termReason, tt.requeue)
		if st != tt.state || reason != tt.reason || rq != tt.rq || excl != tt.excl {
			t.Errorf("%s: outcome = %#x %q %v %v; want %#x %q %v %v", tt.name, st, reason, rq, excl, tt.state, tt.reason, tt.rq, tt.excl)
		}
	}
}

func TestRlimits(t *testing.T) {
	l := &api.Limits{CPU: 60, File: 10, Data: 20, Stack: 30, Core: 0, Mem: 99}
	got := rlimits(l, 0)
	want := []*sbdwire.Rlimit{
		{Resource: syscall.RLIMIT_CPU, Cur: 60, Max: 60},
		{Resource: syscall.RLIMIT_FSIZE, Cur: 10240, Max: 10240},
		{Resource: syscall.RLIMIT_DATA, Cur: 20480, Max: 20480},
		{Resource: syscall.RLIMIT_STACK, Cur: 30720, Max: 30720},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rlimits = %v", got)
	}
	if got := rlimits(l, 1); len(got) != 3 || got[0].Resource == syscall.RLIMIT_CPU {
		t.Errorf("LSB_JOB_CPULIMIT=y: %v", got)
	}
	if rlimits(nil, 0) != nil {
		t.Error("rlimits(nil)")
	}
	// bsub -C 0: a zero core limit, not none.
	if got := rlimits(&api.Limits{CoreZero: true}, 0); !reflect.DeepEqual(got, []*sbdwire.Rlimit{{Resource: syscall.RLIMIT_CORE}}) {
		t.Errorf("-C 0: %v", got)
	}
}

func TestOpenOutput(t *testing.T) {
	dir := t.TempDir()
	fallback := filepath.Join(dir, "fallback")
	tests := []struct {
		name     string
		fs       sbdwire.FileSpec
		wantPath string
		note     bool
	}{
		{"plain file", sbdwire.FileSpec{Path: filepath.Join(dir, "o"), Append: true}, filepath.Join(dir, "o"), false},
		{"existing directory", sbdwire.FileSpec{Path: dir, DirName: "7.out"}, filepath.Join(dir, "7.out"), false},
		{"trailing slash makes the directory", sbdwire.FileSpec{Path: filepath.Join(dir, "new") + "/", DirName: "7.err"}, filepath.Join(dir, "new", "7.err"), false},
		{"unopenable falls back", sbdwire.FileSpec{Path: "/nonexistent/x", Fallback: fallback}, fallback, true},
	}
	for _, tt := range tests {
		f, path, note, err := openOutput(&tt.fs)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		f.Close()
		if path != tt.wantPath || (note != "") != tt.note {
			t.Errorf("%s: path %q note %q, want %q", tt.name, path, note, tt.wantPath)
		}
	}
	if _, _, _, err := openOutput(&sbdwire.FileSpec{Path: "/nonexistent/x"}); err == nil {
		t.Error("no fallback: opened anyway")
	}
	// Overwrite truncates, append keeps.
	p := filepath.Join(dir, "t")
	os.WriteFile(p, []byte("old\n"), 0o644)
	f, _, _, _ := openOutput(&sbdwire.FileSpec{Path: p})
	f.WriteString("new\n")
	f.Close()
	f, _, _, _ = openOutput(&sbdwire.FileSpec{Path: p, Append: true})
	f.WriteString("more\n")
	f.Close()
	if b, _ := os.ReadFile(p); string(b) != "new\nmore\n" {
		t.Errorf("file %q", b)
	}
}

func TestReqMemKB(t *testing.T) {
	tests := map[string]int64{
		"":                                 0,
		"select[mem>100] rusage[mem=2048]": 2048 * 1024,
		"rusage[mem=1GB]":                  1024 * 1024,
		"order[r15s]":                      0,
		"garbage[[":                        0,
	}
	for in, want := range tests {
		if got := reqMemKB(in); got != want {
			t.Errorf("reqMemKB(%q) = %d, want %d", in, got, want)
		}
	}
}
