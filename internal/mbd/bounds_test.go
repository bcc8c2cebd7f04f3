package mbd

import (
	"strings"
	"testing"

	"github.com/basalt-lsf/basalt/api"
)

// TestSubmissionBound: a job that carries more than MaxJobSpecBytes is
// refused with a message saying so; big jobs under the bound are listed,
// in messages small enough, together with everyone's jobs.
func TestSubmissionBound(t *testing.T) {
	m := startMbd(t, writeCluster(t, 1, 1))
	huge := spec(strings.Repeat("x", MaxJobSpecBytes+1))
	res := m.submit("alice", huge)
	if res[0].JobID != 0 || res[0].Status == nil || !strings.Contains(res[0].Status.Message, "more than the") {
		t.Fatalf("a %d-byte job: %+v", MaxJobSpecBytes+1, res[0])
	}
	big := strings.Repeat("y", MaxJobSpecBytes-64<<10)
	for i := 0; i < 20; i++ { // 80 MB of records: more than one message may hold
		if r := m.submit("alice", spec(big)); r[0].JobID == 0 {
			t.Fatalf("a job under the bound refused: %+v", r[0])
		}
	}
	m.submit("bob", spec("sleep 1"))
	if got := len(m.jobs("bob", &api.JobsRequest{User: "all", Detail: true}).Jobs); got != 21 {
		t.Fatalf("listing all users' jobs: %d records, want 21", got)
	}
}

// TestListingCutsHugeRecords: a record larger than maxRecordBytes (a job
// from before the bound) is sent with its command cut; the listing goes on.
func TestListingCutsHugeRecords(t *testing.T) {
	recs := []*api.JobRecord{{JobID: 1, Command: "a"}, {JobID: 2, Command: strings.Repeat("z", maxRecordBytes+1)}, {JobID: 3, Command: "c"}}
	var got []*api.JobRecord
	msgs := 0
	if err := sendJobs(recs, nil, func(r *api.JobsReply) error {
		msgs++
		if n := r.SizeWire(); n > listBytes+maxRecordBytes {
			t.Errorf("a message of %d bytes", n)
		}
		got = append(got, r.Jobs...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[1].Command != "<command of 8388609 bytes not shown>" || got[2].Command != "c" {
		t.Fatalf("records %d, second command %.40q", len(got), got[1].Command)
	}
	if recs[1].Command == got[1].Command {
		t.Fatal("the caller's record was changed")
	}
}
