package eventlog

import (
	"strings"
	"testing"

	"github.com/basalt-lsf/basalt/api"
)

// A checkpoint's steps become JOB_SIGACT (and CHKPNT for the outcome)
// lines in OpenLava's field order, read back with bhist's wording; a
// bmig becomes MIG.
func TestChkpntRecords(t *testing.T) {
	job := &Job{State: api.StateRun}
	for _, tt := range []struct {
		ev    *api.EvJobChkpnt
		lines []string
		text  string
	}{
		{&api.EvJobChkpnt{JobID: 9, Phase: api.ChkpntInitiated, ActPID: 321, Kill: true, Period: 600},
			[]string{`"JOB_SIGACT" "10.1" 1700000000 9 600 321 4 0 1 1 "CHKPNT" 0`}, "Checkpoint initiated (actpid 321);"},
		{&api.EvJobChkpnt{JobID: 9, Index: 2, Phase: api.ChkpntSucceeded, ActPID: 321},
			[]string{`"JOB_SIGACT" "10.1" 1700000000 9 0 321 4 0 0 3 "CHKPNT" 2`, `"CHKPNT" "10.1" 1700000000 9 0 321 1 0 2`},
			"Checkpoint succeeded (actpid 321);"},
		{&api.EvJobChkpnt{JobID: 9, Phase: api.ChkpntFailed, ActPID: 5, Migrate: true},
			[]string{`"JOB_SIGACT" "10.1" 1700000000 9 0 5 4 0 8 4 "CHKPNT" 0`, `"CHKPNT" "10.1" 1700000000 9 0 5 0 8 0`},
			"Migration checkpoint failed (actpid 5);"},
	} {
		evs, _ := Render(&api.Event{Time: t0 * 1e9, JobChkpnt: tt.ev}, job)
		if len(evs) != len(tt.lines) {
			t.Fatalf("%+v: %d records, want %d", tt.ev, len(evs), len(tt.lines))
		}
		for i, r := range evs {
			line := strings.TrimSuffix(r.Format(), "\n")
			if line != tt.lines[i] {
				t.Errorf("record %d:\n got %s\nwant %s", i, line, tt.lines[i])
			}
			back, err := ParseRecord(line)
			if err != nil {
				t.Fatalf("ParseRecord(%s): %v", line, err)
			}
			if id, idx, ok := back.JobID(); !ok || id != 9 || idx != tt.ev.Index {
				t.Errorf("JobID of %s = %d %d %v", line, id, idx, ok)
			}
		}
		if got := sigActText(evs[0].Log.(*JobSigAct)); got != tt.text {
			t.Errorf("bhist text %q, want %q", got, tt.text)
		}
	}
	if evs, _ := Render(&api.Event{Time: t0 * 1e9, JobChkpnt: &api.EvJobChkpnt{JobID: 9, SetPeriod: true, Period: 60}}, job); len(evs) != 0 {
		t.Errorf("a period change alone rendered %d records", len(evs))
	}
	evs, _ := Render(&api.Event{Time: t0 * 1e9, User: "bob", UID: 1002, JobMig: &api.EvJobMig{JobID: 9, Hosts: []string{"h2"}}}, job)
	if len(evs) != 1 || strings.TrimSuffix(evs[0].Format(), "\n") != `"MIG" "10.1" 1700000000 9 1 "h2" 1002 0 "bob"` {
		t.Fatalf("MIG: %v", evs)
	}
	if got := migText(evs[0].Log.(*Mig)); got != "Migration requested by user or administrator <bob>; Specified Hosts <h2>;" {
		t.Errorf("MIG text %q", got)
	}
}

// A job brestart submitted has SUB_RESTART (and SUB_RESTART_FORCE for -f)
// in its JOB_NEW options.
func TestRestartOptions(t *testing.T) {
	for _, tt := range []struct {
		spec *api.JobSpec
		want int64
	}{
		{&api.JobSpec{Command: "x"}, 0},
		{&api.JobSpec{Command: "x", ChkpntDir: "/ck", RestartDir: "/ck/7"}, SubRestart},
		{&api.JobSpec{Command: "x", ChkpntDir: "/ck", RestartDir: "/ck/7", RestartForce: true}, SubRestart | SubRestartForce},
	} {
		evs, _ := Render(&api.Event{Time: t0 * 1e9, User: "u", JobNew: &api.EvJobNew{JobID: 8, Spec: tt.spec, Queue: "q"}}, nil)
		n := evs[0].Log.(*JobNew)
		if got := n.Options & (SubRestart | SubRestartForce); got != tt.want {
			t.Errorf("%+v: restart options %#x, want %#x", tt.spec, got, tt.want)
		}
	}
}
