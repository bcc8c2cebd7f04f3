package output

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden with the actual output")

// checkGolden compares got with testdata/<name>.golden (rewritten with
// -update).
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s: output differs from %s\n--- got ---\n%s\n--- want ---\n%s", name, path, got, want)
	}
}

// The fixtures run in a fixed zone so goldens do not depend on the machine.
var (
	zone = time.FixedZone("CET", 3600)
	now  = time.Date(2026, time.March, 31, 15, 0, 0, 0, zone)
)

func at(month time.Month, day, h, m, s int) int64 {
	return time.Date(2026, month, day, h, m, s, 0, zone).Unix()
}

func opts() *Options { return &Options{Now: now} }

// fixtureJobs covers the cases bjobs layouts must get right.
func fixtureJobs() []*api.JobRecord {
	return []*api.JobRecord{
		{ // running serial job
			JobID: 1502, User: "user2", State: api.StateRun, Queue: "normal", FromHost: "hostD",
			ExecHosts: []*api.ExecHost{{Host: "hostB", Slots: 1}}, JobName: "sleep 60",
			SubmitTime: at(3, 31, 14, 3, 0), StartTime: at(3, 31, 14, 3, 5), NumSlots: 1,
			Spec: &api.JobSpec{Command: "sleep 60", SubCwd: "/home/user2/work", SubHome: "/home/user2",
				Limits: &api.Limits{Run: 3600}},
			ExecHome: "/home/user2", ExecCwd: "/home/user2/work",
			Usage: &api.Usage{CPUTime: 1.5, Mem: 6 * 1024, Swap: 240 * 1024, MaxMem: 8 * 1024, AvgMem: 5 * 1024,
				NThreads: 4, PGID: 23106, PIDs: []int32{23106, 23108}, SampledAt: at(3, 31, 14, 4, 0)},
		},
		{ // parallel job on two hosts, long names everywhere
			JobID: 12345678, User: "averyverylonguser", State: api.StateRun, Queue: "verylongqueuename",
			FromHost:  "login-node-01.example.org",
			ExecHosts: []*api.ExecHost{{Host: "hostA", Slots: 4}, {Host: "hostB", Slots: 2}},
			JobName:   "averylongjobname_with_suffix", SubmitTime: at(1, 5, 9, 7, 0), StartTime: at(1, 5, 9, 8, 0),
			NumSlots: 6, Spec: &api.JobSpec{Command: "mpirun ./a.out", JobName: "averylongjobname_with_suffix",
				MinProcs: 6, Project: "proj/x", ResReq: []string{"span[ptile=4]"}},
			Usage: &api.Usage{CPUTime: 3725.25, Mem: 1536 * 1024, Swap: 2048 * 1024, PIDs: []int32{10, 11, 12}},
		},
		{ // pending job with reasons
			JobID: 7678, User: "user1", State: api.StatePend, Queue: "priority", FromHost: "hostD",
			JobName: "verilog", SubmitTime: at(3, 28, 13, 8, 0),
			Spec: &api.JobSpec{Command: "verilog", SubCwd: "/home/user1", SubHome: "/home/user1"},
			PendReasons: []*api.PendReason{
				{Code: 1318, NumHosts: 3, Hosts: []string{"hostA", "hostB", "hostC"}},
				{Code: 1305, NumHosts: 1, Hosts: []string{"hostE"}},
				{Code: 2010, NumHosts: 2, Hosts: []string{"hostF", "hostG"}},
				{Code: 3},
			},
		},
		{ // array element, finished in exit, submitted last year
			JobID: 200, Index: 3, User: "user1", State: api.StateExit, Queue: "normal", FromHost: "hostA",
			ExecHosts: []*api.ExecHost{{Host: "hostC", Slots: 1}}, JobName: "arr[1-10]",
			SubmitTime: time.Date(2025, 12, 31, 23, 59, 0, 0, zone).Unix(), StartTime: at(1, 1, 0, 0, 30),
			EndTime: at(1, 1, 0, 10, 30), ExitStatus: 2 << 8, NumSlots: 1,
			Spec:  &api.JobSpec{Command: "./task.sh", JobName: "arr[1-10]", OutFile: "/tmp/out.%J", Project: "default"},
			Usage: &api.Usage{CPUTime: 0.1, MaxMem: 2048, AvgMem: 1024},
		},
		{ // done job
			JobID: 201, User: "user1", State: api.StateDone, Queue: "short", FromHost: "hostA",
			ExecHosts: []*api.ExecHost{{Host: "hostA", Slots: 1}}, JobName: "echo hi", SubmitTime: at(3, 31, 9, 0, 0),
			StartTime: at(3, 31, 9, 0, 1), EndTime: at(3, 31, 9, 0, 2), NumSlots: 1,
			Spec: &api.JobSpec{Command: "echo hi"},
		},
		{ // user-suspended job
			JobID: 202, User: "user1", State: api.StateUSusp, Queue: "normal", FromHost: "hostA",
			ExecHosts: []*api.ExecHost{{Host: "hostB", Slots: 1}}, JobName: "long", SubmitTime: at(3, 30, 8, 0, 0),
			StartTime: at(3, 30, 8, 1, 0), SuspReasons: 0x2, Spec: &api.JobSpec{Command: "long"},
		},
		{ // system-suspended by load
			JobID: 203, User: "user1", State: api.StateSSusp, Queue: "night", FromHost: "hostA",
			ExecHosts: []*api.ExecHost{{Host: "hostB", Slots: 1}}, JobName: "crunch", SubmitTime: at(3, 30, 8, 0, 0),
			StartTime: at(3, 30, 8, 1, 0), SuspReasons: 0x40, SuspSubreason: 1, Spec: &api.JobSpec{Command: "crunch"},
		},
		{ // held pending job (PSUSP)
			JobID: 204, User: "user1", State: api.StatePSusp, Queue: "normal", FromHost: "hostA",
			JobName: "held", SubmitTime: at(3, 30, 8, 0, 0), Spec: &api.JobSpec{Command: "held", Hold: true},
			PendReasons: []*api.PendReason{{Code: 607}},
		},
	}
}

func render(t *testing.T, f func(*bytes.Buffer) error) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := f(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// mustFormat parses a fixture format; a bad fixture is a bug in the test.
func mustFormat(_ *testing.T, spec string) *Format {
	f, err := ParseFormat(spec, JobFields)
	if err != nil {
		panic(fmt.Sprintf("ParseFormat(%q): %v", spec, err))
	}
	return f
}

func TestJobsGolden(t *testing.T) {
	jobs := fixtureJobs()
	pend := []*api.JobRecord{jobs[2], jobs[7]}
	susp := []*api.JobRecord{jobs[5], jobs[6], jobs[7]}
	wide := &Options{Now: now, Wide: true}
	noheader := &Options{Now: now, NoHeader: true}
	id10 := &Options{Now: now, JobIDWidth: 10}
	tests := []struct {
		name string
		f    func(*bytes.Buffer) error
	}{
		{"bjobs_default", func(b *bytes.Buffer) error { return WriteJobs(b, jobs, opts(), JobsFlags{}) }},
		{"bjobs_w", func(b *bytes.Buffer) error { return WriteJobs(b, jobs, wide, JobsFlags{}) }},
		{"bjobs_W", func(b *bytes.Buffer) error { return WriteJobs(b, jobs, opts(), JobsFlags{W: true}) }},
		{"bjobs_noheader", func(b *bytes.Buffer) error { return WriteJobs(b, jobs[:2], noheader, JobsFlags{}) }},
		{"bjobs_jobid10", func(b *bytes.Buffer) error { return WriteJobs(b, jobs[:2], id10, JobsFlags{}) }},
		{"bjobs_p", func(b *bytes.Buffer) error {
			return WriteJobs(b, pend, opts(), JobsFlags{PendOnly: true, PendReasons: true})
		}},
		{"bjobs_s", func(b *bytes.Buffer) error { return WriteJobs(b, susp, opts(), JobsFlags{SuspReasons: true}) }},
		{"bjobs_l", func(b *bytes.Buffer) error { return WriteJobsLong(b, jobs, opts(), JobsFlags{}) }},
		{"bjobs_lp", func(b *bytes.Buffer) error { return WriteJobsLong(b, pend, opts(), JobsFlags{PendHosts: true}) }},
		{"bjobs_UF", func(b *bytes.Buffer) error {
			return WriteJobsLong(b, jobs[:2], &Options{Now: now, Unformatted: true}, JobsFlags{})
		}},
		{"bjobs_l_term", func(b *bytes.Buffer) error {
			killed := *jobs[3]
			killed.ExitStatus, killed.TermReason = 9, "TERM_RUNLIMIT"
			owner := *jobs[3]
			owner.JobID, owner.ExitStatus, owner.TermReason = 205, 130<<8, "TERM_OWNER"
			return WriteJobsLong(b, []*api.JobRecord{&killed, &owner}, opts(), JobsFlags{})
		}},
		{"bjobs_l_resreq", func(b *bytes.Buffer) error {
			// A pending job shows its combined requirement twice; a running
			// one the requirement it was dispatched with as Effective, long
			// lines wrapped as events are (and whole with -UF), and its
			// thresholds.
			pending := *pend[0]
			pending.CombinedResReq = "select[type == local] order[r15s:pg]"
			running := *jobs[1]
			running.CombinedResReq = "select[(mem>4000) && (type == local)] order[r15s:pg] rusage[mem=4000.00:duration=8h:decay=0] span[hosts=1]"
			running.EffectiveResReq = "select[(mem>4000) && (type == local)] order[r15s:pg] rusage[mem=4000.00:duration=8h:decay=0] span[hosts=1] same[model]"
			running.Thresholds = []*api.Threshold{{Index: "r1m", Sched: 0.5, HasSched: true, Stop: 1.5, HasStop: true},
				{Index: "tmp", Sched: 30, HasSched: true}, {Index: "pg", Stop: 8, HasStop: true}}
			recs := []*api.JobRecord{&pending, &running}
			if err := WriteJobsLong(b, recs, opts(), JobsFlags{}); err != nil {
				return err
			}
			return WriteJobsLong(b, recs[1:], &Options{Now: now, Unformatted: true}, JobsFlags{})
		}},
		{"bjobs_l_memory", func(b *bytes.Buffer) error {
			// Size limits and memory usage scale to the largest unit they
			// reach; file and data limits stay in KB.
			j := *jobs[1]
			sp := *j.Spec
			sp.Limits = &api.Limits{Mem: 49152 << 10, Swap: 1536, Stack: 512, File: 2048, Process: 10}
			j.Spec = &sp
			u := *j.Usage
			u.MaxMem, u.AvgMem = 1363149, 997<<10
			j.Usage = &u
			return WriteJobsLong(b, []*api.JobRecord{&j}, opts(), JobsFlags{})
		}},
		{"bjobs_l_year", func(b *bytes.Buffer) error {
			return WriteJobsLong(b, jobs[4:5], &Options{Now: now, DisplayYear: true}, JobsFlags{})
		}},
		{"bjobs_o", func(b *bytes.Buffer) error {
			return WriteJobsCustom(b, jobs, mustFormat(t, "jobid stat user queue exec_host job_name"), opts())
		}},
		{"bjobs_o_widths", func(b *bytes.Buffer) error {
			return WriteJobsCustom(b, jobs, mustFormat(t, "id:-8 stat:5 name:10 queue: exit_code:4 nexec_host slots"), opts())
		}},
		{"bjobs_o_delimiter", func(b *bytes.Buffer) error {
			return WriteJobsCustom(b, jobs, mustFormat(t, "jobid stat start_time delimiter='|'"), opts())
		}},
		{"bjobs_o_noheader", func(b *bytes.Buffer) error {
			return WriteJobsCustom(b, jobs, mustFormat(t, "jobid stat"), noheader)
		}},
		{"bjobs_o_usage", func(b *bytes.Buffer) error {
			return WriteJobsCustom(b, jobs[:2], mustFormat(t, "id cpu_used run_time mem max_mem::MB swap::S memlimit time_left finish_time %complete pids"), opts())
		}},
		{"bjobs_o_hms", func(b *bytes.Buffer) error {
			return WriteJobsCustom(b, jobs[:2], mustFormat(t, "id cpu_used run_time time_left"), &Options{Now: now, HMS: true})
		}},
		{"bjobs_o_reasons", func(b *bytes.Buffer) error {
			killed := *jobs[3]
			killed.TermReason = "TERM_OWNER"
			recs := []*api.JobRecord{jobs[0], jobs[2], &killed, jobs[7]}
			return WriteJobsCustom(b, recs, mustFormat(t, "id pend_reason exit_reason sub_cwd pend_time alloc_slot delimiter='|'"), opts())
		}},
		{"bjobs_json", func(b *bytes.Buffer) error {
			return WriteJobsJSON(b, jobs, mustFormat(t, "jobid stat user queue project exit_code exec_host submit_time proj_name output_file srcluster"), nil, opts())
		}},
		{"bjobs_WL_WP_WF", func(b *bytes.Buffer) error {
			// A run limit (L), an estimate not reached (E) and one
			// exceeded (X, then measured against the run limit); pending
			// and finished jobs, and a job with neither, print "-" but a
			// finished job's FINISH_TIME.
			est := *jobs[0]
			sp := *est.Spec
			sp.Limits = &api.Limits{RunEstimate: 7200}
			est.Spec, est.JobID = &sp, 1600
			over := *jobs[0]
			sp2 := *over.Spec
			sp2.Limits = &api.Limits{Run: 7200, RunEstimate: 600}
			over.Spec, over.JobID = &sp2, 1601
			recs := []*api.JobRecord{jobs[0], &est, &over, jobs[1], jobs[2], jobs[3]}
			if err := WriteJobs(b, recs, opts(), JobsFlags{WL: true}); err != nil {
				return err
			}
			if err := WriteJobs(b, recs, opts(), JobsFlags{WP: true}); err != nil {
				return err
			}
			return WriteJobs(b, recs, opts(), JobsFlags{WL: true, WP: true, WF: true})
		}},
		{"bjobs_o_lsf101_fields", func(b *bytes.Buffer) error {
			// Fields of LSF 10.1's list Basalt has no data for print "-"
			// at their recommended widths; ask_hosts, esub and
			// estimated_run_time come from the submission.
			j := *jobs[0]
			sp := *j.Spec
			sp.AskedHosts, sp.EsubParams = []string{"hostA", "hostB"}, "myesub"
			sp.Limits = &api.Limits{Run: 3600, RunEstimate: 600}
			j.Spec = &sp
			return WriteJobsCustom(b, []*api.JobRecord{&j, jobs[2]}, mustFormat(t, "id: ependtime: ipendtime: pendstate: ask_hosts: esub: ertime: rsvid:8 gpu_num: cpu_efficiency: plimit: energy: gpfsio:"), opts())
		}},
		{"bjobs_json_lsf101_fields", func(b *bytes.Buffer) error {
			return WriteJobsJSON(b, jobs[:1], mustFormat(t, "jobid stat ependtime ipendtime effective_plimit plimit_remain kill_reason hrusage"), nil, opts())
		}},
		{"bjobs_json_notfound", func(b *bytes.Buffer) error {
			return WriteJobsJSON(b, jobs[4:5], mustFormat(t, "id stat"), []NotFound{{JobID: "99", Error: "Job <99> is not found"}}, opts())
		}},
		{"bjobs_json_empty", func(b *bytes.Buffer) error {
			return WriteJobsJSON(b, nil, mustFormat(t, "id stat"), nil, opts())
		}},
		{"bjobs_A", func(b *bytes.Buffer) error {
			arr := []*api.JobRecord{
				{JobID: 300, User: "user1", JobName: "big", ArraySpec: "[1-4]"},
				{JobID: 300, Index: 1, User: "user1", State: api.StateDone, JobName: "big[1-4]"},
				{JobID: 300, Index: 2, User: "user1", State: api.StateRun, JobName: "big[1-4]"},
				{JobID: 300, Index: 3, User: "user1", State: api.StatePend, JobName: "big[1-4]"},
				{JobID: 300, Index: 4, User: "user1", State: api.StateExit, JobName: "big[1-4]"},
				{JobID: 301, Index: 1, User: "user2", State: api.StatePSusp, JobName: "other[1]"},
			}
			return WriteArraySummary(b, arr, opts())
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkGolden(t, tt.name, render(t, tt.f)) })
	}
}

// TestNoJobsNoHeader: an empty list prints nothing at all (the command
// prints "No unfinished job found" to stderr).
func TestNoJobsNoHeader(t *testing.T) {
	for name, f := range map[string]func(*bytes.Buffer) error{
		"default": func(b *bytes.Buffer) error { return WriteJobs(b, nil, opts(), JobsFlags{}) },
		"long":    func(b *bytes.Buffer) error { return WriteJobsLong(b, nil, opts(), JobsFlags{}) },
		"array":   func(b *bytes.Buffer) error { return WriteArraySummary(b, nil, opts()) },
	} {
		if got := render(t, f); len(got) != 0 {
			t.Errorf("%s: got %q, want nothing", name, got)
		}
	}
}
