package eventlog

import (
	"regexp"
	"strings"
	"testing"

	"github.com/basalt-lsf/basalt/api"
)

// Records in the shapes real LSF versions write, built from their
// documentation: an IBM LSF 9.13 JOB_NEW (its fields after userPriority are
// IBM's own), an IBM LSF 10.1 lsb.acct JOB_FINISH with every documented
// field of lsb.acct(5), and OpenLava lsb.events records (lsb.events(5)).

func TestRealWorldIBMJobNew(t *testing.T) {
	l := line(`"JOB_NEW" "9.13" 1495000000 101 506 33554435 1 1495000000 0 0 -65535 0 0 "userA"`, minus11,
		`"" 116.10 18 "normal" "" "hpcm" "/data/userA/run1" "" "" "" "" "/home/userA" "1495000000.101"`,
		`0 "" "" "run1" "touch a; sleep 30; touch b" 0 "" "default" 1 "X86_64" ""`,
		`"" "" 5136 0 "" "" "" -1 -1 -1 64 "" "" -1 "" 0 -1 "" 0 0 0 "" -1 "" -1 "" "/data/userA/run1" "" "" "" 0 -1 0 "" "" 0 ""`)
	r, err := ParseRecord(l)
	if err != nil {
		t.Fatal(err)
	}
	n := r.Log.(*JobNew)
	if n.JobID != 101 || n.UserID != 506 || n.UserName != "userA" || n.HostFactor != 116.1 ||
		n.Umask != 18 || n.Queue != "normal" || n.FromHost != "hpcm" || n.Cwd != "/data/userA/run1" ||
		n.SubHomeDir != "/home/userA" || n.JobName != "run1" || n.Command != "touch a; sleep 30; touch b" ||
		n.ProjectName != "default" || n.SchedHostType != "X86_64" || n.Options2 != 5136 || n.UserPriority != -1 ||
		n.SigValue != -65535 {
		t.Errorf("parsed %+v", n)
	}
	// What bhist builds from it.
	h := NewHistory(Filter{})
	h.Add(r, false)
	got := h.Result()
	if len(got) != 1 {
		t.Fatalf("%d histories, want 1", len(got))
	}
	j := got[0].Job
	if j.JobName != "run1" || j.User != "userA" || j.Spec.Project != "default" || j.Spec.SubCwd != "/data/userA/run1" ||
		j.Spec.Command != "touch a; sleep 30; touch b" || len(j.Spec.Queues) != 1 || j.State != api.StatePend {
		t.Errorf("history job %+v spec %+v", j, j.Spec)
	}
}

func TestRealWorldIBMJobFinish(t *testing.T) {
	// Field by field as IBM LSF 10.1's lsb.acct documents JOB_FINISH; a
	// job that exited 255 (wait status 65280) on one host.
	l := line(`"JOB_FINISH" "10.1" 1527300900 7610 1000 33554438 1 1527300000 0 0 1527300060`,
		`"lsfadmin" "normal" "" "" "" "master.example.com" "" "" "" "" "10/1527300000.7610"`,
		`1 "pac" 1 "pac.example.com" 32 60.0 "" "sleep 1000"`,
		`-1.000000 -1.000000 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1`,
		`"" "default" 65280 1 "" "" 0 2048 0 "" "" "" "" 0 "" 0 "" -1 "/lsfadmin" "" "" "" -1 "" ""`,
		`5136 "" 1527300060 "" ""`,
		`2 1032 "0" 1033 "0" 0 0 0 2048 "select[type == any] order[r15s:pg] " "" -1 "" -1 0 "" 0 0 ""`,
		`840 "" 0 "" 0.000000 0.00 0.00 0.00 0.00 1 "pac.example.com" -1 0 0 0`)
	r, err := ParseRecord(l)
	if err != nil {
		t.Fatal(err)
	}
	f := r.Log.(*JobFinish)
	if f.JobID != 7610 || f.JStatus != 32 || f.HostFactor != 60 || f.ExitStatus != 65280 || f.MaxRMem != 2048 ||
		f.JobFile != "10/1527300000.7610" || len(f.AskedHosts) != 1 || len(f.ExecHosts) != 1 ||
		f.Options2 != 5136 || f.WarningTime != -1 || f.ChargedSAAP != "/lsfadmin" || f.RuntimeEstimation != -1 ||
		f.LastResizeTime != 1527300060 || len(f.SubmitExt) != 2 || f.SubmitExt[0].Key != "1032" ||
		f.AvgMem != 2048 || f.EffectiveResReq != "select[type == any] order[r15s:pg] " || f.SrcJobID != -1 ||
		f.RunTime != 840 || len(f.AllocSlots) != 1 || f.IneligiblePendTime != -1 || f.Rusage.UTime != -1 {
		t.Errorf("parsed %+v", f)
	}
	j := FinishedJob(r.Time, f)
	if j.State != api.StateExit || j.ExitStatus != 65280 || j.EndTime != 1527300900 || j.StartTime != 1527300060 ||
		j.JobName != "sleep 1000" || j.Usage.MaxMem != 2048 || j.Usage.RunTime != 840 || j.Usage.UTime != 0 ||
		len(j.ExecHosts) != 1 || j.ExecHosts[0].Host != "pac.example.com" || j.Spec.Project != "default" {
		t.Errorf("FinishedJob = %+v usage %+v", j, j.Usage)
	}
}

func TestRealWorldOpenLavaEvents(t *testing.T) {
	lines := []string{
		// lsb.log.c writeJobNew for "bsub -q normal -J hello sleep 60".
		line(`"JOB_NEW" "2.0" 1400000000 55 500 3 1 1400000000 0 0 0 0 0 "olu"`, minus11,
			`""   1.00 18 "normal" "" "ol1" "/home/olu" "" "" "" "" "/home/olu" "1400000000.55" 0 "" ""`,
			`"hello" "sleep 60" 0 "" "" 1 "linux" "" 0 0 "" "" "" 0`),
		`"JOB_START" "2.0" 1400000005 55 4 0 0 1.0 2 "ol2" "ol2" "" "" 0 0`,
		`"JOB_START_ACCEPT" "2.0" 1400000006 55 7001 7001 0`,
		`"JOB_EXECUTE" "2.0" 1400000006 55 500 7001 "/home/olu" "/home/olu" "olu" 7001 0`,
		line(`"JOB_STATUS" "2.0" 1400000066 55 64 0 0 0.0200 1400000066 1`,
			`0.010000 0.010000 1500 0 0 0 0 200 0 0 0 8 0 0 0 0 20 2 0 0 0`),
		`"JOB_STATUS" "2.0" 1400000067 55 192 0 0 0.0200 1400000066 0 0 0`,
	}
	h := NewHistory(Filter{Jobs: []*api.JobRef{{JobID: 55}}})
	for _, l := range lines {
		r, err := ParseRecord(l)
		if err != nil {
			t.Fatalf("ParseRecord(%s): %v", l, err)
		}
		h.Add(r, false)
	}
	res := h.Result()
	if len(res) != 1 {
		t.Fatalf("%d histories", len(res))
	}
	j := res[0].Job
	if j.State != api.StateDone || j.JobPID != 7001 || j.ExecHome != "/home/olu" || len(j.ExecHosts) != 1 ||
		j.ExecHosts[0].Slots != 2 || j.Usage == nil || j.Usage.MaxMem != 1500 || j.Usage.CPUTime != 0.02 ||
		j.EndTime != 1400000066 || j.StartTime != 1400000005 {
		t.Errorf("job %+v usage %+v", j, j.Usage)
	}
	var kinds []string
	for _, e := range res[0].Events {
		kinds = append(kinds, e.Kind)
	}
	if got := strings.Join(kinds, " "); got != "JOB_NEW JOB_START JOB_START_ACCEPT JOB_EXECUTE JOB_STATUS POST_DONE" {
		t.Errorf("events %s", got)
	}
	if done := res[0].Events[4]; done.State != api.StateDone || done.Usage == nil {
		t.Errorf("finish event %+v", done)
	}
}

// fpat splits a record the way the Snakemake LSF plugin's awk does:
// FPAT = "([^ ]+)|(\"[^\"]+\")", fields 1-based.
func fpat(line string) []string {
	re := regexp.MustCompile(`"[^"]+"|[^ ]+`)
	return append([]string{""}, re.FindAllString(line, -1)...)
}

// blahTokens splits a record the way HTCondor BLAH's BLParserLSF does
// (strtoken on ' ', empty tokens dropped), 0-based.
func blahTokens(line string) []string {
	var out []string
	for _, t := range strings.Split(line, " ") {
		if t != "" {
			out = append(out, t)
		}
	}
	return out
}

// The field positions the clients that read lsb.events rely on
// (lsf-clients.md: Snakemake plugin, HTCondor BLAH).
func TestClientFieldPositions(t *testing.T) {
	sub := &api.Event{Time: 1700000000e9, User: "alice", UID: 1001, JobNew: &api.EvJobNew{
		JobID: 314, Queue: "normal", Project: "default", NumProcs: 1, JobName: "Snakemake_rule_a___(uuid-123)",
		Spec: &api.JobSpec{Command: "python run.py", JobName: "Snakemake_rule_a___(uuid-123)", OutFile: "/w/log",
			ErrFile: "/w/log", FromHost: "login1", SubCwd: "/w", SubHome: "/home/alice", Queues: []string{"normal"},
			ResReq: []string{"span[hosts=1]"}},
	}}
	recs, _ := Render(sub, nil)
	newLine := recs[0].Format()
	f := fpat(newLine)
	// awk: $1 == "\"JOB_NEW\"" && $5 == uid && $42 ~ uuid; job ID in $4.
	if f[1] != `"JOB_NEW"` || f[4] != "314" || f[5] != "1001" || !strings.Contains(f[42], "uuid-123") {
		t.Errorf("Snakemake fields: $1=%s $4=%s $5=%s $42=%s\n%s", f[1], f[4], f[5], f[42], newLine)
	}
	b := blahTokens(newLine)
	// BLAH: tbuf[3] job ID, tbuf[41] the job name (blahjob_... / cream_...).
	if b[3] != "314" || !strings.Contains(b[41], "Snakemake_rule_a") {
		t.Errorf("BLAH JOB_NEW tokens: [3]=%s [41]=%s", b[3], b[41])
	}

	job := &Job{ID: 314, User: "alice", UID: 1001, Queue: "normal", Spec: sub.JobNew.Spec, SubmitTime: 1700000000,
		StartTime: 1700000010, ExecHosts: []*api.ExecHost{{Host: "node7", Slots: 2}}, HostFactor: 1}
	start, _ := Render(&api.Event{Time: 1700000010e9, JobStart: &api.EvJobStart{JobID: 314, ExecHosts: job.ExecHosts}}, job)
	b = blahTokens(start[0].Format())
	if b[0] != `"JOB_START"` || b[3] != "314" || b[9] != `"node7"` {
		t.Errorf("BLAH JOB_START tokens %q", b)
	}

	usage := &api.Usage{CPUTime: 3, UTime: 2, STime: 1, MaxMem: 4096}
	job.EndTime = 1700000100
	exit, acct := Render(&api.Event{Time: 1700000100e9, JobStatus: &api.EvJobStatus{
		JobID: 314, State: api.StateExit, ExitStatus: 3 << 8, Usage: usage, RunCount: 1}}, job)
	exitLine := exit[0].Format()
	b = blahTokens(exitLine)
	// BLAH: tbuf[4] status 32, tbuf[29] the exit status after 19 rusage numbers.
	if b[4] != "32" || b[29] != "768" {
		t.Errorf("BLAH JOB_STATUS tokens [4]=%s [29]=%s\n%s", b[4], b[29], exitLine)
	}
	f = fpat(exitLine)
	if f[1] != `"JOB_STATUS"` || f[4] != "314" || f[5] != "32" {
		t.Errorf("Snakemake JOB_STATUS fields $4=%s $5=%s", f[4], f[5])
	}
	if len(acct) != 1 || acct[0].Type != TypeJobFinish {
		t.Errorf("acct records %v", acct)
	}
	done, _ := Render(&api.Event{Time: 1700000101e9, JobStatus: &api.EvJobStatus{
		JobID: 314, State: api.StateDone, PostDone: true, RunCount: 1}}, job)
	if b := blahTokens(done[0].Format()); b[4] != "192" {
		t.Errorf("post-done status token %s, want 192 (DONE|PDONE, what BLAH waits for)", b[4])
	}

	sig, _ := Render(&api.Event{Time: 1700000050e9, User: "alice", UID: 1001, JobSignal: &api.EvJobSignal{JobID: 314, Signal: "KILL", RunCount: 1}}, nil)
	if b := blahTokens(sig[0].Format()); !strings.Contains(b[6], "KILL") {
		t.Errorf("BLAH JOB_SIGNAL token [6]=%s", b[6])
	}
}
