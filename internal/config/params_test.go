package config

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestParamsTable sets every lsb.params parameter Basalt reads and checks
// the typed value.
func TestParamsTable(t *testing.T) {
	tests := []struct {
		line  string
		check func(p *Params) bool
	}{
		{"DEFAULT_QUEUE = normal", func(p *Params) bool { return strings.Join(p.DefaultQueue, ",") == "normal" }},
		{"DEFAULT_PROJECT = p1", func(p *Params) bool { return p.DefaultProject == "p1" }},
		{"DEFAULT_HOST_SPEC = M1", func(p *Params) bool { return p.DefaultHostSpec == "M1" }},
		{"MBD_SLEEP_TIME = 5", func(p *Params) bool { return p.MBDSleepTime == 5*time.Second }},
		{"SBD_SLEEP_TIME = 6", func(p *Params) bool { return p.SBDSleepTime == 6*time.Second }},
		{"JOB_ACCEPT_INTERVAL = 0", func(p *Params) bool { return p.JobAcceptInterval == 0 }},
		{"PG_SUSP_IT = 60", func(p *Params) bool { return p.PGSuspIT == time.Minute }},
		{"MAX_JOB_NUM = 5", func(p *Params) bool { return p.MaxJobNum == 5 }},
		{"MAX_JOBID = 9999999", func(p *Params) bool { return p.MaxJobID == 9999999 }},
		{"CLEAN_PERIOD = 10", func(p *Params) bool { return p.CleanPeriod == 10*time.Second }},
		{"MAX_SBD_FAIL = 7", func(p *Params) bool { return p.MaxSBDFail == 7 }},
		{"JOB_TERMINATE_INTERVAL = 0", func(p *Params) bool { return p.JobTerminateInterval == 0 }},
		{"MAX_JOB_ARRAY_SIZE = 65534", func(p *Params) bool { return p.MaxJobArraySize == 65534 }},
		{"SUB_TRY_INTERVAL = 3", func(p *Params) bool { return p.SubTryInterval == 3*time.Second }},
		{"MAX_PEND_JOBS = 100", func(p *Params) bool { return p.MaxPendJobs == 100 }},
		{"MAX_USER_PRIORITY = 10", func(p *Params) bool { return p.MaxUserPriority == 10 }},
		{"JOB_PRIORITY_OVER_TIME = 2/30", func(p *Params) bool {
			return *p.JobPriorityOverTime == PriorityOverTime{Increment: 2, Interval: 30 * time.Minute}
		}},
		{"CPU_TIME_FACTOR = 0", func(p *Params) bool { return p.CPUTimeFactor == 0 }},
		{"RUN_TIME_FACTOR = 1.5", func(p *Params) bool { return p.RunTimeFactor == 1.5 }},
		{"RUN_JOB_FACTOR = 4", func(p *Params) bool { return p.RunJobFactor == 4 }},
		{"HIST_HOURS = 0", func(p *Params) bool { return p.HistHours == 0 }},
		{"COMMITTED_RUN_TIME_FACTOR = 0.5", func(p *Params) bool { return p.CommittedRunTimeFactor == 0.5 }},
		{"FAIRSHARE_ADJUSTMENT_FACTOR = 0.2", func(p *Params) bool { return p.FairshareAdjustmentFactor == 0.2 }},
		{"PREEMPT_FOR = group_jlp GROUP_MAX HOST_JLU LEAST_RUN_TIME MINI_JOB USER_JLP", func(p *Params) bool {
			return strings.Join(p.PreemptFor, " ") == "GROUP_JLP GROUP_MAX HOST_JLU LEAST_RUN_TIME MINI_JOB USER_JLP" && p.HasPreemptFor("MINI_JOB") && !p.HasPreemptFor("OPTIMAL_MINI_JOB")
		}},
		{"PREEMPTABLE_RESOURCES = lic mem", func(p *Params) bool { return strings.Join(p.PreemptableResources, " ") == "lic mem" }},
		{"MAX_JOB_PREEMPT = 4", func(p *Params) bool { return p.MaxJobPreempt == 4 }},
		{"PREEMPT_JOBTYPE = EXCLUSIVE BACKFILL", func(p *Params) bool { return strings.Join(p.PreemptJobType, " ") == "EXCLUSIVE BACKFILL" }},
		{"PARALLEL_SCHED_BY_SLOT = y", func(p *Params) bool { return p.ParallelSchedBySlot }},
		{"RESOURCE_RESERVE_PER_TASK = Y", func(p *Params) bool { return p.ResourceReservePerTask }},
		{"COMPUTE_UNIT_TYPES = encl rack!", func(p *Params) bool {
			return len(p.ComputeUnitTypes) == 2 && p.ComputeUnitTypes[1] == ComputeUnitType{Name: "rack", Default: true}
		}},
		{"SHARED_RESOURCE_UPDATE_FACTOR = 2", func(p *Params) bool { return p.SharedResourceUpdateFactor == 2 }},
		{"JOB_SPOOL_DIR = /spool", func(p *Params) bool { return p.JobSpoolDir == "/spool" }},
		{"JOB_DEP_LAST_SUB = 1", func(p *Params) bool { return p.JobDepLastSub }}, // LSF's own value
		{"JOB_DEP_LAST_SUB = Y", func(p *Params) bool { return p.JobDepLastSub }},
		{"JOB_SCHEDULING_INTERVAL = 1", func(p *Params) bool { return p.JobSchedulingInterval == time.Second }},
		{"JOB_SCHEDULING_INTERVAL = 500 ms", func(p *Params) bool { return p.JobSchedulingInterval == 500*time.Millisecond }},
		{"ABS_RUNLIMIT = Y", func(p *Params) bool { return p.AbsRunLimit }},
		{"MIN_SWITCH_PERIOD = 1800", func(p *Params) bool { return p.MinSwitchPeriod == 30*time.Minute }},
		{"MAX_CONCURRENT_QUERY = 100", func(p *Params) bool { return p.MaxConcurrentQuery == 100 }},
		{"CONDENSE_PENDING_REASONS = all", func(p *Params) bool { return p.CondensePendingReasons == "ALL" }},
		{"MAX_SCHED_STAY = 3", func(p *Params) bool { return p.MaxSchedStay == 3*time.Second }},
		{"PREEMPTION_WAIT_TIME = 600", func(p *Params) bool { return p.PreemptionWaitTime == 10*time.Minute }},
		{"DISABLE_UACCT_MAP = Y", func(p *Params) bool { return p.DisableUACCTMap }},
		{"ACCT_ARCHIVE_AGE = 2", func(p *Params) bool { return p.AcctArchiveAge == 48*time.Hour }},
		{"ACCT_ARCHIVE_SIZE = 1024", func(p *Params) bool { return p.AcctArchiveSize == 1024 }},
		{"MAX_ACCT_ARCHIVE_FILE = 9", func(p *Params) bool { return p.MaxAcctArchiveFile == 9 }},
	}
	for _, tt := range tests {
		c := loadFixture(t, map[string]string{"lsb.params": "Begin Parameters\n" + tt.line + "\nEnd Parameters\n"})
		if !tt.check(c.Params) {
			t.Errorf("%q: %+v", tt.line, c.Params)
		}
		key := strings.Fields(tt.line)[0]
		if len(c.Warnings) != 0 {
			t.Errorf("%q: %s", tt.line, c.Warnings)
		}
		if len(c.Params.Raw) != 1 || c.Params.Raw[0].Key != key {
			t.Errorf("%q: raw %+v", tt.line, c.Params.Raw)
		}
	}
}

// TestClusterParamsTable covers lsf.cluster's Parameters section and the
// ELIM parameters' precedence over lsf.conf.
func TestClusterParamsTable(t *testing.T) {
	params := `Begin Parameters
EXINTERVAL = 30
HOST_INACTIVITY_LIMIT = 6
MASTER_INACTIVITY_LIMIT = 3
RETRY_LIMIT = 4
PROBE_TIMEOUT = 9
ELIM_POLL_INTERVAL = 0.01
ELIMARGS = -x 1
ADJUST_DURATION = 5
LSF_ELIM_DEBUG = y
LSF_ELIM_RESTARTS = 2
End Parameters
`
	c := loadFixture(t, map[string]string{"/c/lsf.cluster.t": params + baseFiles["/c/lsf.cluster.t"],
		"/c/lsf.conf": baseFiles["/c/lsf.conf"] + "LSF_ELIM_RESTARTS=7\nLSF_ELIM_DEBUG=n\n"})
	// lsf.conf alone: LSF_ELIM_RESTARTS without debug or block time.
	if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0].Msg, "LSF_ELIM_RESTARTS has no effect") {
		t.Fatal(c.Warnings)
	}
	p := c.Cluster.Params
	want := ClusterParams{ExInterval: 30 * time.Second, HostInactivityLimit: 6, MasterInactivityLimit: 3, RetryLimit: 4,
		ProbeTimeout: 9 * time.Second, ElimPollInterval: 10 * time.Millisecond, ElimArgs: "-x 1", AdjustDuration: 5,
		ELIMBlockTime: 2, ELIMDebug: true, ELIMRestarts: 2}
	p.Raw = nil
	if !reflect.DeepEqual(p, want) {
		t.Errorf("params = %+v\nwant %+v", p, want)
	}
	// Without the section: defaults, with lsf.conf's ELIM parameters.
	c2 := loadFixture(t, map[string]string{"/c/lsf.conf": baseFiles["/c/lsf.conf"] + "LSF_ELIM_BLOCKTIME=4\nLSF_ELIM_RESTARTS=7\n"})
	p2 := c2.Cluster.Params
	if p2.ExInterval != 15*time.Second || p2.HostInactivityLimit != 5 || p2.MasterInactivityLimit != 2 || p2.RetryLimit != 2 ||
		p2.ProbeTimeout != 2*time.Second || p2.ElimPollInterval != 5*time.Second || p2.AdjustDuration != 3 ||
		p2.ELIMBlockTime != 4 || p2.ELIMRestarts != 7 || p2.ELIMDebug {
		t.Errorf("defaults = %+v", p2)
	}
}

// TestQueueParamsTable covers the queue parameters the example cluster does
// not set.
func TestQueueParamsTable(t *testing.T) {
	tests := []struct {
		line  string
		check func(q *Queue) bool
	}{
		{"IGNORE_DEADLINE = Y", func(q *Queue) bool { return q.IgnoreDeadline }},
		{"DEFAULT_HOST_SPEC = h1", func(q *Queue) bool { return q.DefaultHostSpec == "h1" }},
		{"JOB_ACCEPT_INTERVAL = 3", func(q *Queue) bool { return *q.JobAcceptInterval == 3 }},
		{"NEW_JOB_SCHED_DELAY = 0", func(q *Queue) bool { return q.NewJobSchedDelay == 0 }},
		{"DISPATCH_ORDER = queue", func(q *Queue) bool { return q.DispatchOrder == "QUEUE" }},
		{"CPU_TIME_FACTOR = 0.1", func(q *Queue) bool { return *q.CPUTimeFactor == 0.1 }},
		{"RUN_JOB_FACTOR = 9", func(q *Queue) bool { return *q.RunJobFactor == 9 }},
		{"HIST_HOURS = 2", func(q *Queue) bool { return *q.HistHours == 2 }},
		{"DATALIMIT = 10 20", func(q *Queue) bool { return q.Limits.Data == SizeLimit{Set: true, Default: 10, Max: 20} }},
		{"FILELIMIT = 30", func(q *Queue) bool { return q.Limits.File == SizeLimit{Set: true, Max: 30} }},
		{"RESOURCE_RESERVE = MAX_RESERVE_TIME[4]", func(q *Queue) bool { return q.ResourceReserve == 4 }},
		{"SLOT_RESERVE = max_reserve_time[ 2 ]", func(q *Queue) bool { return q.SlotReserve == 2 }},
		{"EXCLUSIVE = n", func(q *Queue) bool { return !q.Exclusive }},
		{"RERUNNABLE = no", func(q *Queue) bool { return !q.Rerunnable }},
		{"TERMINATE_WHEN = LOAD PREEMPT window", func(q *Queue) bool { return strings.Join(q.TerminateWhen, " ") == "LOAD PREEMPT WINDOW" }},
		{"ADMINISTRATORS = a b", func(q *Queue) bool { return strings.Join(q.Admins, " ") == "a b" }},
		{"PRE_POST_EXEC_USER = joe", func(q *Queue) bool { return q.PrePostExecUser == "joe" }},
		{"MAX_JOB_PREEMPT = 1", func(q *Queue) bool { return q.MaxJobPreempt == 1 }},
		{"QJOB_LIMIT = 3", func(q *Queue) bool { return q.QJobLimit == 3 }},
		{"PJOB_LIMIT = 0.5", func(q *Queue) bool { return q.PJobLimit == 0.5 }},
		{"io = 10", func(q *Queue) bool { th, ok := q.Threshold("io"); return ok && th.Sched == 10 }},
		{"dyn = 1/2", func(q *Queue) bool { th, ok := q.Threshold("dyn"); return ok && th.Stop == 2 }},
	}
	for _, tt := range tests {
		c := loadFixture(t, map[string]string{"lsb.queues": queuesFile("QUEUE_NAME=q\n" + tt.line)})
		if len(c.Warnings) != 0 {
			t.Errorf("%q: %s", tt.line, c.Warnings)
		}
		if !tt.check(c.Queue("q")) {
			t.Errorf("%q: %+v", tt.line, c.Queue("q"))
		}
	}
}
