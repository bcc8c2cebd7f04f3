package output

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
)

func fixtureQueues() []*api.QueueInfo {
	return []*api.QueueInfo{
		{Name: "owners", Priority: 43, Open: true, Active: true, Max: 6, NJobs: 0},
		{Name: "priority", Priority: 43, Open: true, Active: true, Max: -1, JLU: 2, JLP: 1.5, NJobs: 18, Pend: 8, Run: 5, SSusp: 3, USusp: 2,
			Description: "Jobs submitted for this queue are scheduled as urgent jobs.", Users: []string{"user1", "grp1/"},
			Admins: []string{"admin1"}, RunWindow: "20:00-8:30", ResReq: "select[mem>100]",
			Thresholds:    []*api.Threshold{{Index: "r1m", Sched: 0.7, Stop: 1.5, HasSched: true, HasStop: true}, {Index: "pg", Sched: 4, HasSched: true}, {Index: "gpu", Stop: 2, HasStop: true}},
			DefaultLimits: &api.Limits{Run: 3600}, SchedulingPolicies: "FAIRSHARE",
			Shares: []*api.ShareAccount{{Name: "user1", Shares: 10, Priority: 3.333, Started: 1, CPUTime: 12.5, RunTime: 60}}},
		{Name: "a_very_long_queue_name", Priority: 40, Open: true, InactiveByWindow: true, NJobs: 44, Pend: 44},
		{Name: "closed", Priority: 1, InactiveByAdmin: true, Active: false},
	}
}

func fixtureHosts() []*api.HostInfo {
	return []*api.HostInfo{
		{Name: "hostA", Status: "ok", Max: 4, NJobs: 2, Run: 1, SSusp: 1, CPUF: 1,
			Load: []*api.LoadValue{{Index: "r15s", Total: 0.1, HasValue: true}, {Index: "mem", Total: 2048, Reserved: 512, HasValue: true}, {Index: "ut", Total: 0.25, HasValue: true}}},
		{Name: "hostB.with.a.long.domain", Status: "closed_Adm", JLU: 1, Max: 8, CPUF: 2.5, Comment: "maintenance",
			DispatchWindow: "20:00-8:00", Thresholds: []*api.Threshold{{Index: "mem", Sched: 100, HasSched: true}}},
		{Name: "hostC", Status: "unavail"},
	}
}

func fixtureUsers() []*api.UserInfo {
	return []*api.UserInfo{
		{Name: "user1", Max: 10, NJobs: 3, Pend: 1, Run: 2},
		{Name: "grp1", Group: true, JLP: 2, NJobs: 7, Pend: 2, Run: 3, SSusp: 1, USusp: 1},
		{Name: "default", Max: -1},
	}
}

func fixtureGroups() []*api.Group {
	return []*api.Group{
		{Name: "grp1", Members: []string{"user1", "user2", "sub/"}, Admins: []string{"user1"},
			Shares: []*api.ShareAccount{{Name: "user1", Shares: 5}, {Name: "default", Shares: 1}}},
		{Name: "everyone"},
	}
}

func TestClusterGolden(t *testing.T) {
	wide := &Options{Now: now, Wide: true}
	params := []*api.KeyValue{{Key: "DEFAULT_QUEUE", Value: "normal short"}, {Key: "MBD_SLEEP_TIME", Value: "20"},
		{Key: "SBD_SLEEP_TIME", Value: "15"}, {Key: "JOB_ACCEPT_INTERVAL", Value: "1"}, {Key: "CLEAN_PERIOD", Value: "3600"}}
	tests := []struct {
		name string
		f    func(*bytes.Buffer) error
	}{
		{"bqueues", func(b *bytes.Buffer) error { return WriteQueues(b, fixtureQueues(), opts()) }},
		{"bqueues_w", func(b *bytes.Buffer) error { return WriteQueues(b, fixtureQueues(), wide) }},
		{"bqueues_l", func(b *bytes.Buffer) error { return WriteQueuesLong(b, fixtureQueues()[1:2], opts()) }},
		{"bhosts", func(b *bytes.Buffer) error { return WriteHosts(b, fixtureHosts(), opts()) }},
		{"bhosts_w", func(b *bytes.Buffer) error { return WriteHosts(b, fixtureHosts(), wide) }},
		{"bhosts_l", func(b *bytes.Buffer) error { return WriteHostsLong(b, fixtureHosts()[:2], opts()) }},
		{"busers", func(b *bytes.Buffer) error { return WriteUsers(b, fixtureUsers(), opts()) }},
		{"bugroup", func(b *bytes.Buffer) error { return WriteGroups(b, fixtureGroups(), false, opts()) }},
		{"bugroup_l", func(b *bytes.Buffer) error { return WriteGroupsLong(b, fixtureGroups(), false, opts()) }},
		{"bmgroup", func(b *bytes.Buffer) error { return WriteGroups(b, fixtureGroups(), true, opts()) }},
		{"bparams", func(b *bytes.Buffer) error { return WriteParams(b, params) }},
		{"bparams_a", func(b *bytes.Buffer) error { return WriteParamsAll(b, params, opts()) }},
		{"blimits", func(b *bytes.Buffer) error {
			// Internal limits (a per-user row, fractional memory in MB) and
			// a limit on a shared resource, in its own section.
			return WriteLimits(b, []*api.LimitUsage{
				{Name: "lim1", Users: "user1", Slots: 2, SlotsMax: 4, HasSlots: true, Mem: 512.5, MemMax: 2048, HasMem: true, InUse: true},
				{Name: "NONAME001", Queues: "normal short", Hosts: "hostA", Jobs: 0, JobsMax: 10, HasJobs: true},
				{Name: "lic", Projects: "all ~proj2", Resources: []*api.LimitAmount{{Name: "verilog", Used: 1, Max: 3}}, InUse: true},
			})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkGolden(t, tt.name, render(t, tt.f)) })
	}
}

// TestColumnsUnderHeaders: every value of the fixed-width listings ends
// under the end of its header, as in IBM's examples.
func TestColumnsUnderHeaders(t *testing.T) {
	check := func(name, header, row string, cols []string) {
		t.Helper()
		for _, c := range cols {
			hi := bytes.Index([]byte(header), []byte(c)) + len(c)
			if hi > len(row) || row[hi-1] == ' ' || (hi < len(row) && row[hi] != ' ') {
				t.Errorf("%s: value under %s does not end at column %d:\n%s\n%s", name, c, hi, header, row)
			}
		}
	}
	var b bytes.Buffer
	_ = WriteQueues(&b, fixtureQueues()[1:2], opts())
	lines := bytes.Split(b.Bytes(), []byte("\n"))
	check("bqueues", string(lines[0]), string(lines[1]), []string{"MAX", "JL/U", "JL/P", "JL/H", "NJOBS", "PEND", "RUN", "SUSP"})
	b.Reset()
	_ = WriteHosts(&b, fixtureHosts()[:1], opts())
	lines = bytes.Split(b.Bytes(), []byte("\n"))
	check("bhosts", string(lines[0]), string(lines[1]), []string{"JL/U", "MAX", "NJOBS", "RUN", "SSUSP", "USUSP", "RSV"})
	b.Reset()
	_ = WriteUsers(&b, fixtureUsers()[1:2], opts())
	lines = bytes.Split(b.Bytes(), []byte("\n"))
	check("busers", string(lines[0]), string(lines[1]), []string{"JL/P", "MAX", "NJOBS", "PEND", "RUN", "SSUSP", "USUSP", "RSV"})
}

func fixtureHistory() []*api.JobHistory {
	jobs := fixtureJobs()
	done := jobs[4]
	done.EffectiveResReq = "select[type == local] order[r15s:pg] "
	done.ExecHome, done.ExecCwd, done.JobPID = "/home/user1", "/home/user1", 4242
	exited := jobs[3]
	return []*api.JobHistory{
		{Job: done, Events: []*api.HistoryEvent{
			{Time: at(3, 31, 9, 0, 0), Kind: "JOB_NEW"},
			{Time: at(3, 31, 9, 0, 1), Kind: "JOB_START", Hosts: []*api.ExecHost{{Host: "hostA", Slots: 1}}},
			{Time: at(3, 31, 9, 0, 1), Kind: "JOB_START_ACCEPT", PID: 4242},
			{Time: at(3, 31, 9, 0, 1), Kind: "JOB_EXECUTE"},
			{Time: at(3, 31, 9, 0, 2), Kind: "JOB_STATUS", State: api.StateDone, Usage: &api.Usage{CPUTime: 0.1}},
			{Time: at(3, 31, 9, 0, 2), Kind: "POST_DONE"},
		}},
		{Job: exited, Events: []*api.HistoryEvent{
			{Time: exited.SubmitTime, Kind: "JOB_NEW"},
			{Time: exited.StartTime, Kind: "JOB_START"},
			{Time: exited.StartTime + 60, Kind: "JOB_STATUS", State: api.StateUSusp, User: "user1"},
			{Time: exited.StartTime + 120, Kind: "JOB_STATUS", State: api.StateRun},
			{Time: exited.EndTime - 1, Kind: "JOB_SIGNAL", Signal: "KILL", User: "admin"},
			{Time: exited.EndTime, Kind: "JOB_STATUS", State: api.StateExit, ExitStatus: 2 << 8},
		}},
		{Job: jobs[2], Events: []*api.HistoryEvent{{Time: jobs[2].SubmitTime, Kind: "JOB_NEW"}}},
	}
}

func TestHistoryAcctGolden(t *testing.T) {
	jobs := fixtureJobs()
	finished := []*api.JobRecord{jobs[3], jobs[4]}
	jobs[3].TermReason = "TERM_RUNLIMIT"
	jobs[3].Usage.MaxSwap = 4096
	tests := []struct {
		name string
		f    func(*bytes.Buffer) error
	}{
		{"bhist", func(b *bytes.Buffer) error { return WriteHistory(b, fixtureHistory(), opts()) }},
		{"bhist_l", func(b *bytes.Buffer) error { return WriteHistoryLong(b, fixtureHistory(), opts()) }},
		{"bhist_l_exit", func(b *bytes.Buffer) error {
			// IBM 10.1's bhist -l of a job killed at its memory limit: a
			// blank line and the reason ending with ";", then the limits and
			// the memory used.
			h := fixtureHistory()[1]
			j := *h.Job
			j.TermReason = "TERM_MEMLIMIT"
			sp := *j.Spec
			sp.Limits = &api.Limits{Mem: 49152 << 10}
			j.Spec = &sp
			j.Usage = &api.Usage{MaxMem: 48 << 20, AvgMem: 1363149}
			h.Job = &j
			return WriteHistoryLong(b, []*api.JobHistory{h}, opts())
		}},
		{"bacct", func(b *bytes.Buffer) error {
			return WriteAcct(b, finished, AcctFilter{Requester: "user1"}, opts())
		}},
		{"bacct_empty", func(b *bytes.Buffer) error {
			return WriteAcct(b, nil, AcctFilter{Users: []string{"all"}, Queues: []string{"normal"}}, opts())
		}},
		{"bacct_l", func(b *bytes.Buffer) error { return WriteAcctLong(b, finished, opts()) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkGolden(t, tt.name, render(t, tt.f)) })
	}
}

// TestTimesInStates checks bhist's accounting of time per state.
func TestTimesInStates(t *testing.T) {
	hs := fixtureHistory()
	st, end := timesInStates(hs[1], opts())
	if st.pend != hs[1].Job.StartTime-hs[1].Job.SubmitTime || st.ususp != 60 || st.run != 60+(hs[1].Job.EndTime-hs[1].Job.StartTime-120) || end != hs[1].Job.EndTime {
		t.Errorf("exited job: %+v end %d", st, end)
	}
	st, end = timesInStates(hs[2], opts())
	if st.pend != now.Unix()-hs[2].Job.SubmitTime || st.run != 0 || end != now.Unix() {
		t.Errorf("pending job: %+v end %d", st, end)
	}
}

// TestHistoryLostHost: bhist -l words a job's UNKWN and ZOMBI states as
// OpenLava's bhist does, not by the record's kind.
func TestHistoryLostHost(t *testing.T) {
	j := &api.JobRecord{JobID: 5, User: "u1", State: api.StateRun, SubmitTime: 1000, StartTime: 1001}
	h := &api.JobHistory{Job: j, Events: []*api.HistoryEvent{
		{Time: 1000, Kind: "JOB_NEW"},
		{Time: 1001, Kind: "JOB_START"},
		{Time: 1010, Kind: "JOB_STATUS", State: api.StateUnkwn},
		{Time: 1020, Kind: "JOB_STATUS", State: api.StateRun},
		{Time: 1030, Kind: "JOB_STATUS", State: api.StateZombi},
	}}
	var b bytes.Buffer
	if err := WriteHistoryLong(&b, []*api.JobHistory{h}, &Options{Now: time.Unix(2000, 0).UTC()}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{": Unknown; unable to reach the execution host;\n", ": Running;\n",
		": Termination request issued; but unable to reach the execut"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "JOB_STATUS") {
		t.Errorf("a record kind shown as text:\n%s", b.String())
	}
}
