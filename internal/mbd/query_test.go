package mbd

import (
	"testing"

	"github.com/basalt-lsf/basalt/api"
)

// TestNameMatch: bjobs/bkill -J patterns (LSF: '*' anywhere, but not in an
// array index).
func TestNameMatch(t *testing.T) {
	tests := []struct {
		pattern, name, display string
		want                   bool
	}{
		{"sim", "sim", "sim", true},
		{"sim", "sim2", "sim2", false},
		{"sim*", "sim2", "sim2", true},
		{"*aaaa*", "Snakemake_rule_a:s=x___(1b2c-aaaa)", "Snakemake_rule_a:s=x___(1b2c-aaaa)", true},
		{"*aaaa)", "rule___(1b2c-aaaa)", "rule___(1b2c-aaaa)", true},
		{"*bbbb*", "rule___(1b2c-aaaa)", "rule___(1b2c-aaaa)", false},
		{"job*", "jobarray", "jobarray[1]", true},
		{"*AAA*[1]", "xAAAy", "xAAAy[1]", true},
		{"*AAA*[1]", "xAAAy", "xAAAy[2]", false},
		{"arr[2]", "arr", "arr[2]", true},
		{"job1[*]", "job1", "job1[3]", false},
		{"job1[1*]", "job1", "job1[12]", false},
	}
	for _, tt := range tests {
		if got := nameMatch(tt.pattern, tt.name, tt.display); got != tt.want {
			t.Errorf("nameMatch(%q, %q, %q) = %v, want %v", tt.pattern, tt.name, tt.display, got, tt.want)
		}
	}
}

// TestPendingOnly: which bmod requests hold an option a running job may
// not have changed (the state refuses those for a job started since).
func TestPendingOnly(t *testing.T) {
	tests := []struct {
		set, reset []string
		want       bool
	}{
		{[]string{"W", "M"}, nil, false},
		{[]string{"q"}, nil, true},
		{nil, []string{"Wn", "on"}, false},
		{nil, []string{"Rn"}, true},
		{[]string{"c"}, []string{"Jn"}, true},
	}
	for _, tt := range tests {
		if got := pendingOnly(&api.ModifyRequest{Set: tt.set, Reset: tt.reset}); got != tt.want {
			t.Errorf("bmod set %v reset %v: pendingOnly %v, want %v", tt.set, tt.reset, got, tt.want)
		}
	}
}

// TestCombinedResReq: a detailed record carries the job's requirement merged
// with its application profile's and its queue's RES_REQ (bjobs -l
// "Combined"), computed for pending jobs that have never been scheduled
// with it; a summary record carries none.
func TestCombinedResReq(t *testing.T) {
	dir := writeCluster(t, 1, 4)
	editBatchConf(t, dir, "lsb.queues", func(b []byte) []byte {
		return append(b, `
Begin Queue
QUEUE_NAME = big
PRIORITY = 20
RES_REQ = select[mem>100] order[mem] span[hosts=1]
End Queue
`...)
	})
	editBatchConf(t, dir, "lsb.applications", func([]byte) []byte {
		return []byte("Begin Application\nNAME = fat\nRES_REQ = rusage[mem=500]\nEnd Application\n")
	})
	m := startMbd(t, dir)
	plain := spec("a")
	plain.Hold = true
	merged := spec("b")
	merged.Hold, merged.Queues, merged.App, merged.ResReq = true, []string{"big"}, "fat", []string{"select[swp>1] order[r15s]"}
	if res := m.submit("alice", plain, merged); res[0].JobID != 1 || res[1].JobID != 2 {
		t.Fatalf("submit: %+v", res)
	}
	r := m.jobs("alice", &api.JobsRequest{Jobs: []*api.JobRef{{JobID: 1}, {JobID: 2}}, Detail: true})
	if len(r.Jobs) != 2 {
		t.Fatalf("jobs: %+v", r)
	}
	for i, want := range []string{
		"select[type == local] order[r15s:pg]",
		"select[((swp > 1) && (mem > 100)) && (type == local)] order[r15s] rusage[mem=500] span[hosts=1]",
	} {
		if got := r.Jobs[i].CombinedResReq; got != want {
			t.Errorf("job %d combined: %q, want %q", r.Jobs[i].JobID, got, want)
		}
	}
	if s := m.jobs("alice", &api.JobsRequest{Jobs: []*api.JobRef{{JobID: 2}}}); len(s.Jobs) != 1 || s.Jobs[0].CombinedResReq != "" {
		t.Errorf("summary record carries a combined requirement: %+v", s.Jobs)
	}
}
