package output

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/basalt-lsf/basalt/api"
)

// jobField is one bjobs -o field: its description and how to compute it.
// value returns ok=false for an unset value, printed "-" in text output and
// "" in -json output.
type jobField struct {
	FieldInfo
	value func(j *api.JobRecord, c *valueCtx) (string, bool)
}

type valueCtx struct {
	o    *Options
	unit string
}

// Names, aliases, headers, recommended widths and order ("all") of bjobs
// -o fields follow IBM LSF 10.1 ("bjobs -o", Table 1: Output fields for
// bjobs, as of Fix Pack 14); energy and gpfsio have no recommended width.
// Headers are the upper-case field names; an alias prints the header of
// its field (project -> PROJ_NAME, srcluster -> SOURCE_CLUSTER).
var jobFields = []jobField{
	{FieldInfo{Name: "jobid", Aliases: []string{"id"}, Header: "JOBID", Width: 7}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		return strconv.FormatInt(j.JobID, 10), true
	}},
	{FieldInfo{Name: "jobindex", Header: "JOBINDEX", Width: 8}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		return strconv.Itoa(int(j.Index)), true
	}},
	{FieldInfo{Name: "stat", Header: "STAT", Width: 5}, func(j *api.JobRecord, c *valueCtx) (string, bool) { return Stat(j.State), true }},
	{FieldInfo{Name: "user", Header: "USER", Width: 7}, func(j *api.JobRecord, c *valueCtx) (string, bool) { return str(j.User) }},
	{FieldInfo{Name: "user_group", Aliases: []string{"ugroup"}, Header: "USER_GROUP", Width: 15}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		if j.UserGroup != "" {
			return j.UserGroup, true
		}
		return str(spec(j).UserGroup)
	}},
	{FieldInfo{Name: "queue", Header: "QUEUE", Width: 10}, func(j *api.JobRecord, c *valueCtx) (string, bool) { return str(j.Queue) }},
	{FieldInfo{Name: "job_name", Aliases: []string{"name"}, Header: "JOB_NAME", Width: 10}, func(j *api.JobRecord, c *valueCtx) (string, bool) { return str(JobName(j)) }},
	{FieldInfo{Name: "job_description", Aliases: []string{"description"}, Header: "JOB_DESCRIPTION", Width: 17}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		return str(spec(j).Description)
	}},
	{FieldInfo{Name: "proj_name", Aliases: []string{"proj", "project"}, Header: "PROJ_NAME", Width: 11}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		return Project(j), true
	}},
	{FieldInfo{Name: "application", Aliases: []string{"app"}, Header: "APPLICATION", Width: 13}, func(j *api.JobRecord, c *valueCtx) (string, bool) { return str(spec(j).App) }},
	{FieldInfo{Name: "service_class", Aliases: []string{"sla"}, Header: "SERVICE_CLASS", Width: 13}, func(j *api.JobRecord, c *valueCtx) (string, bool) { return str(spec(j).SLA) }},
	{FieldInfo{Name: "job_group", Aliases: []string{"group"}, Header: "JOB_GROUP", Width: 10}, func(j *api.JobRecord, c *valueCtx) (string, bool) { return str(spec(j).JobGroup) }},
	{FieldInfo{Name: "job_priority", Aliases: []string{"priority"}, Header: "JOB_PRIORITY", Width: 12}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		if p := spec(j).UserPriority; p > 0 {
			return strconv.Itoa(int(p)), true
		}
		return "", false
	}},
	// Fields of LSF features Basalt does not have (advance reservations,
	// esub-tracked kill/suspend/resume reasons, SAAP fairshare charging):
	// accepted, always "-", as LSF prints a field that does not apply.
	{FieldInfo{Name: "rsvid", Header: "RSVID", Width: 40}, unset},
	{FieldInfo{Name: "esub", Header: "ESUB", Width: 20}, func(j *api.JobRecord, c *valueCtx) (string, bool) { return str(spec(j).EsubParams) }},
	{FieldInfo{Name: "kill_reason", Header: "KILL_REASON", Width: 50}, unset},
	{FieldInfo{Name: "suspend_reason", Header: "SUSPEND_REASON", Width: 50}, unset},
	{FieldInfo{Name: "resume_reason", Header: "RESUME_REASON", Width: 50}, unset},
	{FieldInfo{Name: "kill_issue_host", Header: "KILL_ISSUE_HOST", Width: 50}, unset},
	{FieldInfo{Name: "suspend_issue_host", Header: "SUSPEND_ISSUE_HOST", Width: 50}, unset},
	{FieldInfo{Name: "resume_issue_host", Header: "RESUME_ISSUE_HOST", Width: 50}, unset},
	{FieldInfo{Name: "dependency", Header: "DEPENDENCY", Width: 15}, func(j *api.JobRecord, c *valueCtx) (string, bool) { return str(spec(j).Dependency) }},
	{FieldInfo{Name: "pend_reason", Header: "PEND_REASON", Width: 11}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		// The reasons as bjobs -p prints them, on one line: real 10.1
		// -json output shows "Job dependency condition not satisfied;",
		// also for a job that has since finished.
		return str(strings.Join(strings.Fields(strings.ReplaceAll(PendReasonLines(j.PendReasons, false), "\n", " ")), " "))
	}},
	{FieldInfo{Name: "charged_saap", Aliases: []string{"saap"}, Header: "CHARGED_SAAP", Width: 50}, unset},
	{FieldInfo{Name: "command", Aliases: []string{"cmd"}, Header: "COMMAND", Width: 15}, func(j *api.JobRecord, c *valueCtx) (string, bool) { return str(Command(j)) }},
	{FieldInfo{Name: "pre_exec_command", Aliases: []string{"pre_cmd"}, Header: "PRE_EXEC_COMMAND", Width: 16}, func(j *api.JobRecord, c *valueCtx) (string, bool) { return str(spec(j).PreExec) }},
	{FieldInfo{Name: "post_exec_command", Aliases: []string{"post_cmd"}, Header: "POST_EXEC_COMMAND", Width: 17}, func(j *api.JobRecord, c *valueCtx) (string, bool) { return str(spec(j).PostExec) }},
	{FieldInfo{Name: "resize_notification_command", Aliases: []string{"resize_cmd"}, Header: "RESIZE_NOTIFICATION_COMMAND", Width: 27}, unset},
	{FieldInfo{Name: "pids", Header: "PIDS", Width: 20}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		if j.Usage == nil || len(j.Usage.PIDs) == 0 {
			return "", false
		}
		ps := make([]string, len(j.Usage.PIDs))
		for i, p := range j.Usage.PIDs {
			ps[i] = strconv.Itoa(int(p))
		}
		return strings.Join(ps, ","), true
	}},
	{FieldInfo{Name: "exit_code", Header: "EXIT_CODE", Width: 10}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		if !Finished(j.State) {
			return "", false
		}
		if code := ExitCode(j.ExitStatus); code != 0 {
			return strconv.Itoa(code), true
		}
		return "", false
	}},
	{FieldInfo{Name: "exit_reason", Header: "EXIT_REASON", Width: 50}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		// "TERM_OWNER: job killed by owner" (real 10.1 -json output).
		if j.ExitInfo != "" {
			return j.ExitInfo, true
		}
		if j.TermReason == "" {
			return "", false
		}
		return termText(j.TermReason), true
	}},
	{FieldInfo{Name: "interactive", Header: "INTERACTIVE", Width: 11}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		if spec(j).Interactive {
			return "Y", true
		}
		return "N", true
	}},
	{FieldInfo{Name: "from_host", Header: "FROM_HOST", Width: 11}, func(j *api.JobRecord, c *valueCtx) (string, bool) { return str(j.FromHost) }},
	{FieldInfo{Name: "first_host", Header: "FIRST_HOST", Width: 11}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		if len(j.ExecHosts) == 0 || j.ExecHosts[0] == nil {
			return "", false
		}
		return str(j.ExecHosts[0].Host)
	}},
	{FieldInfo{Name: "exec_host", Header: "EXEC_HOST", Width: 11}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		// One name per slot, colon-separated: real 10.1 -json output shows
		// "tbi-cn019:tbi-cn019" for two slots on one host (the 4*hostA form
		// is the default listing's).
		return str(strings.Join(slotHosts(j.ExecHosts), ":"))
	}},
	{FieldInfo{Name: "nexec_host", Header: "NEXEC_HOST", Width: 10}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		if n := len(ExecHostList(j.ExecHosts)); n > 0 {
			return strconv.Itoa(n), true
		}
		return "", false
	}},
	{FieldInfo{Name: "ask_hosts", Header: "ASK_HOSTS", Width: 30}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		return str(strings.Join(spec(j).AskedHosts, " "))
	}},
	{FieldInfo{Name: "alloc_slot", Header: "ALLOC_SLOT", Width: 20}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		return str(strings.Join(slotHosts(j.ExecHosts), ":"))
	}},
	{FieldInfo{Name: "nalloc_slot", Header: "NALLOC_SLOT", Width: 10}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		if n := allocSlots(j); n > 0 {
			return strconv.Itoa(n), true
		}
		return "", false
	}},
	{FieldInfo{Name: "host_file", Header: "HOST_FILE", Width: 10}, unset},
	{FieldInfo{Name: "exclusive", Header: "EXCLUSIVE", Width: 13}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		if spec(j).Exclusive {
			return "Y", true
		}
		return "N", true
	}},
	{FieldInfo{Name: "nreq_slot", Header: "NREQ_SLOT", Width: 10}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		return strconv.Itoa(int(max(spec(j).MinProcs, 1))), true
	}},
	{FieldInfo{Name: "submit_time", Header: "SUBMIT_TIME", Width: 15}, func(j *api.JobRecord, c *valueCtx) (string, bool) { return timeVal(j.SubmitTime, c) }},
	{FieldInfo{Name: "start_time", Header: "START_TIME", Width: 15}, func(j *api.JobRecord, c *valueCtx) (string, bool) { return timeVal(j.StartTime, c) }},
	{FieldInfo{Name: "estimated_start_time", Aliases: []string{"estart_time"}, Header: "ESTIMATED_START_TIME", Width: 20}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		return "", false
	}},
	{FieldInfo{Name: "specified_start_time", Aliases: []string{"sstart_time"}, Header: "SPECIFIED_START_TIME", Width: 20}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		return timeVal(spec(j).BeginTime, c)
	}},
	{FieldInfo{Name: "specified_terminate_time", Aliases: []string{"sterminate_time"}, Header: "SPECIFIED_TERMINATE_TIME", Width: 24}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		return timeVal(spec(j).TermTime, c)
	}},
	{FieldInfo{Name: "time_left", Header: "TIME_LEFT", Width: 11}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		return TimeLeft(j, c.o)
	}},
	{FieldInfo{Name: "finish_time", Header: "FINISH_TIME", Width: 16}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		if Finished(j.State) {
			return timeVal(j.EndTime, c)
		}
		return EstimatedFinish(j, c.o)
	}},
	{FieldInfo{Name: "estimated_run_time", Aliases: []string{"ertime"}, Header: "ESTIMATED_RUN_TIME", Width: 20}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		return minutes(limits(j).RunEstimate, c)
	}},
	{FieldInfo{Name: "ru_utime", Header: "RU_UTIME", Width: 12}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		if j.Usage == nil {
			return "", false
		}
		return seconds(j.Usage.UTime, c, true), true
	}},
	{FieldInfo{Name: "ru_stime", Header: "RU_STIME", Width: 12}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		if j.Usage == nil {
			return "", false
		}
		return seconds(j.Usage.STime, c, true), true
	}},
	{FieldInfo{Name: "%complete", Header: "%COMPLETE", Width: 11}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		return Complete(j, c.o)
	}},
	{FieldInfo{Name: "warning_action", Aliases: []string{"warn_act"}, Header: "WARNING_ACTION", Width: 15}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		return str(spec(j).WarningAction)
	}},
	{FieldInfo{Name: "action_warning_time", Aliases: []string{"warn_time"}, Header: "ACTION_WARNING_TIME", Width: 19}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		if t := spec(j).WarningTime; t > 0 {
			return fmt.Sprintf("%d:%02d", t/3600, t%3600/60), true
		}
		return "", false
	}},
	// pendstate and eligible and ineligible pending time (below) are LSF's
	// TRACK_ELIGIBLE_PENDINFO bookkeeping, which Basalt does not keep: "-",
	// as LSF prints them when it is off, never a made-up split of
	// pend_time.
	{FieldInfo{Name: "pendstate", Header: "PENDSTATE", Width: 9}, unset},
	{FieldInfo{Name: "pend_time", Header: "PEND_TIME", Width: 12}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		// Plain seconds ("PEND_TIME":"17" in real 10.1 -json output).
		if c.o != nil && c.o.HMS {
			return HMS(float64(pendTime(j, c.o))), true
		}
		return strconv.FormatInt(pendTime(j, c.o), 10), true
	}},
	{FieldInfo{Name: "ependtime", Header: "EPENDTIME", Width: 12}, unset},
	{FieldInfo{Name: "ipendtime", Header: "IPENDTIME", Width: 12}, unset},
	{FieldInfo{Name: "estimated_sim_start_time", Aliases: []string{"esstart_time"}, Header: "ESTIMATED_SIM_START_TIME", Width: 24}, unset},
	{FieldInfo{Name: "effective_plimit", Header: "EFFECTIVE_PLIMIT", Width: 18}, unset},
	{FieldInfo{Name: "plimit_remain", Header: "PLIMIT_REMAIN", Width: 15}, unset},
	{FieldInfo{Name: "effective_eplimit", Header: "EFFECTIVE_EPLIMIT", Width: 19}, unset},
	{FieldInfo{Name: "eplimit_remain", Header: "EPLIMIT_REMAIN", Width: 16}, unset},
	{FieldInfo{Name: "cpu_used", Header: "CPU_USED", Width: 10}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		if j.Usage == nil {
			return seconds(0, c, true), true
		}
		return seconds(j.Usage.CPUTime, c, true), true
	}},
	{FieldInfo{Name: "run_time", Header: "RUN_TIME", Width: 15}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		return seconds(float64(RunTime(j, c.o)), c, false), true
	}},
	{FieldInfo{Name: "idle_factor", Header: "IDLE_FACTOR", Width: 11}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		rt := RunTime(j, c.o)
		if rt <= 0 || j.Usage == nil {
			return "", false
		}
		return fmt.Sprintf("%.2f", j.Usage.CPUTime/float64(rt)), true
	}},
	{FieldInfo{Name: "exception_status", Aliases: []string{"except_stat"}, Header: "EXCEPTION_STATUS", Width: 16}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		return "", false
	}},
	{FieldInfo{Name: "slots", Header: "SLOTS", Width: 5}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		if n := allocSlots(j); n > 0 {
			return strconv.Itoa(n), true
		}
		return "", false
	}},
	{FieldInfo{Name: "mem", Header: "MEM", Width: 10, Memory: true}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		return usageMem(j, c, func(u *api.Usage) int64 { return u.Mem })
	}},
	{FieldInfo{Name: "max_mem", Header: "MAX_MEM", Width: 10, Memory: true}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		return usageMem(j, c, func(u *api.Usage) int64 { return u.MaxMem })
	}},
	{FieldInfo{Name: "avg_mem", Header: "AVG_MEM", Width: 10, Memory: true}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		return usageMem(j, c, func(u *api.Usage) int64 { return u.AvgMem })
	}},
	{FieldInfo{Name: "memlimit", Header: "MEMLIMIT", Width: 10, Memory: true}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		return limitMem(limits(j).Mem, c)
	}},
	{FieldInfo{Name: "swap", Header: "SWAP", Width: 10, Memory: true}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		return usageMem(j, c, func(u *api.Usage) int64 { return u.Swap })
	}},
	{FieldInfo{Name: "swaplimit", Header: "SWAPLIMIT", Width: 10, Memory: true}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		return limitMem(limits(j).Swap, c)
	}},
	// GPU requirements and allocations: Basalt schedules no GPUs.
	{FieldInfo{Name: "gpu_num", Aliases: []string{"gnum"}, Header: "GPU_NUM", Width: 10}, unset},
	{FieldInfo{Name: "gpu_mode", Aliases: []string{"gmode"}, Header: "GPU_MODE", Width: 20}, unset},
	{FieldInfo{Name: "j_exclusive", Aliases: []string{"j_excl"}, Header: "J_EXCLUSIVE", Width: 15}, unset},
	{FieldInfo{Name: "gpu_alloc", Aliases: []string{"galloc"}, Header: "GPU_ALLOC", Width: 30}, unset},
	{FieldInfo{Name: "nthreads", Header: "NTHREADS", Width: 10}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		if j.Usage == nil || j.Usage.NThreads == 0 {
			return "", false
		}
		return strconv.Itoa(int(j.Usage.NThreads)), true
	}},
	// Host-based resource usage (LSF_HPC_EXTENSIONS=HOST_RUSAGE).
	{FieldInfo{Name: "hrusage", Header: "HRUSAGE", Width: 50, Memory: true}, unset},
	{FieldInfo{Name: "min_req_proc", Header: "MIN_REQ_PROC", Width: 12}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		return strconv.Itoa(int(max(spec(j).MinProcs, 1))), true
	}},
	{FieldInfo{Name: "max_req_proc", Header: "MAX_REQ_PROC", Width: 12}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		s := spec(j)
		return strconv.Itoa(int(max(s.MaxProcs, s.MinProcs, 1))), true
	}},
	{FieldInfo{Name: "effective_resreq", Aliases: []string{"eresreq"}, Header: "EFFECTIVE_RESREQ", Width: 17}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		return str(j.EffectiveResReq)
	}},
	{FieldInfo{Name: "combined_resreq", Aliases: []string{"cresreq"}, Header: "COMBINED_RESREQ", Width: 20}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		if j.CombinedResReq != "" {
			return j.CombinedResReq, true
		}
		if j.EffectiveResReq != "" {
			return j.EffectiveResReq, true
		}
		return str(strings.Join(spec(j).ResReq, " "))
	}},
	{FieldInfo{Name: "network_req", Header: "NETWORK_REQ", Width: 15}, unset},
	{FieldInfo{Name: "filelimit", Header: "FILELIMIT", Width: 10, Memory: true}, func(j *api.JobRecord, c *valueCtx) (string, bool) { return limitMem(limits(j).File, c) }},
	{FieldInfo{Name: "corelimit", Header: "CORELIMIT", Width: 10, Memory: true}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		if limits(j).CoreZero {
			return MemString(0, c.unit), true
		}
		return limitMem(limits(j).Core, c)
	}},
	{FieldInfo{Name: "stacklimit", Header: "STACKLIMIT", Width: 10, Memory: true}, func(j *api.JobRecord, c *valueCtx) (string, bool) { return limitMem(limits(j).Stack, c) }},
	{FieldInfo{Name: "processlimit", Header: "PROCESSLIMIT", Width: 12}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		if p := limits(j).Process; p > 0 {
			return strconv.FormatInt(p, 10), true
		}
		return "", false
	}},
	{FieldInfo{Name: "runtimelimit", Header: "RUNTIMELIMIT", Width: 12}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		run := runLimit(j)
		if run <= 0 {
			return "", false
		}
		if c.o != nil && c.o.HMS {
			return HMS(float64(run)), true
		}
		return fmt.Sprintf("%.1f", float64(run)/60), true
	}},
	// Pending time limits (lsb.queues PEND_TIME_LIMIT, bsub -ptl/-eptl),
	// which Basalt does not have.
	{FieldInfo{Name: "plimit", Header: "PLIMIT", Width: 10}, unset},
	{FieldInfo{Name: "eplimit", Header: "EPLIMIT", Width: 10}, unset},
	{FieldInfo{Name: "input_file", Header: "INPUT_FILE", Width: 10}, func(j *api.JobRecord, c *valueCtx) (string, bool) { return str(spec(j).InFile) }},
	{FieldInfo{Name: "output_file", Header: "OUTPUT_FILE", Width: 11}, func(j *api.JobRecord, c *valueCtx) (string, bool) { return str(spec(j).OutFile) }},
	{FieldInfo{Name: "error_file", Header: "ERROR_FILE", Width: 10}, func(j *api.JobRecord, c *valueCtx) (string, bool) { return str(spec(j).ErrFile) }},
	{FieldInfo{Name: "output_dir", Header: "OUTPUT_DIR", Width: 15}, unset},
	{FieldInfo{Name: "sub_cwd", Header: "SUB_CWD", Width: 10}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		// "$HOME" or "$HOME/x" as bjobs -l shows it (real 10.1 -json
		// output: "SUB_CWD":"$HOME").
		if s := spec(j); s.SubCwd == "" && s.Cwd == "" {
			return "", false
		}
		return cwdText(spec(j)), true
	}},
	{FieldInfo{Name: "exec_home", Header: "EXEC_HOME", Width: 10}, func(j *api.JobRecord, c *valueCtx) (string, bool) { return str(j.ExecHome) }},
	{FieldInfo{Name: "exec_cwd", Header: "EXEC_CWD", Width: 10}, func(j *api.JobRecord, c *valueCtx) (string, bool) { return str(j.ExecCwd) }},
	{FieldInfo{Name: "licproject", Header: "LICPROJECT", Width: 20}, unset},
	// LSF multicluster (job forwarding) fields.
	{FieldInfo{Name: "forward_cluster", Aliases: []string{"fwd_cluster"}, Header: "FORWARD_CLUSTER", Width: 15}, func(j *api.JobRecord, _ *valueCtx) (string, bool) {
		return j.FwdCluster, j.FwdCluster != ""
	}},
	{FieldInfo{Name: "forward_time", Aliases: []string{"fwd_time"}, Header: "FORWARD_TIME", Width: 15}, func(j *api.JobRecord, c *valueCtx) (string, bool) {
		if j.FwdCluster == "" {
			return "", false
		}
		return timeVal(j.FwdTime, c)
	}},
	{FieldInfo{Name: "srcjobid", Header: "SRCJOBID", Width: 8}, func(j *api.JobRecord, _ *valueCtx) (string, bool) {
		return strconv.FormatInt(j.SrcJobID, 10), j.SrcJobID != 0
	}},
	{FieldInfo{Name: "dstjobid", Header: "DSTJOBID", Width: 8}, func(j *api.JobRecord, _ *valueCtx) (string, bool) {
		return strconv.FormatInt(j.DstJobID, 10), j.DstJobID != 0
	}},
	{FieldInfo{Name: "source_cluster", Aliases: []string{"srcluster"}, Header: "SOURCE_CLUSTER", Width: 15}, func(j *api.JobRecord, _ *valueCtx) (string, bool) {
		return j.SrcCluster, j.SrcCluster != ""
	}},
	// LSF Explorer's energy and IBM Spectrum Scale I/O accounting: no
	// recommended width.
	{FieldInfo{Name: "energy", Header: "ENERGY"}, unset},
	{FieldInfo{Name: "gpfsio", Header: "GPFSIO"}, unset},
	// CPU and memory efficiency (Fix Packs 13 and 14), then LSF resource
	// connector's account and VM type (not in the Fix Pack 14 table; kept
	// for the clients that ask for them).
	{FieldInfo{Name: "cpu_peak", Header: "CPU_PEAK", Width: 10}, unset},
	// cpu_efficiency is Fix Pack 13's name of Fix Pack 14's
	// cpu_peak_efficiency.
	{FieldInfo{Name: "cpu_peak_efficiency", Aliases: []string{"cpu_efficiency"}, Header: "CPU_PEAK_EFFICIENCY", Width: 10}, unset},
	{FieldInfo{Name: "mem_efficiency", Header: "MEM_EFFICIENCY", Width: 10}, unset},
	{FieldInfo{Name: "average_cpu_efficiency", Header: "AVERAGE_CPU_EFFICIENCY", Width: 10}, unset},
	{FieldInfo{Name: "cpu_peak_reached_duration", Header: "CPU_PEAK_REACHED_DURATION", Width: 10}, unset},
	{FieldInfo{Name: "rc_account", Header: "RC_ACCOUNT", Width: 20}, unset},
	{FieldInfo{Name: "vm_type", Header: "VM_TYPE", Width: 20}, unset},
}

func unset(*api.JobRecord, *valueCtx) (string, bool) { return "", false }

// minutes formats a duration given in seconds as bjobs -o prints run
// limits: minutes with one decimal ("10.0"), hh:mm:ss with -hms.
func minutes(sec int64, c *valueCtx) (string, bool) {
	if sec <= 0 {
		return "", false
	}
	if c.o != nil && c.o.HMS {
		return HMS(float64(sec)), true
	}
	return fmt.Sprintf("%.1f", float64(sec)/60), true
}

// JobFields is the field set bjobs -o accepts.
var JobFields = &FieldSet{load: func() []FieldInfo {
	infos := make([]FieldInfo, len(jobFields))
	for i, f := range jobFields {
		infos[i] = f.FieldInfo
	}
	return infos
}}

var jobFieldByName = sync.OnceValue(func() map[string]*jobField {
	m := make(map[string]*jobField, len(jobFields))
	for i := range jobFields {
		m[jobFields[i].Name] = &jobFields[i]
	}
	return m
})

func str(s string) (string, bool) { return s, s != "" }

var emptySpec = &api.JobSpec{}
var emptyLimits = &api.Limits{}

func spec(j *api.JobRecord) *api.JobSpec {
	if j.Spec == nil {
		return emptySpec
	}
	return j.Spec
}

func limits(j *api.JobRecord) *api.Limits {
	if s := spec(j); s.Limits != nil {
		return s.Limits
	}
	return emptyLimits
}

func runLimit(j *api.JobRecord) int64 { return limits(j).Run }

func timeVal(t int64, c *valueCtx) (string, bool) {
	if t <= 0 {
		return "", false
	}
	return ShortTime(t, c.o), true
}

// seconds formats a duration of an -o field: "12 second(s)" (run_time,
// pend_time) or "0.4 second(s)" (cpu_used, one decimal), as IBM 10.1 prints
// them; with -hms, hh:mm:ss.
func seconds(s float64, c *valueCtx, decimal bool) string {
	if c.o != nil && c.o.HMS {
		return HMS(s)
	}
	if decimal {
		return fmt.Sprintf("%.1f second(s)", s)
	}
	return fmt.Sprintf("%d second(s)", int64(s))
}

func usageMem(j *api.JobRecord, c *valueCtx, get func(*api.Usage) int64) (string, bool) {
	if j.Usage == nil || j.StartTime <= 0 {
		return "", false
	}
	return MemString(get(j.Usage), c.unit), true
}

func limitMem(kb int64, c *valueCtx) (string, bool) {
	if kb <= 0 {
		return "", false
	}
	return MemString(kb, c.unit), true
}

var memUnits = []string{"K", "M", "G", "T", "P", "E", "Z"}

// MemString formats a size in KB for bjobs -o. With no unit prefix the value
// is scaled to the largest unit that keeps it at least 1 and keeps the
// "bytes" suffix ("2 Mbytes", "1.5 Gbytes"; LSB_UNIT_FOR_JOBS_DISPLAY not
// defined). A unit prefix (KB or K, MB or M, ...) prints two decimals and the
// unit letter ("0.01G"); S scales like the default but drops "bytes"
// ("1.5G"). IBM 10.1 lsf.conf LSB_UNIT_FOR_JOBS_DISPLAY.
func MemString(kb int64, unit string) string {
	v := float64(kb)
	if unit != "" && unit != "S" {
		idx := 0
		for i, u := range memUnits {
			if strings.HasPrefix(unit, u) {
				idx = i
			}
		}
		for i := 0; i < idx; i++ {
			v /= 1024
		}
		return strconv.FormatFloat(ceil2(v), 'f', 2, 64) + memUnits[idx]
	}
	idx := 0
	for v >= 1024 && idx < len(memUnits)-1 {
		v /= 1024
		idx++
	}
	num := strconv.FormatFloat(float64(int64(v*100+0.5))/100, 'f', -1, 64)
	if unit == "S" {
		return num + memUnits[idx]
	}
	return num + " " + memUnits[idx] + "bytes"
}

// ceil2 rounds up at the third decimal, as IBM documents ("10M displays as
// 0.01G").
func ceil2(v float64) float64 {
	c := float64(int64(v * 100))
	if c < v*100 {
		c++
	}
	return c / 100
}

// ExecHostList condenses a job's execution hosts as IBM LSF prints them:
// "hostA" for one slot, "4*hostA" for several, in allocation order, repeated
// hosts merged.
func ExecHostList(hosts []*api.ExecHost) []string {
	var order []string
	count := map[string]int32{}
	for _, h := range hosts {
		if h == nil || h.Host == "" {
			continue
		}
		if _, ok := count[h.Host]; !ok {
			order = append(order, h.Host)
		}
		count[h.Host] += max(h.Slots, 1)
	}
	out := make([]string, len(order))
	for i, h := range order {
		if n := count[h]; n > 1 {
			out[i] = fmt.Sprintf("%d*%s", n, h)
		} else {
			out[i] = h
		}
	}
	return out
}

// slotHosts lists a job's execution hosts once per slot.
func slotHosts(hosts []*api.ExecHost) []string {
	var out []string
	for _, h := range hosts {
		if h == nil || h.Host == "" {
			continue
		}
		for i := int32(0); i < max(h.Slots, 1) && len(out) < 1<<20; i++ {
			out = append(out, h.Host)
		}
	}
	return out
}

func allocSlots(j *api.JobRecord) int {
	if j.NumSlots > 0 {
		return int(j.NumSlots)
	}
	n := 0
	for _, h := range j.ExecHosts {
		if h != nil {
			n += int(max(h.Slots, 1))
		}
	}
	return n
}

// Stat is a job state's STAT string.
func Stat(s api.JobState) string {
	switch {
	case s&api.StateUnkwn != 0:
		return "UNKWN"
	case s&api.StateZombi != 0:
		return "ZOMBI"
	case s&api.StatePend != 0:
		return "PEND"
	case s&api.StatePSusp != 0:
		return "PSUSP"
	case s&api.StateRun != 0:
		return "RUN"
	case s&api.StateSSusp != 0:
		return "SSUSP"
	case s&api.StateUSusp != 0:
		return "USUSP"
	case s&api.StateExit != 0:
		return "EXIT"
	case s&api.StateDone != 0:
		return "DONE"
	case s&api.StateWait != 0:
		return "WAIT"
	}
	return "UNKWN"
}

// Finished reports whether s is DONE or EXIT.
func Finished(s api.JobState) bool { return s&(api.StateDone|api.StateExit) != 0 }

// ExitCode is the exit code bjobs shows for a wait(2) status: the exit
// value, or 128+signal for a job killed by a signal.
func ExitCode(status int32) int {
	if sig := status & 0x7f; sig != 0 && sig != 0x7f {
		return 128 + int(sig)
	}
	return int(status>>8) & 0xff
}

// JobName is a job's name as bjobs shows it: the name given with -J, or the
// command; an array element shows its index, "name[3]", in place of the
// array's index list.
func JobName(j *api.JobRecord) string {
	name := j.JobName
	if name == "" {
		name = spec(j).JobName
	}
	if name == "" {
		name = Command(j)
	}
	if j.Index > 0 {
		if i := strings.IndexByte(name, '['); i >= 0 {
			name = name[:i]
		}
		name = fmt.Sprintf("%s[%d]", name, j.Index)
	}
	return name
}

// Command is the job's command as bjobs shows it: a job script's lines are
// joined with ';' (lsf-clients.md, "#!/bin/bash;#BSUB -q short;...").
func Command(j *api.JobRecord) string {
	c := strings.TrimRight(spec(j).Command, "\n")
	if strings.Contains(c, "\n") {
		c = strings.ReplaceAll(c, "\n", ";")
	}
	return c
}

// Project is the job's project, "default" when none was given.
func Project(j *api.JobRecord) string {
	if j.Project != "" {
		return j.Project // in every record, detailed or not (bjobs -W)
	}
	if p := spec(j).Project; p != "" {
		return p
	}
	return "default"
}

// RunTime is the job's running time in seconds: the sampled value when
// there is one, else the wall time from start to end (or to now).
func RunTime(j *api.JobRecord, o *Options) int64 {
	if j.Usage != nil && j.Usage.RunTime > 0 {
		return j.Usage.RunTime
	}
	if j.StartTime <= 0 {
		return 0
	}
	end := j.EndTime
	if end <= 0 {
		if o == nil || o.Now.IsZero() {
			return 0
		}
		end = o.Now.Unix()
	}
	if end < j.StartTime {
		return 0
	}
	return end - j.StartTime
}

func pendTime(j *api.JobRecord, o *Options) int64 {
	if j.PendTime > 0 {
		return j.PendTime
	}
	end := j.StartTime
	if end <= 0 {
		end = j.EndTime
	}
	if end <= 0 && o != nil && !o.Now.IsZero() {
		end = o.Now.Unix()
	}
	if end <= 0 || j.SubmitTime <= 0 || end < j.SubmitTime {
		return 0
	}
	return end - j.SubmitTime
}

// runEstimate is what bjobs -WL, -WP, -WF and the time_left, %complete
// and finish_time fields measure an unfinished started job against, and
// its mark (IBM 10.1 bjobs -WF): E, the estimated run time (bsub -We)
// not yet exceeded; X, the estimate exceeded (then the run limit, when
// there is one); L, the run limit without an estimate. ok is false for a
// job that has not started, has finished or has neither.
func runEstimate(j *api.JobRecord, o *Options) (dur int64, mark string, ok bool) {
	if j.StartTime <= 0 || Finished(j.State) {
		return 0, "", false
	}
	run, est := runLimit(j), limits(j).RunEstimate
	switch {
	case est > 0 && RunTime(j, o) <= est:
		return est, "E", true
	case est > 0:
		if run > 0 {
			return run, "X", true
		}
		return est, "X", true
	case run > 0:
		return run, "L", true
	}
	return 0, "", false
}

// TimeLeft is bjobs -WL's value: "h:mm M" (hh:mm:ss with -hms), M the
// runEstimate mark; ok false prints "-".
func TimeLeft(j *api.JobRecord, o *Options) (string, bool) {
	dur, mark, ok := runEstimate(j, o)
	if !ok {
		return "", false
	}
	left := max(dur-RunTime(j, o), 0)
	if o != nil && o.HMS {
		return HMS(float64(left)) + " " + mark, true
	}
	return fmt.Sprintf("%d:%02d %s", left/3600, left%3600/60, mark), true
}

// Complete is bjobs -WP's value: the run time as a percentage of the
// estimate or limit, "25% L".
func Complete(j *api.JobRecord, o *Options) (string, bool) {
	dur, mark, ok := runEstimate(j, o)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("%.0f%% %s", float64(RunTime(j, o))/float64(dur)*100, mark), true
}

// EstimatedFinish is bjobs -WF's value for an unfinished job: when its
// estimate or limit ends, "Mar 31 15:03 L".
func EstimatedFinish(j *api.JobRecord, o *Options) (string, bool) {
	dur, mark, ok := runEstimate(j, o)
	if !ok {
		return "", false
	}
	return ShortTime(j.StartTime+dur, o) + " " + mark, true
}
