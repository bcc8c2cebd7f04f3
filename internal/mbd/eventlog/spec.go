package eventlog

import (
	"strconv"
	"strings"

	"github.com/basalt-lsf/basalt/api"
)

// Keys of Basalt's extension list (coder.ext, JOB_FINISH's finishKVP): the
// submission parameters that OpenLava's fields do not hold and whose IBM
// positions are not documented. Values are strings; flags are "Y".
const (
	ExtApp           = "app"           // -app
	ExtJobGroup      = "jobGroup"      // -g
	ExtReservation   = "rsvId"         // -U: the advance reservation
	ExtSLA           = "sla"           // -sla
	ExtPostExec      = "postExec"      // -Ep
	ExtSubCwd        = "subCwd"        // submission cwd, when -cwd was given
	ExtOutOverwrite  = "outOverwrite"  // -oo
	ExtErrOverwrite  = "errOverwrite"  // -eo
	ExtWarningAction = "warningAction" // -wa
	ExtWarningTime   = "warningTime"   // -wt, seconds
	ExtRunEstimate   = "runEstimate"   // -We, seconds
	ExtThreadLimit   = "threadLimit"   // -T
	ExtCPULimitHost  = "cpuLimitHost"  // -c .../host
	ExtRunLimitHost  = "runLimitHost"  // -W .../host
	ExtDescription   = "description"   // -Jd
	ExtEsub          = "esub"          // -a
	ExtShell         = "shell"         // #! of a script
	ExtScript        = "script"        // the command is a job script
	ExtNotRerunnable = "notRerunnable" // -rn
	ExtQueues        = "queues"        // -q candidates, blank-separated
	ExtResReq        = "resReq"        // one per -R when there are several
	ExtUserGroup     = "userGroup"     // -G (JOB_FINISH has no field for it)
	ExtExecRusage    = "execRusage"    // JOB_START: the rusage alternative reserved
	ExtEffResReq     = "effResReq"     // JOB_START: the requirement as scheduled
	ExtForced        = "forced"        // JOB_START: brun
	ExtNoSuspend     = "noSuspend"     // JOB_START: brun -f
	ExtTermReason    = "termReason"    // JOB_FINISH: TERM_* keyword Basalt gave
)

const yes = "Y"

// specOptions returns the SUB_* and SUB2_* bits describing spec (which
// parameters were given).
func specOptions(s *api.JobSpec, project string) (opts, opts2 int64) {
	set := func(cond bool, bit int64) {
		if cond {
			opts |= bit
		}
	}
	set(s.JobName != "", SubJobName)
	set(len(s.Queues) > 0, SubQueue)
	set(len(s.AskedHosts) > 0, SubHost)
	set(s.InFile != "", SubInFile)
	set(s.OutFile != "", SubOutFile)
	set(s.ErrFile != "", SubErrFile)
	set(s.Exclusive, SubExclusive)
	set(s.NotifyEnd, SubNotifyEnd)
	set(s.NotifyBegin, SubNotifyBegin)
	set(s.UserGroup != "", SubUserGroup)
	set(s.ChkpntPeriod > 0, SubChkpntPeriod)
	set(s.ChkpntDir != "", SubChkpntDir)
	set(s.Rerunnable, SubRerunnable)
	set(s.RestartDir != "", SubRestart)
	set(s.RestartForce, SubRestartForce)
	set(hostSpec(s.Limits) != "", SubHostSpec)
	set(s.Dependency != "", SubDependCond)
	set(len(s.ResReq) > 0, SubResReq)
	set(len(s.Files) > 0, SubOtherFiles)
	set(s.PreExec != "", SubPreExec)
	set(s.LoginShell != "", SubLoginShell)
	set(s.MailUser != "", SubMailUser)
	set(project != "" || s.Project != "", SubProjectName)
	set(s.Interactive, SubInteractive)
	set(s.Pty, SubPty)
	set(s.PtyShell, SubPtyShell)
	set(s.PostExec != "", SubPostExec)
	opts |= SubRlimitUnitIsKB
	if s.Hold {
		opts2 |= Sub2Hold
	}
	if s.Wait {
		opts2 |= Sub2BsubBlock
	}
	if s.InSpool {
		opts2 |= Sub2InFileSpool
	}
	if s.CmdSpoolName != "" {
		opts2 |= Sub2JobCmdSpool
	}
	if s.UserPriority > 0 {
		opts2 |= Sub2JobPriority
	}
	return opts, opts2
}

func hostSpec(l *api.Limits) string {
	if l == nil {
		return ""
	}
	if l.CPUHost != "" {
		return l.CPUHost
	}
	return l.RunHost
}

// rlimitsOf returns the 11 rLimits of a job: seconds for CPU and RUN, KB
// for sizes (with SUB_RLIMIT_UNIT_IS_KB), -1 for no limit.
func rlimitsOf(l *api.Limits) [NumRlimits]int64 {
	var r [NumRlimits]int64
	for i := range r {
		r[i] = -1
	}
	if l == nil {
		return r
	}
	set := func(i int, v int64) {
		if v > 0 {
			r[i] = v
		}
	}
	set(RlimitCPU, l.CPU)
	set(RlimitFSize, l.File)
	set(RlimitData, l.Data)
	set(RlimitStack, l.Stack)
	set(RlimitCore, l.Core)
	if l.CoreZero {
		r[RlimitCore] = 0
	}
	set(RlimitRSS, l.Mem)
	set(RlimitSwap, l.Swap)
	set(RlimitRun, l.Run)
	set(RlimitProcess, l.Process)
	return r
}

// limitsOf is rlimitsOf's inverse. Size limits without the KB option bit
// are bytes (OpenLava-era records) and are converted to KB.
func limitsOf(r [NumRlimits]int64, options int64, ext []KV) *api.Limits {
	kb := options&SubRlimitUnitIsKB != 0
	get := func(i int, size bool) int64 {
		v := r[i]
		if v <= 0 {
			return 0
		}
		if size && !kb {
			v /= 1024
		}
		return v
	}
	l := &api.Limits{
		CPU: get(RlimitCPU, false), File: get(RlimitFSize, true), Data: get(RlimitData, true),
		Stack: get(RlimitStack, true), Core: get(RlimitCore, true), Mem: get(RlimitRSS, true),
		Swap: get(RlimitSwap, true), Run: get(RlimitRun, false), Process: get(RlimitProcess, false),
	}
	l.CoreZero = r[RlimitCore] == 0
	l.CPUHost, _ = Lookup(ext, ExtCPULimitHost)
	l.RunHost, _ = Lookup(ext, ExtRunLimitHost)
	l.RunEstimate = extInt(ext, ExtRunEstimate)
	l.Thread = extInt(ext, ExtThreadLimit)
	if *l == (api.Limits{}) {
		return nil
	}
	return l
}

func extInt(ext []KV, key string) int64 {
	v, _ := Lookup(ext, key)
	n, _ := strconv.ParseInt(v, 10, 64)
	return n
}

// specExt returns the extension list of a submission. finish leaves out
// what JOB_FINISH has fields for.
func specExt(s *api.JobSpec, finish bool) []KV {
	var kv []KV
	add := func(k, v string) {
		if v != "" {
			kv = append(kv, KV{k, v})
		}
	}
	flag := func(k string, b bool) {
		if b {
			kv = append(kv, KV{k, yes})
		}
	}
	num := func(k string, n int64) {
		if n != 0 {
			kv = append(kv, KV{k, strconv.FormatInt(n, 10)})
		}
	}
	if !finish {
		add(ExtApp, s.App)
		add(ExtJobGroup, s.JobGroup)
		add(ExtReservation, s.Reservation)
		add(ExtSLA, s.SLA)
		add(ExtPostExec, s.PostExec)
		add(ExtWarningAction, s.WarningAction)
		num(ExtWarningTime, s.WarningTime)
		add(ExtDescription, s.Description)
	} else {
		add(ExtUserGroup, s.UserGroup)
	}
	if s.Cwd != "" {
		add(ExtSubCwd, s.SubCwd)
	}
	flag(ExtOutOverwrite, s.OutOverwrite)
	flag(ExtErrOverwrite, s.ErrOverwrite)
	if l := s.Limits; l != nil {
		num(ExtRunEstimate, l.RunEstimate)
		num(ExtThreadLimit, l.Thread)
		add(ExtCPULimitHost, l.CPUHost)
		add(ExtRunLimitHost, l.RunHost)
	}
	add(ExtEsub, s.EsubParams)
	add(ExtShell, s.Shell)
	flag(ExtScript, s.FromScript)
	flag(ExtNotRerunnable, s.NotRerunnable)
	if len(s.Queues) > 1 {
		add(ExtQueues, strings.Join(s.Queues, " "))
	}
	if len(s.ResReq) > 1 {
		for _, r := range s.ResReq {
			kv = append(kv, KV{ExtResReq, r})
		}
	}
	return kv
}

// commandLine is the command field of a job: the command line, or for a job
// script its lines joined with ";" (LSF shows a script job that way).
func commandLine(s *api.JobSpec) string {
	if !s.FromScript || !strings.ContainsAny(s.Command, "\n") {
		return s.Command
	}
	lines := strings.Split(strings.TrimRight(s.Command, "\n"), "\n")
	return strings.Join(lines, ";")
}

// jobNameOf is the job name LSF logs: the -J value (name[index_list]%limit
// for an array), "" when -J was not given.
func jobNameOf(s *api.JobSpec, name, arraySpec string, limit int32) string {
	if s.JobName == "" {
		return ""
	}
	if arraySpec == "" {
		if name != "" {
			return name
		}
		return s.JobName
	}
	n := name + "[" + arraySpec + "]"
	if limit > 0 {
		n += "%" + strconv.Itoa(int(limit))
	}
	return n
}

func cwdOf(s *api.JobSpec) string {
	if s.Cwd != "" {
		return s.Cwd
	}
	return s.SubCwd
}

func xfilesOf(fs []*api.FileTransfer) []XFile {
	var out []XFile
	for _, f := range fs {
		var op int64
		switch f.Op {
		case ">":
			op = XFSub2Exec
		case "<":
			op = XFExec2Sub
		case "<<":
			op = XFExec2SubAppend
		case "><", "<>":
			op = XFSub2Exec | XFExec2Sub
		default:
			op = XFSub2Exec
		}
		out = append(out, XFile{SubFn: f.Local, ExecFn: f.Remote, Options: op})
	}
	return out
}

func transfersOf(xs []XFile) []*api.FileTransfer {
	var out []*api.FileTransfer
	for _, x := range xs {
		op := ">"
		switch {
		case x.Options&XFSub2Exec != 0 && x.Options&(XFExec2Sub|XFExec2SubAppend) != 0:
			op = "><"
		case x.Options&XFExec2SubAppend != 0:
			op = "<<"
		case x.Options&XFExec2Sub != 0:
			op = "<"
		}
		out = append(out, &api.FileTransfer{Local: x.SubFn, Remote: x.ExecFn, Op: op})
	}
	return out
}

// specFromNew rebuilds the submission parameters of a JOB_NEW record.
func specFromNew(l *JobNew) *api.JobSpec {
	s := &api.JobSpec{
		Command: l.Command, JobName: l.JobName, MinProcs: int32(l.NumProcessors),
		MaxProcs: int32(l.MaxNumProcessors), AskedHosts: l.AskedHosts,
		InFile: l.InFile, OutFile: l.OutFile, ErrFile: l.ErrFile,
		SubHome: l.SubHomeDir, Project: l.ProjectName, UserGroup: l.UserGroup,
		Dependency: l.DependCond, Exclusive: l.Options&SubExclusive != 0,
		Rerunnable: l.Options&SubRerunnable != 0, Hold: l.Options2&Sub2Hold != 0,
		BeginTime: l.BeginTime, TermTime: l.TermTime, Wait: l.Options2&Sub2BsubBlock != 0,
		PreExec: l.PreExecCmd, PostExec: l.PostExecCmd, LoginShell: l.LoginShell,
		MailUser: l.MailUser, NotifyBegin: l.Options&SubNotifyBegin != 0,
		NotifyEnd: l.Options&SubNotifyEnd != 0, Files: transfersOf(l.XFiles),
		Umask: uint32(l.Umask), FromHost: l.FromHost, ChkpntDir: l.ChkpntDir,
		ChkpntPeriod: l.ChkpntPeriod, Interactive: l.Options&SubInteractive != 0,
		Pty: l.Options&SubPty != 0, PtyShell: l.Options&SubPtyShell != 0,
		InSpool: l.Options2&Sub2InFileSpool != 0, Description: l.JobDesc,
	}
	if l.Options2&Sub2JobPriority != 0 && l.UserPriority > 0 {
		s.UserPriority = int32(l.UserPriority)
	}
	if l.Queue != "" && l.Options&SubQueue != 0 {
		s.Queues = []string{l.Queue}
	}
	if l.ResReq != "" {
		s.ResReq = []string{l.ResReq}
	}
	s.Limits = limitsOf(l.RLimits, l.Options, l.Ext)
	applyExt(s, l.Cwd, l.Ext)
	return s
}

// applyExt sets the fields a record's extension list carries; cwd is the
// record's cwd field.
func applyExt(s *api.JobSpec, cwd string, ext []KV) {
	get := func(k string) string { v, _ := Lookup(ext, k); return v }
	has := func(k string) bool { return get(k) == yes }
	if v, ok := Lookup(ext, ExtSubCwd); ok {
		s.Cwd, s.SubCwd = cwd, v
	} else {
		s.SubCwd = cwd
	}
	if v := get(ExtApp); v != "" {
		s.App = v
	}
	if v := get(ExtJobGroup); v != "" {
		s.JobGroup = v
	}
	s.Reservation = get(ExtReservation)
	if v := get(ExtSLA); v != "" {
		s.SLA = v
	}
	if v := get(ExtPostExec); v != "" {
		s.PostExec = v
	}
	if v := get(ExtWarningAction); v != "" {
		s.WarningAction = v
	}
	if n := extInt(ext, ExtWarningTime); n != 0 {
		s.WarningTime = n
	}
	if v := get(ExtDescription); v != "" {
		s.Description = v
	}
	if v := get(ExtUserGroup); v != "" {
		s.UserGroup = v
	}
	s.OutOverwrite = has(ExtOutOverwrite)
	s.ErrOverwrite = has(ExtErrOverwrite)
	s.EsubParams = get(ExtEsub)
	s.Shell = get(ExtShell)
	s.FromScript = has(ExtScript)
	s.NotRerunnable = has(ExtNotRerunnable)
	if v := get(ExtQueues); v != "" {
		s.Queues = strings.Fields(v)
	}
	var rs []string
	for _, kv := range ext {
		if kv.Key == ExtResReq {
			rs = append(rs, kv.Value)
		}
	}
	if rs != nil {
		s.ResReq = rs
	}
}

// expandHosts lists each host once per slot, as LSF's execHosts do.
func expandHosts(hs []*api.ExecHost) []string {
	var out []string
	for _, h := range hs {
		n := h.Slots
		if n <= 0 {
			n = 1
		}
		for i := int32(0); i < n; i++ {
			out = append(out, h.Host)
		}
	}
	return out
}

// groupHosts is expandHosts' inverse: hosts in order of first appearance
// with their slot counts.
func groupHosts(names []string) []*api.ExecHost {
	var out []*api.ExecHost
	for _, n := range names {
		found := false
		for _, h := range out {
			if h.Host == n {
				h.Slots++
				found = true
				break
			}
		}
		if !found {
			out = append(out, &api.ExecHost{Host: n, Slots: 1})
		}
	}
	return out
}

// rusageOf converts a job's usage to lsfRusage; what Basalt does not
// measure is -1, as LSF logs unavailable values.
func rusageOf(u *api.Usage) Rusage {
	r := Rusage{
		UTime: -1, STime: -1, MaxRSS: -1, IXRSS: -1, ISMRSS: -1, IDRSS: -1, ISRSS: -1,
		MinFlt: -1, MajFlt: -1, NSwap: -1, InBlock: -1, OuBlock: -1, IOCh: -1,
		MsgSnd: -1, MsgRcv: -1, NSignals: -1, NVCSW: -1, NIVCSW: -1, ExUTime: -1,
	}
	if u == nil {
		return r
	}
	r.UTime, r.STime = u.UTime, u.STime
	if u.UTime == 0 && u.STime == 0 && u.CPUTime > 0 {
		r.UTime, r.STime = u.CPUTime, 0
	}
	r.MaxRSS = float64(u.MaxMem)
	r.MinFlt, r.MajFlt = float64(u.MinFlt), float64(u.MajFlt)
	r.InBlock, r.OuBlock = float64(u.InBlock), float64(u.OuBlock)
	r.NVCSW, r.NIVCSW = float64(u.NVCSW), float64(u.NIVCSW)
	return r
}

// usageOf is rusageOf's inverse; -1 becomes 0.
func usageOf(r *Rusage) *api.Usage {
	pos := func(v float64) float64 {
		if v < 0 {
			return 0
		}
		return v
	}
	i := func(v float64) int64 { return int64(pos(v)) }
	u := &api.Usage{
		UTime: pos(r.UTime), STime: pos(r.STime), MaxMem: i(r.MaxRSS),
		MinFlt: i(r.MinFlt), MajFlt: i(r.MajFlt), InBlock: i(r.InBlock),
		OuBlock: i(r.OuBlock), NVCSW: i(r.NVCSW), NIVCSW: i(r.NIVCSW),
	}
	u.CPUTime = u.UTime + u.STime
	return u
}
