package eventlog

import (
	"reflect"
	"strings"
	"testing"
)

// line joins fields with one blank: the expected record lines below are
// written field by field, in LSF's documented order.
func line(fields ...string) string { return strings.Join(fields, " ") }

const minus11 = "-1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1"

func lims() [NumRlimits]int64 {
	var r [NumRlimits]int64
	for i := range r {
		r[i] = -1
	}
	return r
}

// goldenRecords is one record of every type Basalt writes, with the line
// it must produce. Together with TestGoldenLines they pin every field
// order of layout.go.
var goldenRecords = []struct {
	name string
	rec  *Record
	want string
}{
	{
		name: "JOB_NEW 10.1",
		rec: &Record{Type: TypeJobNew, Version: "10.1", Time: 1700000000, Log: &JobNew{
			JobID: 42, UserID: 1001, Options: SubJobName | SubQueue | SubProjectName | SubPostExec | SubHost,
			NumProcessors: 2, SubmitTime: 1700000000, UserName: "alice", RLimits: lims(),
			HostFactor: 1, Umask: 18, Queue: "normal", ResReq: "span[hosts=1]", FromHost: "hostA",
			Cwd: "/home/alice/w", SubHomeDir: "/home/alice", JobFile: "1700000000.42",
			AskedHosts: []string{"h1", "h2"}, PreExecCmd: "pre",
			JobName: "myjob", Command: `echo "hi"`, MailUser: "", ProjectName: "proj",
			MaxNumProcessors: 4, UserGroup: "grp", Options2: Sub2JobPriority, UserPriority: 5,
			XFiles: []XFile{{SubFn: "in.dat", ExecFn: "in.dat", Options: XFSub2Exec}},
			Ext:    []KV{{"app", "fluent"}},
		}},
		want: line(`"JOB_NEW" "10.1" 1700000000`,
			"42 1001", "1107296263", "2 1700000000 0 0 0 0 0", `"alice"`, minus11,
			`""   1.00 18 "normal" "span[hosts=1]" "hostA" "/home/alice/w" "" "" "" ""`,
			`"/home/alice" "1700000000.42" 2 "h1" "h2" "" "pre"`, // no postExecCmd in the IBM layout
			`"myjob" "echo ""hi""" 1 "in.dat" "in.dat" 1 "" "proj" 4 "" ""`,
			`"grp" "" 512 0 "" "" "" 5`,
			`"BASALT" 1 "app" "fluent"`),
	},
	{
		name: "JOB_NEW OpenLava 2.2",
		rec: &Record{Type: TypeJobNew, Version: "2.2", Time: 5, Log: &JobNew{
			JobID: 7, UserID: 500, Options: SubPostExec | SubInteractive, NumProcessors: 1,
			SubmitTime: 5, UserName: "bob", RLimits: lims(), HostFactor: 2.5, Queue: "q",
			FromHost: "h", JobFile: "5.7", PostExecCmd: "post", Command: "ls", NiosPort: 999,
			MaxNumProcessors: 1, Options2: Sub2BsubBlock, JobDesc: "desc",
		}},
		want: line(`"JOB_NEW" "2.2" 5`, "7 500", "1140850688", "1 5 0 0 0 0 0", `"bob"`, minus11,
			`""   2.50 0 "q" "" "h" "" "" "" "" "" "" "5.7" 0 "" ""`,
			`"post"`,                      // OpenLava: postExecCmd after preExecCmd (SUB_POST_EXEC)
			`"" "ls" 0 "" "" 999 1 "" ""`, // niosPort before maxNumProcessors (SUB_INTERACTIVE)
			`4 0 999`,                     // options2 idx, niosPort again (SUB2_BSUB_BLOCK)
			`"" "" "" 0 "desc"`),
	},
	{
		name: "JOB_START 10.1",
		rec: &Record{Type: TypeJobStart, Version: "10.1", Time: 6, Log: &JobStart{
			JobID: 42, JStatus: 4, HostFactor: 60, ExecHosts: []string{"hA", "hA", "hB"},
			UserGroup: "grp", Idx: 3, Ext: []KV{{"execRusage", "rusage[mem=10]"}},
		}},
		want: line(`"JOB_START" "10.1" 6`, `42 4 0 0 60.0 3 "hA" "hA" "hB" "" "" 0`,
			`"grp" 3 "" 0 0 "BASALT" 1 "execRusage" "rusage[mem=10]"`),
	},
	{
		name: "JOB_START OpenLava",
		rec: &Record{Type: TypeJobStart, Version: "2.2", Time: 6, Log: &JobStart{
			JobID: 42, JStatus: 4, JobPID: 11, JobPGID: 11, HostFactor: 1, ExecHosts: []string{"hA"},
			QueuePreCmd: "qpre", JFlags: 2, Idx: 0, EffectiveResReq: "select[type==any]",
		}},
		want: `"JOB_START" "2.2" 6 42 4 11 11 1.0 1 "hA" "qpre" "" 2 0 "select[type==any]"`,
	},
	{
		name: "JOB_START_ACCEPT",
		rec:  &Record{Type: TypeJobStartAccept, Version: "10.1", Time: 7, Log: &JobStartAccept{JobID: 42, JobPID: 4242, JobPGID: 4240, Idx: 3}},
		want: `"JOB_START_ACCEPT" "10.1" 7 42 4242 4240 3`,
	},
	{
		name: "JOB_EXECUTE",
		rec: &Record{Type: TypeJobExecute, Version: "10.1", Time: 7, Log: &JobExecute{
			JobID: 42, ExecUID: 1001, JobPGID: 4240, ExecCwd: "/w", ExecHome: "/home/alice",
			ExecUsername: "alice", JobPID: 4242, Idx: 3,
		}},
		want: `"JOB_EXECUTE" "10.1" 7 42 1001 4240 "/w" "/home/alice" "alice" 4242 3`,
	},
	{
		name: "JOB_STATUS running",
		rec:  &Record{Type: TypeJobStatus, Version: "10.1", Time: 8, Log: &JobStatus{JobID: 42, JStatus: 16, Reason: 2, Idx: 3}},
		want: `"JOB_STATUS" "10.1" 8 42 16 2 0 0.0000 0 0 0 3 0 0 0 0`,
	},
	{
		name: "JOB_STATUS exit with rusage",
		rec: &Record{Type: TypeJobStatus, Version: "10.1", Time: 9, Log: &JobStatus{
			JobID: 42, JStatus: 32, CPUTime: 1.5, EndTime: 9, ExitStatus: 256, Idx: 0, ExitInfo: 14,
			Rusage: &Rusage{UTime: 1.25, STime: 0.25, MaxRSS: 2048, IXRSS: -1, ISMRSS: -1, IDRSS: -1,
				ISRSS: -1, MinFlt: 10, MajFlt: 1, NSwap: -1, InBlock: 3, OuBlock: 4, IOCh: -1,
				MsgSnd: -1, MsgRcv: -1, NSignals: -1, NVCSW: 5, NIVCSW: 6, ExUTime: -1},
			HostRusage: []HostRusage{{Host: "hA", Mem: 2048, Swap: 4096, UTime: 1, STime: 0}},
			MaxMem:     2048, AvgMem: 1024,
		}},
		want: line(`"JOB_STATUS" "10.1" 9 42 32 0 0 1.5000 9 1`,
			`1.250000 0.250000 2048 -1 -1 -1 -1 10 1 -1 3 4 -1 -1 -1 -1 5 6 -1`,
			`256 0`,
			`14 1 "hA" 2048 4096 1 0 2048 1024`),
	},
	{
		name: "JOB_STATUS OpenLava",
		rec:  &Record{Type: TypeJobStatus, Version: "2.2", Time: 8, Log: &JobStatus{JobID: 1, JStatus: 192, Idx: 0, MaxMem: 5, AvgMem: 4}},
		want: `"JOB_STATUS" "2.2" 8 1 192 0 0 0.0000 0 0 0 0 5 4`,
	},
	{
		name: "JOB_SWITCH",
		rec:  &Record{Type: TypeJobSwitch, Version: "10.1", Time: 10, Log: &JobSwitch{UserID: 1001, JobID: 42, Queue: "short", Idx: 0, UserName: "alice"}},
		want: `"JOB_SWITCH" "10.1" 10 1001 42 "short" 0 "alice"`,
	},
	{
		name: "JOB_MOVE",
		rec:  &Record{Type: TypeJobMove, Version: "10.1", Time: 11, Log: &JobMove{UserID: 0, JobID: 42, Position: 2, Base: ToBottom, Idx: 5, UserName: "root"}},
		want: `"JOB_MOVE" "10.1" 11 0 42 2 2 5 "root"`,
	},
	{
		name: "QUEUE_CTRL",
		rec:  &Record{Type: TypeQueueCtrl, Version: "10.1", Time: 12, Log: &QueueCtrl{OpCode: 2, Queue: "normal", UserID: 0, UserName: "root", Message: "maintenance"}},
		want: `"QUEUE_CTRL" "10.1" 12 2 "normal" 0 "root" "maintenance"`,
	},
	{
		name: "HOST_CTRL",
		rec:  &Record{Type: TypeHostCtrl, Version: "10.1", Time: 13, Log: &HostCtrl{OpCode: 1, Host: "hA", UserID: 0, UserName: "root"}},
		want: `"HOST_CTRL" "10.1" 13 1 "hA" 0 "root" ""`,
	},
	{
		name: "MBD_START",
		rec:  &Record{Type: TypeMbdStart, Version: "10.1", Time: 14, Log: &MbdStart{Master: "m1", Cluster: "c1", NumHosts: 3, NumQueues: 4}},
		want: `"MBD_START" "10.1" 14 "m1" "c1" 3 4`,
	},
	{
		name: "MBD_DIE",
		rec:  &Record{Type: TypeMbdDie, Version: "10.1", Time: 15, Log: &MbdDie{Master: "m1", NumRemoveJobs: 0, ExitCode: 203, Message: "bye"}},
		want: `"MBD_DIE" "10.1" 15 "m1" 0 203 "bye"`,
	},
	{
		name: "JOB_SIGNAL",
		rec:  &Record{Type: TypeJobSignal, Version: "10.1", Time: 16, Log: &JobSignal{JobID: 42, UserID: 1001, RunCount: 1, SignalSymbol: "KILL", Idx: 0, UserName: "alice"}},
		want: `"JOB_SIGNAL" "10.1" 16 42 1001 1 "KILL" 0 "alice"`,
	},
	{
		name: "JOB_REQUEUE",
		rec:  &Record{Type: TypeJobRequeue, Version: "10.1", Time: 17, Log: &JobRequeue{JobID: 42, Idx: 2}},
		want: `"JOB_REQUEUE" "10.1" 17 42 2`,
	},
	{
		name: "JOB_CLEAN",
		rec:  &Record{Type: TypeJobClean, Version: "10.1", Time: 18, Log: &JobClean{JobID: 42, Idx: 0}},
		want: `"JOB_CLEAN" "10.1" 18 42 0`,
	},
	{
		name: "JOB_FORCE",
		rec:  &Record{Type: TypeJobForce, Version: "10.1", Time: 19, Log: &JobForce{JobID: 42, UserID: 0, Idx: 0, Options: RunJobOptNoStop, ExecHosts: []string{"hA", "hB"}, UserName: "root"}},
		want: `"JOB_FORCE" "10.1" 19 42 0 0 2 2 "hA" "hB" "root"`,
	},
	{
		name: "JOB_FORWARD",
		rec:  &Record{Type: TypeJobForward, Version: "10.1", Time: 19, Log: &JobForward{JobID: 42, Cluster: "east", Idx: 3}},
		want: `"JOB_FORWARD" "10.1" 19 42 0 "east" 3 0`,
	},
	{
		name: "LOG_SWITCH",
		rec:  &Record{Type: TypeLogSwitch, Version: "10.1", Time: 20, Log: &LogSwitch{LastJobID: 4711}},
		want: `"LOG_SWITCH" "10.1" 20 4711`,
	},
	{
		name: "JOB_MODIFY2",
		rec: &Record{Type: TypeJobModify2, Version: "10.1", Time: 21, Log: &JobModify2{
			JobIDStr: "42[3]", Options: SubQueue | SubJobName | SubOutFile | SubProjectName, Options2: Sub2ModifyCmd,
			UserID: 1001, UserName: "alice", SubmitTime: 1700000000, NumProcessors: 1,
			JobName: "renamed", Queue: "long", RLimits: lims(), OutFile: "/o", Command: "true",
			JobFile: "1700000000.42", FromHost: "hA", Cwd: "/w", ProjectName: "p2",
			MaxNumProcessors: 1, Ext: []KV{{"sla", "gold"}},
		}},
		want: line(`"JOB_MODIFY2" "10.1" 21 "42[3]"`, "33554451 2 0 1001", `"alice"`,
			"1700000000 0 1 0 0 0 0", `"renamed" "long"`, minus11,
			`"" "/o" "true" "1700000000.42" "hA" "/w" "p2" 0 1 "" 0`,
			`"BASALT" 1 "sla" "gold"`),
	},
}

func TestGoldenLines(t *testing.T) {
	for _, tt := range goldenRecords {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.rec.Format(); got != tt.want {
				t.Errorf("Format():\n got %s\nwant %s", got, tt.want)
			}
			back, err := ParseRecord(tt.want)
			if err != nil {
				t.Fatalf("ParseRecord: %v", err)
			}
			if !reflect.DeepEqual(back, tt.rec) {
				t.Errorf("ParseRecord(golden) =\n %#v\nwant\n %#v", back.Log, tt.rec.Log)
			}
		})
	}
}

// A JOB_FINISH with every IBM field set survives a round trip, and its
// line has the documented shape.
func TestJobFinishRoundTrip(t *testing.T) {
	r := &Record{Type: TypeJobFinish, Version: "10.1", Time: 1700000100, Log: &JobFinish{
		JobID: 42, UserID: 1001, Options: SubQueue, NumProcessors: 2, SubmitTime: 1700000000,
		StartTime: 1700000010, UserName: "alice", Queue: "normal", ResReq: "rusage[mem=1]",
		FromHost: "hA", Cwd: "/w", OutFile: "/o", JobFile: "1700000000.42",
		AskedHosts: []string{"hB"}, ExecHosts: []string{"hB", "hB"}, JStatus: 64, HostFactor: 60,
		JobName: "j", Command: "sleep 1", Rusage: Rusage{UTime: 1, STime: 2, MaxRSS: 3, IXRSS: -1,
			ISMRSS: -1, IDRSS: -1, ISRSS: -1, MinFlt: 4, MajFlt: 5, NSwap: -1, InBlock: 6, OuBlock: 7,
			IOCh: -1, MsgSnd: -1, MsgRcv: -1, NSignals: -1, NVCSW: 8, NIVCSW: 9, ExUTime: -1},
		ProjectName: "default", ExitStatus: 0, MaxNumProcessors: 2, Idx: 0, MaxRMem: 3000,
		MaxRSwap: 4000, RsvID: "r1", SLA: "gold", ExceptMask: 2, AdditionalInfo: "ai", ExitInfo: 5,
		WarningAction: "URG", WarningTime: 30, ChargedSAAP: "/alice", LicenseProject: "lp",
		App: "fluent", PostExecCmd: "post", RuntimeEstimation: 600, JobGroupName: "/g",
		RequeueEValues: "99", Options2: 5136, ResizeNotifyCmd: "rn", LastResizeTime: 1700000011,
		RsvID2: "r2", JobDescription: "d", SubmitExt: []KV{{"1032", "0"}, {"1033", "0"}},
		HostRusage: []HostRusage{{"hB", 1, 2, 3, 4}}, Options3: 1, RunLimit: 3600, AvgMem: 2500,
		EffectiveResReq: "select[type == any] ", SrcCluster: "sc", SrcJobID: -1, DstCluster: "dc",
		DstJobID: -1, ForwardTime: 3, FlowID: "7", AcJobWaitTime: 8, TotalProvisionTime: 9,
		OutDir: "/out", RunTime: 90, SubCwd: "/w", Networks: []Network{{"n1", 2}}, Affinity: "aff",
		SerialJobEnergy: 1.5, CPI: 0.25, GIPS: 1.5, GBS: 2.25, GFLOPS: 3.5,
		AllocSlots: []string{"hB", "hB"}, IneligiblePendTime: -1,
		IndexRanges: []IndexRange{{1, 10, 2}}, RequeueTime: 11,
		GPURusages: []GPURusage{{Host: "hB", KVs: []KV{{"k", "v"}}}}, StorageInfo: []string{"s"},
		Ext: []KV{{"userGroup", "grp"}},
	}}
	got := r.Format()
	wantParts := []string{
		`"JOB_FINISH" "10.1" 1700000100 42 1001 2 2 1700000000 0 0 1700000010 "alice" "normal"`,
		`"rusage[mem=1]" "" "" "hA" "/w" "" "/o" "" "1700000000.42" 1 "hB" 2 "hB" "hB" 64 60.0 "j" "sleep 1"`,
		`1.000000 2.000000 3 -1 -1 -1 -1 4 5 -1 6 7 -1 -1 -1 -1 8 9 -1`,
		`"" "default" 0 2 "" "" 0 3000 4000 "" ""`, // mailUser ... loginShell timeEvent idx
		`"r1" "gold" 2 "ai" 5 "URG" 30 "/alice" "lp" "fluent" "post" 600 "/g" "99" 5136 "rn" 1700000011 "r2" "d"`,
		`2 1032 "0" 1033 "0"`, // submitEXT: integer keys
		`1 "hB" 1 2 3 4 1 3600 2500 "select[type == any] " "sc" -1 "dc" -1 3 "7" 8 9 "/out" 90 "/w"`,
		`1 "n1" 2 "aff" 1.500000 0.25 1.50 2.25 3.50 2 "hB" "hB" -1 1 1 10 2 11 1 "hB" 1 "k" "v" 1 "s" 1 "userGroup" "grp"`,
	}
	if want := strings.Join(wantParts, " "); got != want {
		t.Errorf("Format():\n got %s\nwant %s", got, want)
	}
	back, err := ParseRecord(got)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, r) {
		t.Errorf("round trip:\n got %#v\nwant %#v", back.Log, r.Log)
	}
}

// OpenLava's JOB_FINISH: postExecCmd after preExecCmd, no timeEvent, ends
// after commandSpool.
func TestJobFinishOpenLava(t *testing.T) {
	l := line(`"JOB_FINISH" "2.2" 100 5 500`, "1073741824", "1 50 0 0 60", `"bob" "q" "" "" "pre" "post"`,
		`"h" "/w" "" "" "" "50.5" 0 1 "h" 64 1.0 "" "ls"`,
		`0.500000 0.100000 100 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0`,
		`"" "default" 0 1 "" 0 200 300 "" ""`)
	r, err := ParseRecord(l)
	if err != nil {
		t.Fatal(err)
	}
	f := r.Log.(*JobFinish)
	if f.PreExecCmd != "pre" || f.PostExecCmd != "post" || f.FromHost != "h" || f.JobFile != "50.5" ||
		f.MaxRMem != 200 || f.MaxRSwap != 300 || f.JStatus != 64 || f.Rusage.UTime != 0.5 {
		t.Errorf("parsed %+v", f)
	}
	if got := r.Format(); got != l {
		t.Errorf("re-format:\n got %s\nwant %s", got, l)
	}
	// An older OpenLava record that ends after loginShell.
	short := line(`"JOB_FINISH" "1.0" 100 5 500 0 1 50 0 0 60 "bob" "q" "" "" ""`,
		`"h" "/w" "" "" "" "50.5" 0 0 32 1.0 "" "ls"`,
		`0.500000 0.100000 100 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 "" "" 256 1 ""`)
	r, err = ParseRecord(short)
	if err != nil {
		t.Fatal(err)
	}
	if f := r.Log.(*JobFinish); f.ExitStatus != 256 || f.JStatus != 32 || f.Idx != 0 {
		t.Errorf("parsed %+v", f)
	}
}

// IBM fields in soft parts: a layout mismatch there drops the rest of the
// line, not the record.
func TestSoftPartsTolerateOtherLayouts(t *testing.T) {
	// A JOB_START whose IBM tail holds a string where Basalt expects idx.
	r, err := ParseRecord(`"JOB_START" "9.13" 6 42 4 0 0 1.0 1 "hA" "" "" 0 "grp" "not-a-number" 7`)
	if err != nil {
		t.Fatalf("ParseRecord: %v", err)
	}
	s := r.Log.(*JobStart)
	if s.JobID != 42 || len(s.ExecHosts) != 1 || s.UserGroup != "grp" || s.Idx != 0 {
		t.Errorf("parsed %+v", s)
	}
	// A JOB_NEW of IBM LSF whose fields after userPriority are IBM's, not
	// Basalt's extension list.
	r, err = ParseRecord(line(`"JOB_NEW" "10.1" 1 9 500 3 1 1 0 0 0 0 0 "u"`, minus11,
		`"" 1.00 18 "q" "" "h" "/c" "" "" "" "" "/home/u" "1.9" 0 "" "" "jn" "cmd" 0 "" "default" 1 "X86_64" ""`,
		`"" "" 5136 0 "" "" "" -1 -1 -1 64 "" "" -1`))
	if err != nil {
		t.Fatalf("ParseRecord: %v", err)
	}
	n := r.Log.(*JobNew)
	if n.JobName != "jn" || n.Options2 != 5136 || n.UserPriority != -1 || n.Ext != nil || n.SchedHostType != "X86_64" {
		t.Errorf("parsed %+v", n)
	}
}
