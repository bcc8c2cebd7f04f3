package eventlog

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/basalt-lsf/basalt/api"
)

const t0 = 1700000000

func fullSpec() *api.JobSpec {
	return &api.JobSpec{
		Command: "run.sh --in data", JobName: "arr[1-10]%2", Queues: []string{"normal", "long"},
		MinProcs: 2, MaxProcs: 4, ResReq: []string{"select[mem>100]", "span[hosts=1]"},
		AskedHosts: []string{"hA", "hgroup+2"}, InFile: "/in", InSpool: true, OutFile: "/out/%J.o",
		OutOverwrite: true, ErrFile: "/out/%J.e", Cwd: "/scratch/%J", SubCwd: "/home/alice/w",
		SubHome: "/home/alice",
		Limits: &api.Limits{CPU: 600, CPUHost: "hA", Run: 3600, RunHost: "hB", RunEstimate: 1800,
			Mem: 1048576, Swap: 2097152, Core: 10, Data: 20, File: 30, Stack: 40, Process: 8, Thread: 16},
		Project: "proj", UserGroup: "grp", Dependency: "done(12) && ended(x*)", Exclusive: true,
		Rerunnable: true, NotRerunnable: false, Hold: true, BeginTime: t0 + 60, TermTime: t0 + 7200,
		Wait: true, PreExec: "pre \"q\"", PostExec: "post", LoginShell: "/bin/bash", MailUser: "a@b",
		NotifyBegin: true, NotifyEnd: true, App: "fluent", UserPriority: 7, Description: "my job",
		Files:      []*api.FileTransfer{{Local: "l1", Remote: "r1", Op: ">"}, {Local: "l2", Remote: "r2", Op: "<<"}, {Local: "l3", Remote: "r3", Op: "><"}},
		EsubParams: "fluent", Umask: 0o022, FromHost: "login1", SLA: "gold", JobGroup: "/g/h", Reservation: "alice#0",
		ChkpntDir: "/ck", ChkpntPeriod: 300, WarningAction: "URG", WarningTime: 60, Interactive: true,
		Shell: "/bin/sh", Env: []string{"A=1"}, UID: 1001, GID: 100,
	}
}

// A submission survives rendering, writing and reading back: everything
// bhist shows of it comes from the JOB_NEW line alone.
func TestJobNewRoundTripsTheSubmission(t *testing.T) {
	spec := fullSpec()
	ev := &api.Event{Time: t0 * 1e9, User: "alice", UID: 1001, JobNew: &api.EvJobNew{
		JobID: 77, Spec: spec, Queue: "normal", JobName: "arr", ArrayIndices: []int32{1, 2, 3},
		ArraySpec: "1-10", ArrayLimit: 2, Project: "proj", NumProcs: 2, MaxProcs: 4, Hold: true, UserPriority: 7,
	}}
	evs, acct := Render(ev, nil)
	if len(evs) != 1 || len(acct) != 0 {
		t.Fatalf("Render gave %d events, %d acct", len(evs), len(acct))
	}
	line := evs[0].Format()
	r, err := ParseRecord(line)
	if err != nil {
		t.Fatalf("ParseRecord(%s): %v", line, err)
	}
	n := r.Log.(*JobNew)
	if n.JobName != "arr[1-10]%2" || n.UserName != "alice" || n.UserID != 1001 || n.SubmitTime != t0 ||
		n.Queue != "normal" || n.ResReq != "select[mem>100] span[hosts=1]" || n.Cwd != "/scratch/%J" ||
		n.RLimits[RlimitRSS] != 1048576 || n.RLimits[RlimitCPU] != 600 || n.HostSpec != "hA" ||
		n.Options&SubRlimitUnitIsKB == 0 || n.Options2&Sub2Hold == 0 || n.InFileSpool != "/in" ||
		n.JobFile != "1700000000.77" || n.UserPriority != 7 {
		t.Errorf("JOB_NEW %+v", n)
	}
	got := specFromNew(n)
	want := *spec
	want.Env, want.UID, want.GID = nil, 0, 0 // the job's environment and ids are not in lsb.events
	if !reflect.DeepEqual(got, &want) {
		t.Errorf("spec after the round trip differs:\n got %+v\nwant %+v\nlimits %+v vs %+v", got, &want, got.Limits, want.Limits)
	}
}

func TestJobNewDefaults(t *testing.T) {
	// No -J, one -q, no limits, a job script: LSF logs jobName "" and the
	// script's lines joined with ';'.
	ev := &api.Event{Time: t0 * 1e9, JobNew: &api.EvJobNew{JobID: 5, Queue: "normal",
		Spec: &api.JobSpec{Command: "#!/bin/sh\n#BSUB -q normal\necho hi\n", FromScript: true}}}
	evs, _ := Render(ev, nil)
	n := evs[0].Log.(*JobNew)
	if n.JobName != "" || n.Command != "#!/bin/sh;#BSUB -q normal;echo hi" || n.UserName != SystemUser ||
		n.NumProcessors != 1 || n.MaxNumProcessors != 1 || n.UserPriority != -1 || n.RLimits != lims() {
		t.Errorf("JOB_NEW %+v", n)
	}
}

func testJob() *Job {
	return &Job{
		ID: 9, User: "bob", UID: 1002, Queue: "short", Name: "sim", Project: "p1",
		Spec: &api.JobSpec{Command: "sim -n 4", JobName: "sim", OutFile: "/o", SubCwd: "/w", FromHost: "login1",
			ResReq: []string{"rusage[mem=100]"}, Limits: &api.Limits{Run: 3600}, App: "a1", PostExec: "cleanup", UserGroup: "g1"},
		State: api.StateRun, SubmitTime: t0, StartTime: t0 + 5, NumProcs: 3, MaxProcs: 3,
		ExecHosts: []*api.ExecHost{{Host: "n1", Slots: 2}, {Host: "n2", Slots: 1}}, HostFactor: 12.5,
		RunCount: 1, EffectiveResReq: "select[type == any] rusage[mem=100.00]",
	}
}

func TestRenderEvents(t *testing.T) {
	job := testJob()
	at := func(s int64) int64 { return (t0 + s) * 1e9 }
	tests := []struct {
		name   string
		ev     *api.Event
		events []string // expected lines
		acct   int
		end    int64 // the job's EndTime after the event (the state's)
	}{
		{"start", &api.Event{Time: at(5), JobStart: &api.EvJobStart{JobID: 9, ExecHosts: job.ExecHosts, Forced: true, RunCount: 1}},
			[]string{`"JOB_START" "10.1" 1700000005 9 4 0 0 12.5 3 "n1" "n1" "n2" "" "" 0 "g1" 0 "" 0 0 "BASALT" 1 "forced" "Y"`}, 0, 0},
		{"execute", &api.Event{Time: at(6), JobExecute: &api.EvJobExecute{JobID: 9, PID: 500, PGID: 500, ExecCwd: "/w", ExecHome: "/home/bob", ExecUser: "bob"}},
			[]string{`"JOB_START_ACCEPT" "10.1" 1700000006 9 500 500 0`,
				`"JOB_EXECUTE" "10.1" 1700000006 9 1002 500 "/w" "/home/bob" "bob" 500 0`}, 0, 0},
		{"suspended by load", &api.Event{Time: at(7), JobStatus: &api.EvJobStatus{JobID: 9, State: api.StateSSusp, SuspReasons: 0x40, SuspSubreason: 2}},
			[]string{`"JOB_STATUS" "10.1" 1700000007 9 8 64 2 0.0000 0 0 0 0 0 0 0 0`}, 0, 0},
		{"back to pending", &api.Event{Time: at(8), JobStatus: &api.EvJobStatus{JobID: 9, State: api.StatePend, PendReason: 6}},
			[]string{`"JOB_STATUS" "10.1" 1700000008 9 1 6 0 0.0000 0 0 0 0 0 0 0 0`}, 0, 0},
		{"done", &api.Event{Time: at(100), JobStatus: &api.EvJobStatus{JobID: 9, State: api.StateDone, RunCount: 1,
			Usage: &api.Usage{CPUTime: 2.5, UTime: 2, STime: 0.5, MaxMem: 1000, AvgMem: 800, MaxSwap: 2000, RunTime: 95}}},
			[]string{`"JOB_STATUS" "10.1" 1700000100 9 64 0 0 2.5000 1700000100 1 2.000000 0.500000 1000 -1 -1 -1 -1 0 0 -1 0 0 -1 -1 -1 -1 0 0 -1 0 0 0 0 1000 800`}, 1, t0 + 100},
		{"repeated report of the finished run", &api.Event{Time: at(101), JobStatus: &api.EvJobStatus{JobID: 9, State: api.StateDone, RunCount: 1}},
			nil, 0, t0 + 100},
		{"finish and post-exec in one report", &api.Event{Time: at(100), JobStatus: &api.EvJobStatus{JobID: 9, State: api.StateDone, PostDone: true, ExitStatus: 0}},
			[]string{`"JOB_STATUS" "10.1" 1700000100 9 64 0 0 0.0000 1700000100 1 -1.000000 -1.000000 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 0 0 0 0 0 0`,
				`"JOB_STATUS" "10.1" 1700000100 9 192 0 0 0.0000 1700000100 1 -1.000000 -1.000000 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 0 0 0 0 0 0`}, 1, t0 + 100},
		{"post-exec done", &api.Event{Time: at(101), JobStatus: &api.EvJobStatus{JobID: 9, State: api.StateDone, PostDone: true}},
			[]string{`"JOB_STATUS" "10.1" 1700000101 9 192 0 0 0.0000 1700000100 1 -1.000000 -1.000000 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 0 0 0 0 0 0`}, 0, t0 + 100},
		{"killed", &api.Event{Time: at(50), JobStatus: &api.EvJobStatus{JobID: 9, State: api.StateExit, ExitStatus: 9, TermReason: "TERM_OWNER"}},
			[]string{`"JOB_STATUS" "10.1" 1700000050 9 32 0 0 0.0000 1700000050 1 -1.000000 -1.000000 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 9 0 14 0 0 0`}, 1, t0 + 50},
		{"bkill", &api.Event{Time: at(49), User: "bob", UID: 1002, JobSignal: &api.EvJobSignal{JobID: 9, Signal: "KILL", RunCount: 1}},
			[]string{`"JOB_SIGNAL" "10.1" 1700000049 9 1002 1 "KILL" 0 "bob"`}, 0, 0},
		{"preemption", &api.Event{Time: at(49), JobSignal: &api.EvJobSignal{JobID: 9, Index: 2, Signal: "STOP", Preempt: true}},
			[]string{`"JOB_SIGNAL" "10.1" 1700000049 9 0 0 "STOP" 2 "root"`}, 0, 0},
		{"bswitch", &api.Event{Time: at(3), User: "bob", UID: 1002, JobSwitch: &api.EvJobSwitch{JobID: 9, Queue: "long"}},
			[]string{`"JOB_SWITCH" "10.1" 1700000003 1002 9 "long" 0 "bob"`}, 0, 0},
		{"bbot", &api.Event{Time: at(3), User: "bob", UID: 1002, JobMove: &api.EvJobMove{JobID: 9, Position: 1, Bottom: true}},
			[]string{`"JOB_MOVE" "10.1" 1700000003 1002 9 1 2 0 "bob"`}, 0, 0},
		{"clean", &api.Event{Time: at(200), JobClean: &api.EvJobClean{JobID: 9}},
			[]string{`"JOB_CLEAN" "10.1" 1700000200 9 0`}, 0, 0},
		{"requeue held", &api.Event{Time: at(60), User: "bob", JobRequeue: &api.EvJobRequeue{JobID: 9, Index: 1, Hold: true}},
			[]string{`"JOB_REQUEUE" "10.1" 1700000060 9 1`, `"JOB_STATUS" "10.1" 1700000060 9 2 23 0 0.0000 0 0 0 1 0 0 0 0`}, 0, 0},
		{"brun -f", &api.Event{Time: at(4), User: "admin", UID: 0, JobForce: &api.EvJobForce{JobID: 9, Hosts: []string{"n1"}, Force: true}},
			[]string{`"JOB_FORCE" "10.1" 1700000004 9 0 0 2 1 "n1" "admin"`}, 0, 0},
		{"qclose", &api.Event{Time: at(1), User: "admin", QueueCtrl: &api.EvQueueCtrl{Queue: "short", Op: api.QueueClose, Message: "upgrade"}},
			[]string{`"QUEUE_CTRL" "10.1" 1700000001 2 "short" 0 "admin" "upgrade"`}, 0, 0},
		{"hopen", &api.Event{Time: at(1), User: "admin", HostCtrl: &api.EvHostCtrl{Host: "n1", Op: api.HostOpen}},
			[]string{`"HOST_CTRL" "10.1" 1700000001 1 "n1" 0 "admin" ""`}, 0, 0},
		{"mbd start", &api.Event{Time: at(0), MbdStart: &api.EvMbdStart{Master: "m", Cluster: "c", NumHosts: 2, NumQueues: 3}},
			[]string{`"MBD_START" "10.1" 1700000000 "m" "c" 2 3`}, 0, 0},
		{"reconfig has no record", &api.Event{Time: at(0), Reconfig: &api.EvReconfig{Digest: "x"}}, nil, 0, 0},
		{"empty event", &api.Event{Time: at(0)}, nil, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := *job
			j.EndTime = tt.end
			evs, acct := Render(tt.ev, &j)
			var got []string
			for _, r := range evs {
				got = append(got, r.Format())
				back, err := ParseRecord(r.Format())
				if err != nil {
					t.Errorf("ParseRecord(%s): %v", r.Format(), err)
				} else if !reflect.DeepEqual(back, r) {
					t.Errorf("round trip of %s:\n got %#v\nwant %#v", r.Type, back.Log, r.Log)
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.events, "\n") {
				t.Errorf("events:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(tt.events, "\n     "))
			}
			if len(acct) != tt.acct {
				t.Errorf("%d acct records, want %d", len(acct), tt.acct)
			}
		})
	}
}

// TestRenderSignalOfWaitingJob: a signal that changes a waiting job's state
// itself (its entry is the one that last changed the job's state) is followed by the
// new status: bkill of a pending job by its EXIT status and lsb.acct's
// JOB_FINISH, bstop and bresume by PSUSP and PEND. A signal for a started
// job, or one that changed nothing, is the JOB_SIGNAL alone.
func TestRenderSignalOfWaitingJob(t *testing.T) {
	waiting := func(st api.JobState, changed bool) *Job {
		j := testJob()
		j.State, j.ExecHosts, j.StartTime, j.RunCount, j.StateChanged = st, nil, 0, 0, changed
		return j
	}
	tests := []struct {
		name  string
		sig   *api.EvJobSignal
		job   *Job
		types string
		acct  int
	}{
		{"bkill of a pending job", &api.EvJobSignal{JobID: 9, Signal: "KILL", Action: int32(api.ActTerminate), TermReason: "TERM_OWNER"},
			func() *Job {
				j := waiting(api.StateExit, true)
				j.EndTime, j.TermReason = t0+10, "TERM_OWNER"
				return j
			}(),
			"JOB_SIGNAL JOB_STATUS/32", 1},
		{"bstop of a pending job", &api.EvJobSignal{JobID: 9, Signal: "STOP", Action: int32(api.ActSuspend)},
			waiting(api.StatePSusp, true), "JOB_SIGNAL JOB_STATUS/2", 0},
		{"bresume of a held job", &api.EvJobSignal{JobID: 9, Signal: "CONT", Action: int32(api.ActResume)},
			waiting(api.StatePend, true), "JOB_SIGNAL JOB_STATUS/1", 0},
		{"bstop of a held job (no change)", &api.EvJobSignal{JobID: 9, Signal: "STOP", Action: int32(api.ActSuspend)},
			waiting(api.StatePSusp, false), "JOB_SIGNAL", 0},
		{"bkill of a running job", &api.EvJobSignal{JobID: 9, Signal: "KILL", Action: int32(api.ActTerminate)},
			func() *Job { j := testJob(); j.StateChanged = true; return j }(), "JOB_SIGNAL", 0},
		{"no job context", &api.EvJobSignal{JobID: 9, Signal: "KILL"}, nil, "JOB_SIGNAL", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs, acct := Render(&api.Event{Time: (t0 + 10) * 1e9, User: "bob", UID: 1002, JobSignal: tt.sig}, tt.job)
			var got []string
			for _, r := range evs {
				k := r.Type
				if st, ok := r.Log.(*JobStatus); ok {
					k += fmt.Sprintf("/%d", st.JStatus)
				}
				got = append(got, k)
				if back, err := ParseRecord(r.Format()); err != nil || !reflect.DeepEqual(back, r) {
					t.Errorf("round trip of %s: %v", r.Format(), err)
				}
			}
			if g := strings.Join(got, " "); g != tt.types {
				t.Errorf("records %s, want %s", g, tt.types)
			}
			if len(acct) != tt.acct {
				t.Errorf("%d acct records, want %d", len(acct), tt.acct)
			}
		})
	}
}

func TestRenderModify(t *testing.T) {
	job := testJob()
	job.ArraySpec, job.ArrayLimit, job.Index = "1-5", 0, 3
	spec := *job.Spec
	spec.Queues, spec.OutFile, spec.JobName = []string{"long"}, "/new.o", "sim[1-5]"
	evs, _ := Render(&api.Event{Time: (t0 + 9) * 1e9, User: "bob", UID: 1002, JobModify: &api.EvJobModify{
		JobID: 9, Index: 3, Spec: &spec, Queue: "long", JobName: "sim", Project: "p1"}}, job)
	m := evs[0].Log.(*JobModify2)
	if m.JobIDStr != "9[3]" || m.Queue != "long" || m.OutFile != "/new.o" || m.JobName != "sim[1-5]" ||
		m.SubmitTime != t0 || m.Options&SubQueue == 0 || m.Options2&Sub2ModifyCmd == 0 || m.Command != "sim -n 4" {
		t.Errorf("JOB_MODIFY2 %+v", m)
	}
	back, err := ParseRecord(evs[0].Format())
	if err != nil || !reflect.DeepEqual(back, evs[0]) {
		t.Fatalf("round trip: %v\n got %#v\nwant %#v", err, back, evs[0].Log)
	}
	if id, idx, ok := back.JobID(); !ok || id != 9 || idx != 3 {
		t.Errorf("JobID() = %d, %d, %v", id, idx, ok)
	}
}

// A JOB_FINISH carries what bacct prints; FinishedJob reads it back.
func TestJobFinishFromContext(t *testing.T) {
	job := testJob()
	job.State, job.EndTime = api.StateExit, t0+100
	_, acct := Render(&api.Event{Time: (t0 + 100) * 1e9, JobStatus: &api.EvJobStatus{
		JobID: 9, State: api.StateExit, ExitStatus: 2 << 8, TermReason: "TERM_RUNLIMIT", RunCount: 1,
		Usage: &api.Usage{CPUTime: 10, UTime: 8, STime: 2, MaxMem: 5000, MaxSwap: 6000, AvgMem: 4000, RunTime: 94},
	}}, job)
	if len(acct) != 1 {
		t.Fatalf("%d acct records", len(acct))
	}
	r, err := ParseRecord(acct[0].Format())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r, acct[0]) {
		t.Errorf("round trip:\n got %#v\nwant %#v", r.Log, acct[0].Log)
	}
	f := r.Log.(*JobFinish)
	if f.StartTime != t0+5 || f.SubmitTime != t0 || f.UserName != "bob" || f.UserID != 1002 || f.Queue != "short" ||
		strings.Join(f.ExecHosts, ",") != "n1,n1,n2" || f.HostFactor != 12.5 || f.ExitInfo != 5 ||
		f.RunLimit != 3600 || f.App != "a1" || f.PostExecCmd != "cleanup" || f.RunTime != 94 ||
		f.MaxRMem != 5000 || f.MaxRSwap != 6000 || f.AvgMem != 4000 || f.NumProcessors != 3 {
		t.Errorf("JOB_FINISH %+v", f)
	}
	j := FinishedJob(r.Time, f)
	want := &api.JobRecord{
		JobID: 9, User: "bob", State: api.StateExit, Queue: "short", FromHost: "login1",
		ExecHosts: []*api.ExecHost{{Host: "n1", Slots: 2}, {Host: "n2", Slots: 1}}, JobName: "sim",
		SubmitTime: t0, StartTime: t0 + 5, DispatchTime: t0 + 5, EndTime: t0 + 100,
		EffectiveResReq: job.EffectiveResReq, ExitStatus: 512, TermReason: "TERM_RUNLIMIT",
		NumSlots: 3, UserGroup: "g1",
		Usage: &api.Usage{CPUTime: 10, UTime: 8, STime: 2, MaxMem: 5000, MaxSwap: 6000, AvgMem: 4000, RunTime: 94},
		Spec: &api.JobSpec{Command: "sim -n 4", JobName: "sim", MinProcs: 3, MaxProcs: 3, OutFile: "/o",
			ResReq: []string{"rusage[mem=100]"}, SubCwd: "/w", FromHost: "login1", App: "a1", PostExec: "cleanup",
			UserGroup: "g1", Project: "p1", Limits: &api.Limits{Run: 3600}},
	}
	if !reflect.DeepEqual(j, want) {
		t.Errorf("FinishedJob:\n got %+v\nwant %+v\nspec %+v\nwant %+v", j, want, j.Spec, want.Spec)
	}
}

func TestTermCodes(t *testing.T) {
	for code, name := range map[int64]string{1: "TERM_PREEMPT", 5: "TERM_RUNLIMIT", 8: "TERM_FORCE_OWNER",
		10: "TERM_REQUEUE_OWNER", 12: "TERM_CPULIMIT", 14: "TERM_OWNER", 15: "TERM_ADMIN", 16: "TERM_MEMLIMIT",
		25: "TERM_CWD_NOTEXIST", 34: "TERM_RC"} {
		if TermName(code) != name || TermCode(name) != code {
			t.Errorf("code %d: TermName %q, TermCode(%s) = %d", code, TermName(code), name, TermCode(name))
		}
	}
	if TermName(0) != "" || TermName(-1) != "" || TermName(99) != "" || TermCode("TERM_NOPE") != 0 || TermCode("") != 0 {
		t.Error("unknown codes and keywords must map to TERM_UNKNOWN / \"\"")
	}
}

func TestFormatIndexList(t *testing.T) {
	for in, want := range map[string]string{"1 2 3 7 9 10": "1-3,7,9-10", "5": "5", "": "", "3 1 2 2": "1-3"} {
		var idx []int32
		for _, f := range strings.Fields(in) {
			n, _ := strconv.Atoi(f)
			idx = append(idx, int32(n))
		}
		if got := FormatIndexList(idx); got != want {
			t.Errorf("FormatIndexList(%v) = %q, want %q", idx, got, want)
		}
	}
}

// A zero core limit (bsub -C 0) is 0 in lsb.events' rLimits, where -1 is no
// limit, and reads back as one.
func TestZeroCoreLimit(t *testing.T) {
	r := rlimitsOf(&api.Limits{CoreZero: true, Mem: 100})
	if r[RlimitCore] != 0 || r[RlimitRSS] != 100 || r[RlimitStack] != -1 {
		t.Errorf("rLimits %v", r)
	}
	if l := limitsOf(r, SubRlimitUnitIsKB, nil); l == nil || !l.CoreZero || l.Core != 0 || l.Mem != 100 {
		t.Errorf("read back %+v", l)
	}
	if l := limitsOf(rlimitsOf(&api.Limits{Mem: 100}), SubRlimitUnitIsKB, nil); l.CoreZero {
		t.Errorf("no core limit read back as zero: %+v", l)
	}
}
