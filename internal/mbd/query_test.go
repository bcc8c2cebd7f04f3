package mbd

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
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
// with it; a summary record carries none, nor a detailed one that is not
// long (bjobs -o).
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
	r := m.jobs("alice", &api.JobsRequest{Jobs: []*api.JobRef{{JobID: 1}, {JobID: 2}}, Detail: true, Long: true})
	if len(r.Jobs) != 2 {
		t.Fatalf("jobs: %+v", r)
	}
	for i, want := range []string{
		"select[type == local] order[r15s:pg]",
		"select[((swp > 1) && (mem > 100)) && (type == local)] order[r15s] rusage[mem=500.00] span[hosts=1]",
	} {
		if got := r.Jobs[i].CombinedResReq; got != want {
			t.Errorf("job %d combined: %q, want %q", r.Jobs[i].JobID, got, want)
		}
	}
	if s := m.jobs("alice", &api.JobsRequest{Jobs: []*api.JobRef{{JobID: 2}}}); len(s.Jobs) != 1 || s.Jobs[0].CombinedResReq != "" {
		t.Errorf("summary record carries a combined requirement: %+v", s.Jobs)
	}
	// bjobs -o without combined_resreq asks for detail but not the merge.
	if s := m.jobs("alice", &api.JobsRequest{Jobs: []*api.JobRef{{JobID: 2}}, Detail: true}); len(s.Jobs) != 1 || s.Jobs[0].CombinedResReq != "" || s.Jobs[0].Spec == nil {
		t.Errorf("detailed record without Long: %+v", s.Jobs)
	}
}

// TestJobThresholds: a detailed record carries the job's scheduling
// thresholds (bjobs -l SCHEDULING PARAMETERS): the queue's for a pending
// job; for a started one the stricter of the queue's and its first host's,
// the lower where more means busier (r1m), the higher where less does (tmp).
func TestJobThresholds(t *testing.T) {
	dir := writeCluster(t, 1, 4)
	editBatchConf(t, dir, "lsb.queues", func(b []byte) []byte {
		return append(b, "\nBegin Queue\nQUEUE_NAME = th\nPRIORITY = 20\nr1m = 0.7/1.5\ntmp = 30/5\nut = 0.9\nEnd Queue\n"...)
	})
	editBatchConf(t, dir, "lsb.hosts", func([]byte) []byte {
		return []byte("Begin Host\nHOST_NAME MXJ r1m     tmp   pg\nhost1     4   0.5/3.0 20/10 /8\ndefault   !   ()      ()    ()\nEnd Host\n")
	})
	m := startMbd(t, dir)
	held := spec("a")
	held.Hold, held.Queues = true, []string{"th"}
	if res := m.submit("alice", held); res[0].JobID != 1 {
		t.Fatalf("submit: %+v", res)
	}
	r := m.jobs("alice", &api.JobsRequest{Jobs: []*api.JobRef{{JobID: 1}}, Detail: true, Long: true})
	if len(r.Jobs) != 1 {
		t.Fatalf("jobs: %+v", r)
	}
	show := func(ts []*api.Threshold) string {
		var parts []string
		for _, th := range ts {
			s, st := "-", "-"
			if th.HasSched {
				s = strconv.FormatFloat(th.Sched, 'g', -1, 64)
			}
			if th.HasStop {
				st = strconv.FormatFloat(th.Stop, 'g', -1, 64)
			}
			parts = append(parts, th.Index+"="+s+"/"+st)
		}
		slices.Sort(parts)
		return strings.Join(parts, " ")
	}
	if got, want := show(r.Jobs[0].Thresholds), "r1m=0.7/1.5 tmp=30/5 ut=0.9/-"; got != want {
		t.Errorf("pending job: %s, want %s", got, want)
	}
	started := &state.Job{Queue: "th", ExecHosts: []*api.ExecHost{{Host: "host1", Slots: 1}}}
	if got, want := show(newDetails(m.srv.cfg.Current(), true).jobThresholds(started)), "pg=-/8 r1m=0.5/1.5 tmp=30/10 ut=0.9/-"; got != want {
		t.Errorf("started job: %s, want %s", got, want)
	}
}

// TestJobFiltersBySubmission: bjobs -G, -g (a group and its subgroups), -sla
// and -Jd (with '*') select jobs by what they were submitted with.
func TestJobFiltersBySubmission(t *testing.T) {
	m := startMbd(t, writeCluster(t, 1, 4))
	mk := func(f func(*api.JobSpec)) *api.JobSpec {
		s := spec("sleep 1")
		s.Hold = true
		f(s)
		return s
	}
	m.submit("alice",
		mk(func(s *api.JobSpec) { s.JobGroup, s.Description = "/risk", "nightly run" }),
		mk(func(s *api.JobSpec) { s.JobGroup = "/risk/eu" }),
		mk(func(s *api.JobSpec) { s.JobGroup, s.SLA = "/riskier", "gold" }),
		mk(func(s *api.JobSpec) { s.Description = "weekly run" }),
	)
	ids := func(req *api.JobsRequest) []int64 {
		var out []int64
		for _, j := range m.jobs("alice", req).Jobs {
			out = append(out, j.JobID)
		}
		return out
	}
	for _, tt := range []struct {
		name string
		req  *api.JobsRequest
		want []int64
	}{
		{"-g /risk", &api.JobsRequest{JobGroup: "/risk"}, []int64{1, 2}},
		{"-g /risk/", &api.JobsRequest{JobGroup: "/risk/"}, []int64{1, 2}},
		{"-g /risk/eu", &api.JobsRequest{JobGroup: "/risk/eu"}, []int64{2}},
		{"-g /", &api.JobsRequest{JobGroup: "/"}, []int64{1, 2, 3, 4}},
		{"-sla gold", &api.JobsRequest{SLA: "gold"}, []int64{3}},
		{"-Jd '*run'", &api.JobsRequest{Description: "*run"}, []int64{1, 4}},
		{"-Jd 'weekly run'", &api.JobsRequest{Description: "weekly run"}, []int64{4}},
		{"-G nobody", &api.JobsRequest{UserGroup: "nobody"}, nil},
		{"-g /risk 3", &api.JobsRequest{JobGroup: "/risk", Jobs: []*api.JobRef{{JobID: 3}}}, nil},
	} {
		if got := ids(tt.req); !slices.Equal(got, tt.want) {
			t.Errorf("%s: jobs %v, want %v", tt.name, got, tt.want)
		}
	}
}
