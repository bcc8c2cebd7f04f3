package metrics

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/mbd"
	"github.com/basalt-lsf/basalt/internal/sbd"
)

type fakeStats struct{ s *mbd.Stats }

func (f fakeStats) Stats() *mbd.Stats { return f.s }

func TestMbdCollector(t *testing.T) {
	st := &mbd.Stats{
		Jobs: []mbd.JobCount{{State: "PEND", Queue: "normal", N: 3}, {State: "RUN", Queue: "normal", N: 2}},
		Pending: []mbd.ReasonCount{{Queue: "normal", Reason: "The queue has reached its job slot limit", N: 2},
			{Queue: "normal", Reason: "", N: 1}},
		Queues: []mbd.QueueStats{{Name: "normal", Submitted: 5, Dispatched: 2, Finished: 0, SlotsUsed: 2, SlotsFree: 6}},
		Hosts: []mbd.HostSlots{{Name: "host1", Status: "ok", Used: 2, Max: 4}, {Name: "host2", Status: "unavail", Used: 0, Max: 4},
			{Name: "host3", Status: "ok", Used: 1, Max: -1}},
		Shares:        []mbd.ShareStat{{Queue: "fair", Account: "alice", Priority: 0.5}},
		RaftLastIndex: 120, RaftSnapshotIndex: 100,
	}
	c := NewMbdCollector(fakeStats{st})
	c.SchedPass(3*time.Millisecond, 7)
	c.Commit(200 * time.Microsecond)
	want := `
# HELP basalt_jobs Jobs in the system by state and queue.
# TYPE basalt_jobs gauge
basalt_jobs{queue="normal",state="PEND"} 3
basalt_jobs{queue="normal",state="RUN"} 2
# HELP basalt_pending_jobs Pending jobs by queue and main pending reason (the last scheduling pass's first reason).
# TYPE basalt_pending_jobs gauge
basalt_pending_jobs{queue="normal",reason=""} 1
basalt_pending_jobs{queue="normal",reason="The queue has reached its job slot limit"} 2
# HELP basalt_queue_submitted_jobs_total Jobs (array elements each) submitted to the queue since mbatchd started.
# TYPE basalt_queue_submitted_jobs_total counter
basalt_queue_submitted_jobs_total{queue="normal"} 5
# HELP basalt_queue_dispatched_jobs_total Jobs dispatched from the queue since mbatchd started.
# TYPE basalt_queue_dispatched_jobs_total counter
basalt_queue_dispatched_jobs_total{queue="normal"} 2
# HELP basalt_queue_finished_jobs_total Jobs of the queue that finished (DONE or EXIT) since mbatchd started.
# TYPE basalt_queue_finished_jobs_total counter
basalt_queue_finished_jobs_total{queue="normal"} 0
# HELP basalt_queue_slots_used Slots held by the queue's started jobs.
# TYPE basalt_queue_slots_used gauge
basalt_queue_slots_used{queue="normal"} 2
# HELP basalt_queue_slots_free Free slots of the hosts the queue may use, within QJOB_LIMIT.
# TYPE basalt_queue_slots_free gauge
basalt_queue_slots_free{queue="normal"} 6
# HELP basalt_host_slots_used Slots held by started jobs on the batch host.
# TYPE basalt_host_slots_used gauge
basalt_host_slots_used{host="host1"} 2
basalt_host_slots_used{host="host2"} 0
basalt_host_slots_used{host="host3"} 1
# HELP basalt_host_slots_free Free slots of the batch host (absent when its slots are unlimited; 0 when it cannot take jobs).
# TYPE basalt_host_slots_free gauge
basalt_host_slots_free{host="host1"} 2
basalt_host_slots_free{host="host2"} 0
# HELP basalt_batch_host_status The batch host's status as bhosts shows it; the value is 1.
# TYPE basalt_batch_host_status gauge
basalt_batch_host_status{host="host1",status="ok"} 1
basalt_batch_host_status{host="host2",status="unavail"} 1
basalt_batch_host_status{host="host3",status="ok"} 1
# HELP basalt_fairshare_priority Dynamic priority of a top-level share account of a fairshare queue.
# TYPE basalt_fairshare_priority gauge
basalt_fairshare_priority{account="alice",queue="fair"} 0.5
# HELP basalt_raft_last_index Index of the last entry of mbatchd's log.
# TYPE basalt_raft_last_index gauge
basalt_raft_last_index 120
# HELP basalt_raft_log_entries Entries of mbatchd's log since its last snapshot.
# TYPE basalt_raft_log_entries gauge
basalt_raft_log_entries 20
# HELP basalt_scheduling_last_pass_examined_jobs Jobs the last scheduling pass examined.
# TYPE basalt_scheduling_last_pass_examined_jobs gauge
basalt_scheduling_last_pass_examined_jobs 7
`
	names := []string{"basalt_jobs", "basalt_pending_jobs", "basalt_queue_submitted_jobs_total", "basalt_queue_dispatched_jobs_total",
		"basalt_queue_finished_jobs_total", "basalt_queue_slots_used", "basalt_queue_slots_free", "basalt_host_slots_used",
		"basalt_host_slots_free", "basalt_batch_host_status", "basalt_fairshare_priority", "basalt_raft_last_index",
		"basalt_raft_log_entries", "basalt_scheduling_last_pass_examined_jobs"}
	if err := testutil.CollectAndCompare(c, strings.NewReader(want), names...); err != nil {
		t.Fatal(err)
	}
	// The histograms hold exactly the one observation each.
	if n := testutil.CollectAndCount(c, "basalt_scheduling_pass_duration_seconds", "basalt_raft_commit_duration_seconds", "basalt_scheduling_pass_examined_jobs"); n != 3 {
		t.Fatalf("histograms: %d metrics, want 3", n)
	}
	problems, err := testutil.CollectAndLint(c)
	if err != nil || len(problems) > 0 {
		t.Fatalf("lint: %v %v", err, problems)
	}
}

type fakeSbd struct {
	c    sbd.Counters
	jobs int
	ok   bool
}

func (f *fakeSbd) Counters() *sbd.Counters          { return &f.c }
func (f *fakeSbd) Jobs(context.Context) (int, bool) { return f.jobs, f.ok }

func TestSbdCollector(t *testing.T) {
	f := &fakeSbd{jobs: 2, ok: true}
	f.c.JobsStarted.Add(4)
	f.c.JobStartFailures.Add(1)
	f.c.ShepherdErrors.Add(2)
	c := NewSbdCollector(f)
	want := `
# HELP basalt_sbatchd_job_starts_total Jobs whose shepherd this sbatchd started.
# TYPE basalt_sbatchd_job_starts_total counter
basalt_sbatchd_job_starts_total 4
# HELP basalt_sbatchd_job_start_failures_total Job launches this sbatchd could not carry out.
# TYPE basalt_sbatchd_job_start_failures_total counter
basalt_sbatchd_job_start_failures_total 1
# HELP basalt_sbatchd_shepherd_errors_total Shepherds not started or not reached, and jobs lost with their shepherd.
# TYPE basalt_sbatchd_shepherd_errors_total counter
basalt_sbatchd_shepherd_errors_total 2
# HELP basalt_sbatchd_cgroup_errors_total Job cgroups sbatchd could not remove.
# TYPE basalt_sbatchd_cgroup_errors_total counter
basalt_sbatchd_cgroup_errors_total 0
# HELP basalt_sbatchd_jobs Jobs this sbatchd follows.
# TYPE basalt_sbatchd_jobs gauge
basalt_sbatchd_jobs 2
`
	if err := testutil.CollectAndCompare(c, strings.NewReader(want)); err != nil {
		t.Fatal(err)
	}
	// A stopped daemon has no job count, the counters stay.
	f.ok = false
	if n := testutil.CollectAndCount(c); n != 4 {
		t.Fatalf("stopped daemon: %d metrics, want 4", n)
	}
}

func TestLimCollector(t *testing.T) {
	h := &api.HostLoad{Name: "host1", Status: 0, Load: []float64{0.5, 1, 1.5, 0.25, 0, 0, 2, 3, 100, 200, 300},
		Ext: []*api.IndexValue{{Name: "gpu", Value: 2}, {Name: "r15s", Value: 9}}}
	var err error
	c := NewLimCollector("host1", func(context.Context) (*api.HostLoad, error) { return h, err })
	want := `
# HELP basalt_lim_master_reachable 1 when the master LIM answered for this host at this scrape, else 0.
# TYPE basalt_lim_master_reachable gauge
basalt_lim_master_reachable 1
# HELP basalt_lim_load The host's load indices as the master LIM holds them, in LSF's units (built-in indices raw as LIM reports them, then external ones).
# TYPE basalt_lim_load gauge
basalt_lim_load{host="host1",index="r15s"} 0.5
basalt_lim_load{host="host1",index="r1m"} 1
basalt_lim_load{host="host1",index="r15m"} 1.5
basalt_lim_load{host="host1",index="ut"} 0.25
basalt_lim_load{host="host1",index="pg"} 0
basalt_lim_load{host="host1",index="io"} 0
basalt_lim_load{host="host1",index="ls"} 2
basalt_lim_load{host="host1",index="it"} 3
basalt_lim_load{host="host1",index="tmp"} 100
basalt_lim_load{host="host1",index="swp"} 200
basalt_lim_load{host="host1",index="mem"} 300
basalt_lim_load{host="host1",index="gpu"} 2
`
	if err := testutil.CollectAndCompare(c, strings.NewReader(want), "basalt_lim_master_reachable", "basalt_lim_load"); err != nil {
		t.Fatal(err)
	}
	if n := testutil.CollectAndCount(c, "basalt_lim_host_status"); n != 1 {
		t.Fatalf("status: %d series, want 1", n)
	}
	err = errors.New("no master")
	want = `
# HELP basalt_lim_master_reachable 1 when the master LIM answered for this host at this scrape, else 0.
# TYPE basalt_lim_master_reachable gauge
basalt_lim_master_reachable 0
`
	if err := testutil.CollectAndCompare(c, strings.NewReader(want)); err != nil {
		t.Fatal(err)
	}
}

func TestPort(t *testing.T) {
	for _, tc := range []struct {
		v      string
		off    int
		want   int
		hasErr bool
	}{{"", 1, 0, false}, {"0", 2, 0, false}, {"6883", 0, 6883, false}, {"6883", 2, 6885, false},
		{"x", 0, 0, true}, {"-1", 0, 0, true}, {"65535", 1, 0, true}} {
		got, err := Port(tc.v, tc.off)
		if got != tc.want || (err != nil) != tc.hasErr {
			t.Errorf("Port(%q, %d) = %d, %v; want %d, error %v", tc.v, tc.off, got, err, tc.want, tc.hasErr)
		}
	}
}
