package output

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
)

// TestWrap checks LSF's -l wrapping against a line of real IBM 10.1 output:
// 79 columns, 21-space continuation, text cut mid-word, nothing dropped.
func TestWrap(t *testing.T) {
	tests := []struct {
		in     string
		indent int
		want   string
	}{
		{"short", 21, "short\n"},
		{"", 21, "\n"},
		{
			"Job <54086>, User <test>, Project <default>, Status <DONE>, Queue <normal>, Command <./gpu_burn 120>, Share group charged </test>",
			21,
			"Job <54086>, User <test>, Project <default>, Status <DONE>, Queue <normal>, Com\n" +
				"                     mand <./gpu_burn 120>, Share group charged </test>\n",
		},
		{
			"Mon Oct  1 11:14:05: Started 1 Task(s) on Host(s) <kilenc>, Allocated 1 Slot(s) on Host(s) <kilenc>, Execution Home </home/test>, Execution CWD </home/test/gpu-burn>;",
			21,
			"Mon Oct  1 11:14:05: Started 1 Task(s) on Host(s) <kilenc>, Allocated 1 Slot(s)\n" +
				"                      on Host(s) <kilenc>, Execution Home </home/test>, Executi\n" +
				"                     on CWD </home/test/gpu-burn>;\n",
		},
		{strings.Repeat("x", 79), 21, strings.Repeat("x", 79) + "\n"},
		{strings.Repeat("x", 80), 21, strings.Repeat("x", 79) + "\n" + strings.Repeat(" ", 21) + "x\n"},
	}
	for _, tt := range tests {
		var b strings.Builder
		wrap(&b, tt.in, tt.indent)
		if b.String() != tt.want {
			t.Errorf("wrap(%q):\n%s\nwant:\n%s", tt.in, b.String(), tt.want)
		}
		// Removing "\n"+indent restores the logical line (what clients do).
		joined := strings.TrimSuffix(strings.ReplaceAll(b.String(), "\n"+strings.Repeat(" ", tt.indent), ""), "\n")
		if joined != tt.in {
			t.Errorf("wrap(%q) does not join back: %q", tt.in, joined)
		}
		for _, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
			if len(l) > lineWidth {
				t.Errorf("line of %d columns: %q", len(l), l)
			}
		}
	}
}

func TestTimes(t *testing.T) {
	o := &Options{Now: now}
	tests := []struct {
		name, got, want string
	}{
		{"short", ShortTime(at(3, 5, 9, 7, 3), o), "Mar  5 09:07"},
		{"short two-digit day", ShortTime(at(11, 22, 14, 3, 0), o), "Nov 22 14:03"},
		{"short past year", ShortTime(time.Date(2024, 8, 28, 14, 13, 30, 0, zone).Unix(), o), "Aug 28 14:13 2024"},
		{"short zero", ShortTime(0, o), "-"},
		{"long", LongTime(at(8, 16, 23, 39, 20), o), "Sun Aug 16 23:39:20"},
		{"long past year", LongTime(time.Date(2009, 10, 28, 13, 8, 11, 0, zone).Unix(), o), "Wed Oct 28 13:08:11 2009"},
		{"long display year", LongTime(at(8, 16, 23, 39, 20), &Options{Now: now, DisplayYear: true}), "Sun Aug 16 23:39:20 2026"},
		{"wide", WideTime(at(3, 31, 14, 46, 42), o), "03/31-14:46:42"},
		{"wide zero", WideTime(0, o), "-"},
		{"cpu clock", CPUClock(3725.25), "001:02:05.25"},
		{"cpu clock zero", CPUClock(0), "000:00:00.00"},
		{"hms rounds up", HMS(0.2), "00:00:01"},
		{"hms", HMS(3725), "01:02:05"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}

func TestPendReasonText(t *testing.T) {
	tests := []struct {
		r    api.PendReason
		want string
	}{
		{api.PendReason{Code: 1}, "New job is waiting for scheduling"},
		{api.PendReason{Code: 1305}, "Job slot limit reached"},
		{api.PendReason{Code: 3201, Detail: "slot"}, "Resource (slot) limit defined on user or user group has been reached"},
		{api.PendReason{Code: 4401, Detail: "mem"}, "Resource (mem) limit defined on host and/or host group has been reached"},
		{api.PendReason{Code: 4702}, "The job limit defined on queue has been reached"},
		{api.PendReason{Code: 2001 + 10}, "The available memory (mem) is low"},
		{api.PendReason{Code: 2001 + 11, Detail: "gpu"}, "External load index (gpu) is beyond threshold"},
		{api.PendReason{Code: 2001 + 30}, "External load index is beyond threshold"},
		{api.PendReason{Code: 2301 + 10}, "Queue requirements for reserving resource (mem) not satisfied"},
		{api.PendReason{Code: 2601 + 12, Detail: "licA"}, "Job's requirements for reserving resource (licA) not satisfied"},
		{api.PendReason{Code: 9999}, "Unknown pending reason code: 9999"},
	}
	for _, tt := range tests {
		if got := PendReasonText(&tt.r); got != tt.want {
			t.Errorf("code %d: %q, want %q", tt.r.Code, got, tt.want)
		}
	}
	got := PendReasonLines([]*api.PendReason{{Code: 1305, NumHosts: 3}, {Code: 1303, NumHosts: 1}, {Code: 3}, nil}, false)
	want := " Job slot limit reached: 3 hosts;\n Not enough job slot(s): 1 host;\n Job dependency condition not satisfied;\n"
	if got != want {
		t.Errorf("PendReasonLines = %q, want %q", got, want)
	}
}

func TestSuspReasonLine(t *testing.T) {
	tests := []struct {
		bits, sub int32
		want      string
	}{
		{0x2, 0, " The job was suspended by user;\n"},
		{0x4000, 0, " The job was suspended by LSF admin or root;\n"},
		{0x2 | 0x8, 0, " The job was suspended by user;\n"}, // first in LSF's order wins
		{0x8, 0, " The run windows of the queue are closed;\n"},
		{0x40, 10, " Host load exceeded threshold:  Available memory (mem)\n"},
		{0x20000, 0x10, " MEMLIMIT was reached;\n"},
		{0x200, 0, " STOP_COND is true with current host load;\n"},
		{0, 0, " Unknown suspending reason code: 0\n"},
	}
	for _, tt := range tests {
		if got := SuspReasonLine(tt.bits, tt.sub); got != tt.want {
			t.Errorf("SuspReasonLine(%#x, %d) = %q, want %q", tt.bits, tt.sub, got, tt.want)
		}
	}
}

func TestMemString(t *testing.T) {
	tests := []struct {
		kb   int64
		unit string
		want string
	}{
		{512, "", "512 Kbytes"},
		{2048, "", "2 Mbytes"},
		{1536 * 1024, "", "1.5 Gbytes"},
		{10 * 1024, "G", "0.01G"},
		{10 * 1024, "GB", "0.01G"},
		{2048, "MB", "2.00M"},
		{2048, "K", "2048.00K"},
		{1536 * 1024, "S", "1.5G"},
		{0, "", "0 Kbytes"},
	}
	for _, tt := range tests {
		if got := MemString(tt.kb, tt.unit); got != tt.want {
			t.Errorf("MemString(%d, %q) = %q, want %q", tt.kb, tt.unit, got, tt.want)
		}
	}
}

func TestJobHelpers(t *testing.T) {
	hosts := ExecHostList([]*api.ExecHost{{Host: "a", Slots: 4}, {Host: "b", Slots: 1}, {Host: "a", Slots: 2}, nil, {Host: ""}})
	if strings.Join(hosts, ":") != "6*a:b" {
		t.Errorf("ExecHostList = %v", hosts)
	}
	for _, tt := range []struct {
		status int32
		want   int
	}{{0, 0}, {1 << 8, 1}, {130 << 8, 130}, {9, 137}, {15, 143}} {
		if got := ExitCode(tt.status); got != tt.want {
			t.Errorf("ExitCode(%#x) = %d, want %d", tt.status, got, tt.want)
		}
	}
	for _, tt := range []struct {
		j    api.JobRecord
		want string
	}{
		{api.JobRecord{JobName: "arr[1-10]%2", Index: 3}, "arr[3]"},
		{api.JobRecord{JobName: "arr[1-10]"}, "arr[1-10]"},
		{api.JobRecord{Spec: &api.JobSpec{Command: "#!/bin/bash\n#BSUB -q short\nsleep 1\n"}}, "#!/bin/bash;#BSUB -q short;sleep 1"},
		{api.JobRecord{Spec: &api.JobSpec{JobName: "n"}}, "n"},
	} {
		if got := JobName(&tt.j); got != tt.want {
			t.Errorf("JobName = %q, want %q", got, tt.want)
		}
	}
	for _, tt := range []struct {
		s    api.JobState
		want string
	}{{api.StatePend, "PEND"}, {api.StateDone | api.StatePDone, "DONE"}, {api.StateExit | api.StatePErr, "EXIT"},
		{api.StateRun | api.StateUnkwn, "UNKWN"}, {api.StateWait, "WAIT"}, {api.StateZombi, "ZOMBI"}, {0, "UNKWN"}} {
		if got := Stat(tt.s); got != tt.want {
			t.Errorf("Stat(%#x) = %q, want %q", tt.s, got, tt.want)
		}
	}
	if got := star("averylongjobname", 10); got != "*ngjobname" {
		t.Errorf("star = %q", got)
	}
	if got := jobID(123456789, 7); got != "3456789" {
		t.Errorf("jobID = %q", got)
	}
}

// TestJSONString: LSF's escaping, and the result is valid JSON that decodes
// back to the input (invalid UTF-8 becomes U+FFFD).
func TestJSONString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/tmp/x", `"\/tmp\/x"`},
		{`a"b\c`, `"a\"b\\c"`},
		{"tab\tnl\n\x01", `"tab\tnl\n\u0001"`},
		{"héllo", `"héllo"`},
		{"bad\xff", `"bad\ufffd"`},
	}
	for _, tt := range tests {
		var b strings.Builder
		jsonString(&b, tt.in)
		if b.String() != tt.want {
			t.Errorf("jsonString(%q) = %s, want %s", tt.in, b.String(), tt.want)
		}
		var back string
		if err := json.Unmarshal([]byte(b.String()), &back); err != nil {
			t.Errorf("jsonString(%q) is not valid JSON: %v", tt.in, err)
		} else if back != strings.ToValidUTF8(tt.in, "\ufffd") {
			t.Errorf("jsonString(%q) decodes to %q", tt.in, back)
		}
	}
}

// TestJSONOutputValid: the -json document decodes, with RECORDS keyed by
// headers and every value a string.
func TestJSONOutputValid(t *testing.T) {
	var b strings.Builder
	f := mustFormat(t, "all")
	if err := WriteJobsJSON(&b, fixtureJobs(), f, []NotFound{{JobID: "9", Error: "Job <9> is not found"}}, opts()); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		COMMAND string
		JOBS    int
		RECORDS []map[string]string
	}
	if err := json.Unmarshal([]byte(b.String()), &doc); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, b.String())
	}
	if doc.COMMAND != "bjobs" || doc.JOBS != 9 || len(doc.RECORDS) != 9 {
		t.Fatalf("COMMAND %q JOBS %d records %d", doc.COMMAND, doc.JOBS, len(doc.RECORDS))
	}
	if doc.RECORDS[0]["PROJ_NAME"] != "default" || doc.RECORDS[8]["ERROR"] == "" {
		t.Errorf("records: %v / %v", doc.RECORDS[0], doc.RECORDS[8])
	}
}

// TestAllFieldsAnyRecord: every -o field copes with empty and partial
// records (no spec, no usage, no hosts) in text and JSON.
func TestAllFieldsAnyRecord(t *testing.T) {
	f := mustFormat(t, "all:8")
	recs := append([]*api.JobRecord{{}, {JobID: 1, State: api.StateExit, ExitStatus: -1}, {ExecHosts: []*api.ExecHost{nil, {}}}}, fixtureJobs()...)
	var b strings.Builder
	if err := WriteJobsCustom(&b, recs, f, opts()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != len(recs)+1 {
		t.Fatalf("%d lines for %d records", len(lines), len(recs))
	}
	for _, l := range lines {
		// all:8 pads every column to 8: each line has the same width.
		if len(l) != len(lines[0]) {
			t.Errorf("line width %d, header %d: %q", len(l), len(lines[0]), l)
		}
	}
	b.Reset()
	if err := WriteJobsJSON(&b, recs, f, nil, nil); err != nil {
		t.Fatal(err)
	}
}

func TestCell(t *testing.T) {
	tests := []struct {
		c    Column
		v    string
		want string
	}{
		{Column{Name: "stat"}, "RUN", "RUN"},
		{Column{Name: "stat", Width: 5}, "RUN", "RUN  "},
		{Column{Name: "stat", Width: 5, Right: true}, "RUN", "  RUN"},
		{Column{Name: "queue", Width: 3}, "normal", "nor"},
		{Column{Name: "job_name", Width: 5}, "longname", "*name"},
		{Column{Name: "job_name", Width: 1}, "longname", "*"},
	}
	for _, tt := range tests {
		if got := cell(&tt.c, tt.v); got != tt.want {
			t.Errorf("cell(%+v, %q) = %q, want %q", tt.c, tt.v, got, tt.want)
		}
	}
}

// TestArraySummaryPlainJob: bjobs -A counts a job that is not an array as
// one job in its state.
func TestArraySummaryPlainJob(t *testing.T) {
	var b strings.Builder
	jobs := []*api.JobRecord{{JobID: 7, User: "alice", JobName: "plain", State: api.StateRun}}
	if err := WriteArraySummary(&b, jobs, &Options{}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("output:\n%s", b.String())
	}
	f := strings.Fields(lines[1])
	if len(f) != 11 || f[0] != "7" || f[3] != "1" || f[6] != "1" {
		t.Errorf("plain job summary %q: want NJOBS 1 and RUN 1", lines[1])
	}
}

// TestArraySummaryOfElements: bjobs -A of an array whose elements mbatchd
// sends (each named name[index], with the array's index specification)
// shows the array as name[spec].
func TestArraySummaryOfElements(t *testing.T) {
	var b strings.Builder
	var jobs []*api.JobRecord
	for i, st := range []api.JobState{api.StateRun, api.StateExit, api.StatePend, api.StateDone} {
		jobs = append(jobs, &api.JobRecord{JobID: 24, Index: int32(i + 1), User: "root", JobName: fmt.Sprintf("ar2[%d]", i+1),
			ArraySpec: "[1-4]", State: st})
	}
	if err := WriteArraySummary(&b, jobs, &Options{}); err != nil {
		t.Fatal(err)
	}
	want := arrayHeader + "\n" + "24       ar2[1-4]     root       4    1    1    1    1     0     0     0\n"
	if b.String() != want {
		t.Errorf("got\n%swant\n%s", b.String(), want)
	}
}

// TestMemoryTexts: memory amounts and size limits scale as IBM 10.1 prints
// them (bhist -l of real jobs: "MAX MEM: 1.3 Gbytes", "997 Mbytes",
// "48 Gbytes"; MEMLIMIT "48 G" for a 49152 MB limit).
func TestMemoryTexts(t *testing.T) {
	tests := []struct {
		kb         int64
		mem, limit string
	}{
		{0, "0 Kbytes", "0 K"},
		{512, "512 Kbytes", "512 K"},
		{1024, "1 Mbytes", "1 M"},
		{1536, "1 Mbytes", "1.5 M"},
		{997 * 1024, "997 Mbytes", "997 M"},
		{1 << 20, "1 Gbytes", "1 G"},
		{1363149, "1.3 Gbytes", "1.3 G"},
		{49152 << 10, "48 Gbytes", "48 G"},
		{8000 << 10, "7.8 Gbytes", "7.8 G"},
		{3 << 30, "3 Tbytes", "3 T"},
	}
	for _, tt := range tests {
		if got := memText(tt.kb); got != tt.mem {
			t.Errorf("memText(%d) = %q, want %q", tt.kb, got, tt.mem)
		}
		if got := limitText(tt.kb); got != tt.limit {
			t.Errorf("limitText(%d) = %q, want %q", tt.kb, got, tt.limit)
		}
	}
}

// TestThresholdTableExtra: indices beyond the built-in ones print as
// OpenLava's printThresholds does, checked against a real bjobs -l
// (gc3pie's fixture: "          scratch      xs" over " loadSched 4000.0
// -"): columns as wide as their names (at least 7), unset values as
// "     - ", and a new table once a line would pass 80 columns.
func TestThresholdTableExtra(t *testing.T) {
	ts := []*api.Threshold{{Index: "scratch", Sched: 4000, HasSched: true}}
	for _, n := range []string{"xs", "s", "m", "l", "xl", "sp", "verylongindex", "z"} {
		ts = append(ts, &api.Threshold{Index: n})
	}
	ts[8].Stop, ts[8].HasStop = 2.5, true
	got := thresholdTable(ts)
	_, extra, _ := strings.Cut(got, " loadStop ")
	_, extra, _ = strings.Cut(extra, "\n")
	want := "\n" +
		"          scratch      xs       s       m       l      xl      sp verylongindex \n" +
		" loadSched 4000.0      -       -       -       -       -       -             -  \n" +
		" loadStop      -       -       -       -       -       -       -             -  \n" +
		"\n" +
		"                z \n" +
		" loadSched     -  \n" +
		" loadStop     2.5 \n"
	if extra != want {
		t.Errorf("extra indices:\n%q\nwant\n%q", extra, want)
	}
}
