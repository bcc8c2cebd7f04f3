package config

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/basalt-lsf/basalt/internal/config/lex"
)

// Params is lsb.params, with LSF's defaults for what the file leaves out.
type Params struct {
	Path string
	// DefaultQueue: the first queue in the list that accepts the job.
	// Empty when undefined (then the queue "default" is used).
	DefaultQueue   []string
	DefaultProject string // "default"
	// DefaultApplication is the profile of jobs submitted without -app.
	DefaultApplication string
	DefaultHostSpec    string // host or model name; "" = undefined

	MBDSleepTime         time.Duration // 60s: dispatch interval
	SBDSleepTime         time.Duration // 30s: load check interval
	JobAcceptInterval    int           // 1 (× MBD_SLEEP_TIME); 0 = no wait
	PGSuspIT             time.Duration // 180s
	MaxJobNum            int           // 1000
	MaxJobID             int           // 999999
	CleanPeriod          time.Duration // 3600s
	MaxSBDFail           int           // 3
	JobTerminateInterval time.Duration // 10s
	MaxJobArraySize      int           // 1000
	SubTryInterval       time.Duration // 60s
	MaxPendJobs          int           // 0 = unlimited
	MaxUserPriority      int           // 0 = user priority disabled
	// JobPriorityOverTime: Increment every Interval, when defined.
	JobPriorityOverTime *PriorityOverTime

	// Fairshare factors.
	CPUTimeFactor             float64 // 0.7
	RunTimeFactor             float64 // 0.7
	RunJobFactor              float64 // 3.0
	HistHours                 float64 // 5
	CommittedRunTimeFactor    float64 // 0
	FairshareAdjustmentFactor float64 // 0

	// Preemption.
	PreemptFor           []string // GROUP_JLP GROUP_MAX HOST_JLU LEAST_RUN_TIME MINI_JOB OPTIMAL_MINI_JOB USER_JLP
	PreemptableResources []string
	MaxJobPreempt        int      // 0 = unlimited
	PreemptJobType       []string // EXCLUSIVE BACKFILL

	ParallelSchedBySlot        bool
	ResourceReservePerTask     bool
	ComputeUnitTypes           []ComputeUnitType
	SharedResourceUpdateFactor int
	JobSpoolDir                string
	DefaultJobGroup            string // DEFAULT_JOBGROUP
	JobDepLastSub              bool
	MaxSchedStay               time.Duration // 0 = undefined
	// Parameters of a fresh LSF 10 lsb.params.
	// JOB_SCHEDULING_INTERVAL ("n ms" accepted): when set, scheduling
	// passes are at least this far apart, as LSF's sessions are; 0 (not
	// set) keeps Basalt's event-driven passes instead of LSF's 5 s.
	JobSchedulingInterval  time.Duration
	AbsRunLimit            bool          // ABS_RUNLIMIT: run limits are not normalised
	MinSwitchPeriod        time.Duration // MIN_SWITCH_PERIOD: lsb.events switch; 0 = undefined
	MaxConcurrentQuery     int           // MAX_CONCURRENT_QUERY; 0 = undefined
	CondensePendingReasons string        // CONDENSE_PENDING_REASONS: "Y", "N" or "ALL"
	PreemptionWaitTime     time.Duration // 300s
	DisableUACCTMap        bool

	// Accounting file archiving (lsb.acct): 0 means undefined.
	AcctArchiveAge     time.Duration // ACCT_ARCHIVE_AGE, days
	AcctArchiveSize    int64         // ACCT_ARCHIVE_SIZE, KB
	MaxAcctArchiveFile int

	// Raw holds every parameter as written, in file order.
	Raw []KV
}

// PriorityOverTime is JOB_PRIORITY_OVER_TIME=increment/interval: a pending
// job's priority grows by Increment every Interval.
type PriorityOverTime struct {
	Increment int
	Interval  time.Duration
}

// ComputeUnitType is one COMPUTE_UNIT_TYPES entry; Default marks the type
// written with a trailing '!'.
type ComputeUnitType struct {
	Name    string
	Default bool
}

// HasPreemptFor reports whether PREEMPT_FOR includes keyword kw.
func (p *Params) HasPreemptFor(kw string) bool {
	for _, k := range p.PreemptFor {
		if k == kw {
			return true
		}
	}
	return false
}

// DefaultParams returns lsb.params' defaults (an empty file).
func DefaultParams() *Params {
	return &Params{
		DefaultProject:         "default",
		MBDSleepTime:           60 * time.Second,
		SBDSleepTime:           30 * time.Second,
		JobAcceptInterval:      1,
		PGSuspIT:               180 * time.Second,
		MaxJobNum:              1000,
		MaxJobID:               999999,
		CleanPeriod:            3600 * time.Second,
		MaxSBDFail:             3,
		JobTerminateInterval:   10 * time.Second,
		MaxJobArraySize:        1000,
		SubTryInterval:         60 * time.Second,
		PreemptionWaitTime:     300 * time.Second,
		CondensePendingReasons: "N",
		CPUTimeFactor:          0.7,
		RunTimeFactor:          0.7,
		RunJobFactor:           3.0,
		HistHours:              5,
	}
}

var preemptForKeywords = []string{"GROUP_JLP", "GROUP_MAX", "HOST_JLU", "LEAST_RUN_TIME", "MINI_JOB", "OPTIMAL_MINI_JOB", "USER_JLP"}

// keywordList reads blank-separated keywords from the allowed set (case-
// insensitively), warning about the others.
func (v val) keywordList(allowed []string) []string {
	var out []string
	for _, w := range v.words() {
		found := ""
		for _, a := range allowed {
			if strings.EqualFold(w.Text, a) {
				found = a
			}
		}
		if found == "" {
			v.d.Warnf(w.Pos, "%s%s: unknown keyword <%s>; ignored", v.prefix(), v.key, w.Text)
			continue
		}
		out = append(out, found)
	}
	return out
}

// parseParams reads lsb.params' Parameters section. Problems are warnings:
// the parameter keeps its default.
func parseParams(f *lex.File, d *Diagnostics) *Params {
	p := DefaultParams()
	p.Path = f.Name
	seen := false
	for _, sec := range f.Sections {
		if !sec.Is("Parameters") {
			d.Warnf(sec.Pos, "unknown section %s in lsb.params; section ignored", sec.Name)
			continue
		}
		if seen {
			d.Warnf(sec.Pos, "second Parameters section in lsb.params; section ignored")
			continue
		}
		seen = true
		keys := map[string]Pos{}
		for _, kv := range sec.KeyValues(d) {
			v := kvVal(kv, "", d)
			if prev, dup := keys[v.key]; dup {
				d.Warnf(kv.KeyPos, "%s is defined twice (first at line %d); the last value is used", v.key, prev.Line)
			}
			keys[v.key] = kv.KeyPos
			p.Raw = append(p.Raw, KV{Key: v.key, Value: kv.Value, Pos: kv.KeyPos})
			p.set(v)
		}
	}
	return p
}

func (p *Params) set(v val) {
	setInt := func(dst *int, min, max int) {
		if n, ok := v.int(min, max); ok {
			*dst = n
		}
	}
	setSec := func(dst *time.Duration, min int) {
		if s, ok := v.seconds(min); ok {
			*dst = s
		}
	}
	setFloat := func(dst *float64) {
		if f, ok := v.float(0, math.MaxFloat64); ok {
			*dst = f
		}
	}
	setBool := func(dst *bool) {
		if b, ok := v.yesNo(); ok {
			*dst = b
		}
	}
	switch v.key {
	case "DEFAULT_QUEUE":
		p.DefaultQueue = v.names()
	case "DEFAULT_APPLICATION":
		p.DefaultApplication = strings.TrimSpace(v.text)
	case "DEFAULT_PROJECT":
		if n := strings.TrimSpace(v.text); nameOK(n) {
			p.DefaultProject = n
		} else {
			v.bad("is not a project name")
		}
	case "DEFAULT_HOST_SPEC":
		if n := strings.TrimSpace(v.text); nameOK(n) {
			p.DefaultHostSpec = n
		} else {
			v.bad("is not a host or host model name")
		}
	case "MBD_SLEEP_TIME":
		setSec(&p.MBDSleepTime, 1)
	case "SBD_SLEEP_TIME":
		setSec(&p.SBDSleepTime, 1)
	case "JOB_ACCEPT_INTERVAL":
		setInt(&p.JobAcceptInterval, 0, math.MaxInt32)
	case "PG_SUSP_IT":
		setSec(&p.PGSuspIT, 1)
	case "MAX_JOB_NUM":
		setInt(&p.MaxJobNum, 1, math.MaxInt32)
	case "MAX_JOBID":
		setInt(&p.MaxJobID, 999999, 2147483646)
	case "CLEAN_PERIOD":
		setSec(&p.CleanPeriod, 1)
	case "MAX_SBD_FAIL":
		setInt(&p.MaxSBDFail, 1, math.MaxInt32)
	case "JOB_TERMINATE_INTERVAL":
		setSec(&p.JobTerminateInterval, 0)
	case "MAX_JOB_ARRAY_SIZE":
		setInt(&p.MaxJobArraySize, 1, 2147483646)
	case "SUB_TRY_INTERVAL":
		setSec(&p.SubTryInterval, 0)
	case "MAX_PEND_JOBS":
		setInt(&p.MaxPendJobs, 1, math.MaxInt32)
	case "MAX_USER_PRIORITY":
		setInt(&p.MaxUserPriority, 1, math.MaxInt32)
	case "JOB_PRIORITY_OVER_TIME":
		inc, iv, ok := strings.Cut(strings.TrimSpace(v.text), "/")
		n, err1 := strconv.Atoi(strings.TrimSpace(inc))
		m, err2 := strconv.Atoi(strings.TrimSpace(iv))
		if !ok || err1 != nil || err2 != nil || n <= 0 || m <= 0 {
			v.bad("is not increment/interval (positive integers)")
			return
		}
		p.JobPriorityOverTime = &PriorityOverTime{Increment: n, Interval: time.Duration(m) * time.Minute}
	case "CPU_TIME_FACTOR":
		setFloat(&p.CPUTimeFactor)
	case "RUN_TIME_FACTOR":
		setFloat(&p.RunTimeFactor)
	case "RUN_JOB_FACTOR":
		setFloat(&p.RunJobFactor)
	case "HIST_HOURS":
		setFloat(&p.HistHours)
	case "COMMITTED_RUN_TIME_FACTOR":
		setFloat(&p.CommittedRunTimeFactor)
	case "FAIRSHARE_ADJUSTMENT_FACTOR":
		setFloat(&p.FairshareAdjustmentFactor)
	case "PREEMPT_FOR":
		p.PreemptFor = v.keywordList(preemptForKeywords)
	case "PREEMPTABLE_RESOURCES":
		p.PreemptableResources = v.names()
	case "MAX_JOB_PREEMPT":
		setInt(&p.MaxJobPreempt, 1, math.MaxInt32-1)
	case "PREEMPT_JOBTYPE":
		p.PreemptJobType = v.keywordList([]string{"EXCLUSIVE", "BACKFILL"})
	case "PARALLEL_SCHED_BY_SLOT":
		setBool(&p.ParallelSchedBySlot)
	case "RESOURCE_RESERVE_PER_TASK":
		setBool(&p.ResourceReservePerTask)
	case "JOB_DEP_LAST_SUB":
		switch strings.TrimSpace(v.text) { // LSF writes 1
		case "1":
			p.JobDepLastSub = true
		case "0":
			p.JobDepLastSub = false
		default:
			setBool(&p.JobDepLastSub)
		}
	case "JOB_SCHEDULING_INTERVAL":
		t := strings.ToLower(strings.TrimSpace(v.text))
		unit := time.Second
		if strings.HasSuffix(t, "ms") {
			t, unit = strings.TrimSpace(strings.TrimSuffix(t, "ms")), time.Millisecond
		}
		n, err := strconv.Atoi(t)
		if err != nil || n < 0 {
			v.bad("is not seconds or milliseconds (n ms)")
			return
		}
		p.JobSchedulingInterval = time.Duration(n) * unit
	case "ABS_RUNLIMIT":
		setBool(&p.AbsRunLimit)
	case "MIN_SWITCH_PERIOD":
		setSec(&p.MinSwitchPeriod, 0)
	case "MAX_CONCURRENT_QUERY":
		setInt(&p.MaxConcurrentQuery, 1, math.MaxInt32)
	case "CONDENSE_PENDING_REASONS":
		switch u := strings.ToUpper(strings.TrimSpace(v.text)); u {
		case "Y", "N", "ALL":
			p.CondensePendingReasons = u
		default:
			v.bad("must be ALL, Y or N")
		}
	case "COMPUTE_UNIT_TYPES":
		p.ComputeUnitTypes = nil
		defaults := 0
		for _, n := range v.names() {
			cu := ComputeUnitType{Name: strings.TrimSuffix(n, "!"), Default: strings.HasSuffix(n, "!")}
			if !nameOK(cu.Name) {
				v.warnf("COMPUTE_UNIT_TYPES: bad type <%s>; ignored", n)
				continue
			}
			if cu.Default {
				defaults++
			}
			p.ComputeUnitTypes = append(p.ComputeUnitTypes, cu)
		}
		if defaults > 1 {
			v.warnf("COMPUTE_UNIT_TYPES: more than one default type ('!')")
		}
	case "SHARED_RESOURCE_UPDATE_FACTOR":
		setInt(&p.SharedResourceUpdateFactor, 1, math.MaxInt32)
	case "MAX_SCHED_STAY":
		setSec(&p.MaxSchedStay, 1)
	case "PREEMPTION_WAIT_TIME":
		setSec(&p.PreemptionWaitTime, 300)
	case "DISABLE_UACCT_MAP":
		setBool(&p.DisableUACCTMap)
	case "ACCT_ARCHIVE_AGE":
		if n, ok := v.int(1, math.MaxInt32); ok {
			p.AcctArchiveAge = time.Duration(n) * 24 * time.Hour
		}
	case "ACCT_ARCHIVE_SIZE":
		if n, ok := v.int(1, math.MaxInt32); ok {
			p.AcctArchiveSize = int64(n)
		}
	case "MAX_ACCT_ARCHIVE_FILE":
		setInt(&p.MaxAcctArchiveFile, 1, math.MaxInt32)
	case "DEFAULT_JOBGROUP":
		p.DefaultJobGroup = strings.TrimSpace(v.text)
	case "JOB_SPOOL_DIR":
		p.JobSpoolDir = strings.TrimSpace(v.text)
	default:
		v.d.Warnf(v.keyPos, "parameter %s is not supported by Basalt; ignored", v.key)
	}
}
