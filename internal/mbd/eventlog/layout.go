package eventlog

import "strconv"

// The field order of every record type. Sources, cited per type:
//
//   - OL: OpenLava/volclava lsbatch/lib/lsb.log.c, the writers
//     (writeJobNew ... writeJobFinish) and readers (readJobNew ...): the
//     exact order for versions "1.0" to "4.0" and volclava "2.x"
//     (lsf-reference-appendix.md §B).
//   - IBM: IBM/Platform LSF. The IBM layouts share OpenLava's prefix (the
//     positions that HTCondor BLAH's BLParserLSF.c and the Snakemake LSF
//     plugin's awk script read: JOB_NEW $5 userId and $42 jobName, JOB_START
//     token 9 the first execution host, JOB_STATUS $5 jStatus and token 29
//     exitStatus after 19 rusage numbers, JOB_SIGNAL token 6 the signal).
//     Where they differ, the order below is checked against real records: a
//     "9.13" JOB_NEW (userGroup and exceptList between loginShell and
//     options2) and a "10.1" JOB_FINISH that matches, field for field, IBM
//     LSF 10.1's lsb.acct documentation (timeEvent before idx, postExecCmd
//     after app, and the long IBM tail). IBM fields whose order is not
//     documented are decoded in soft parts (see soft): a mismatch there
//     drops the rest of the line, never the record.
//
// Basalt writes version "10.1" records in the IBM layout. What LSF 10 keeps
// in fields of unknown position (application, job group, post-exec of
// JOB_NEW...) Basalt keeps in its extension list (coder.ext) at the end.

func rlimits(c coder, p *[NumRlimits]int64) {
	for i := range p {
		c.int("rLimits", &p[i])
	}
}

func xfiles(c coder, p *[]XFile) {
	if !count(c, "nxf", p, 3) {
		return
	}
	for i := range *p {
		c.str("subFn", &(*p)[i].SubFn)
		c.str("execFn", &(*p)[i].ExecFn)
		c.int("xfOptions", &(*p)[i].Options)
	}
}

// JOB_NEW. OL writeJobNew; IBM: userGroup, exceptList after loginShell (real
// "9.13" record), no postExecCmd after preExecCmd (IBM logs it among the
// later fields, as JOB_FINISH does).
func (l *JobNew) fields(c coder) {
	c.int("jobId", &l.JobID)
	c.int("userId", &l.UserID)
	c.int("options", &l.Options)
	c.int("numProcessors", &l.NumProcessors)
	c.int("submitTime", &l.SubmitTime)
	c.int("beginTime", &l.BeginTime)
	c.int("termTime", &l.TermTime)
	c.int("sigValue", &l.SigValue)
	c.int("chkpntPeriod", &l.ChkpntPeriod)
	c.int("restartPid", &l.RestartPID)
	c.str("userName", &l.UserName)
	rlimits(c, &l.RLimits)
	c.str("hostSpec", &l.HostSpec)
	c.float("hostFactor", &l.HostFactor, 6, 2) // "%6.2f"
	c.int("umask", &l.Umask)
	c.str("queue", &l.Queue)
	c.str("resReq", &l.ResReq)
	c.str("fromHost", &l.FromHost)
	c.str("cwd", &l.Cwd)
	c.str("chkpntDir", &l.ChkpntDir)
	c.str("inFile", &l.InFile)
	c.str("outFile", &l.OutFile)
	c.str("errFile", &l.ErrFile)
	c.str("subHomeDir", &l.SubHomeDir)
	c.str("jobFile", &l.JobFile)
	c.strs("numAskedHosts", &l.AskedHosts)
	c.str("dependCond", &l.DependCond)
	c.str("preExecCmd", &l.PreExecCmd)
	if !c.ibm() && l.Options&SubPostExec != 0 {
		c.str("postExecCmd", &l.PostExecCmd)
	}
	c.str("jobName", &l.JobName)
	c.str("command", &l.Command)
	xfiles(c, &l.XFiles)
	c.str("mailUser", &l.MailUser)
	c.str("projectName", &l.ProjectName)
	if l.Options&SubInteractive != 0 {
		c.int("niosPort", &l.NiosPort)
	}
	c.int("maxNumProcessors", &l.MaxNumProcessors)
	c.str("schedHostType", &l.SchedHostType)
	c.str("loginShell", &l.LoginShell)
	if c.ibm() {
		c.str("userGroup", &l.UserGroup)
		c.str("exceptList", &l.ExceptList)
	}
	c.int("options2", &l.Options2)
	c.int("idx", &l.Idx)
	// OL reads niosPort after idx for bsub -K jobs, if present.
	if l.Options2&Sub2BsubBlock != 0 && c.more() {
		c.int("niosPort", &l.NiosPort)
	}
	// Older OpenLava versions end here.
	if !c.more() {
		return
	}
	c.str("inFileSpool", &l.InFileSpool)
	c.str("commandSpool", &l.CommandSpool)
	c.str("jobSpoolDir", &l.JobSpoolDir)
	c.int("userPriority", &l.UserPriority)
	if c.ibm() {
		c.ext(&l.Ext)
		return
	}
	if c.more() { // volclava 2.2
		c.str("jobDesc", &l.JobDesc)
	}
}

// JOB_START. OL writeJobStart: ... jFlags idx [effeResReq (volclava)]. IBM
// (Platform LSF 8 jobStartLog): jFlags userGroup idx additionalInfo
// duration4PreemptBackfill jFlags2, decoded softly.
func (l *JobStart) fields(c coder) {
	c.int("jobId", &l.JobID)
	c.int("jStatus", &l.JStatus)
	c.int("jobPid", &l.JobPID)
	c.int("jobPGid", &l.JobPGID)
	c.float("hostFactor", &l.HostFactor, 3, 1) // "%3.1f"
	c.strs("numExHosts", &l.ExecHosts)
	c.str("queuePreCmd", &l.QueuePreCmd)
	c.str("queuePostCmd", &l.QueuePostCmd)
	c.int("jFlags", &l.JFlags)
	if !c.ibm() {
		c.int("idx", &l.Idx)
		if c.more() {
			c.str("effeResReq", &l.EffectiveResReq)
		}
		return
	}
	soft(c, func() {
		c.str("userGroup", &l.UserGroup)
		c.int("idx", &l.Idx)
		if !c.more() {
			return
		}
		c.str("additionalInfo", &l.AdditionalInfo)
		c.int("duration4PreemptBackfill", &l.Duration4PreemptBackfill)
		c.int("jFlags2", &l.JFlags2)
		c.ext(&l.Ext)
	})
}

// JOB_START_ACCEPT. OL writeJobStartAccept.
func (l *JobStartAccept) fields(c coder) {
	c.int("jobId", &l.JobID)
	c.int("jobPid", &l.JobPID)
	c.int("jobPGid", &l.JobPGID)
	c.int("idx", &l.Idx)
}

// JOB_EXECUTE. OL writeJobExecute.
func (l *JobExecute) fields(c coder) {
	c.int("jobId", &l.JobID)
	c.int("execUid", &l.ExecUID)
	c.int("jobPGid", &l.JobPGID)
	c.str("execCwd", &l.ExecCwd)
	c.str("execHome", &l.ExecHome)
	c.str("execUsername", &l.ExecUsername)
	c.int("jobPid", &l.JobPID)
	c.int("idx", &l.Idx)
}

// JOB_STATUS. OL writeJobStatus: ... ru [19 rusage] exitStatus idx [maxMem
// avgMem (volclava 2.2)]. IBM (Platform LSF 8/9 jobStatusLog; jFlags is not
// logged, as BLAH's token 29 shows): exitStatus idx exitInfo numhRusages
// hostRusage... maxMem avgMem, decoded softly.
func (l *JobStatus) fields(c coder) {
	c.int("jobId", &l.JobID)
	c.int("jStatus", &l.JStatus)
	c.int("reason", &l.Reason)
	c.int("subreasons", &l.Subreasons)
	c.float("cpuTime", &l.CPUTime, 4, 4) // "%4.4f"
	c.int("endTime", &l.EndTime)
	var ru int64
	if l.Rusage != nil {
		ru = 1
	}
	c.int("ru", &ru)
	if ru != 0 {
		if c.decoding() {
			l.Rusage = new(Rusage)
		}
		rusage(c, l.Rusage)
	}
	c.int("exitStatus", &l.ExitStatus)
	c.int("idx", &l.Idx)
	if !c.more() {
		return
	}
	if !c.ibm() {
		c.int("maxMem", &l.MaxMem)
		c.int("avgMem", &l.AvgMem)
		return
	}
	soft(c, func() {
		c.int("exitInfo", &l.ExitInfo)
		hostRusage(c, &l.HostRusage)
		c.int("maxMem", &l.MaxMem)
		c.int("avgMem", &l.AvgMem)
	})
}

// hostRusage is IBM's numhRusages followed by (hostname mem swap utime
// stime) entries (lsb.acct 10.1 hostRusage).
func hostRusage(c coder, p *[]HostRusage) {
	if !count(c, "numHostRusage", p, 5) {
		return
	}
	for i := range *p {
		h := &(*p)[i]
		c.str("hostname", &h.Host)
		c.int("mem", &h.Mem)
		c.int("swap", &h.Swap)
		c.int("utime", &h.UTime)
		c.int("stime", &h.STime)
	}
}

// JOB_SWITCH. OL writeJobSwitch.
func (l *JobSwitch) fields(c coder) {
	c.int("userId", &l.UserID)
	c.int("jobId", &l.JobID)
	c.str("queue", &l.Queue)
	c.int("idx", &l.Idx)
	c.str("userName", &l.UserName)
}

// JOB_MOVE. OL writeJobMove.
func (l *JobMove) fields(c coder) {
	c.int("userId", &l.UserID)
	c.int("jobId", &l.JobID)
	c.int("position", &l.Position)
	c.int("base", &l.Base)
	c.int("idx", &l.Idx)
	c.str("userName", &l.UserName)
}

// QUEUE_CTRL. OL writeQueueCtrl; the comment is volclava 2.1's msg and LSF
// 6.2's ctrlComments.
func (l *QueueCtrl) fields(c coder) {
	c.int("opCode", &l.OpCode)
	c.str("queue", &l.Queue)
	c.int("userId", &l.UserID)
	c.str("userName", &l.UserName)
	if c.more() {
		c.str("ctrlComments", &l.Message)
	}
}

// HOST_CTRL. OL writeHostCtrl; LSF 6.2 lsb.events documents the same order.
func (l *HostCtrl) fields(c coder) {
	c.int("opCode", &l.OpCode)
	c.str("host", &l.Host)
	c.int("userId", &l.UserID)
	c.str("userName", &l.UserName)
	if c.more() {
		c.str("ctrlComments", &l.Message)
	}
}

// MBD_START. OL writeMbdStart; LSF 6.2 documents the same order.
func (l *MbdStart) fields(c coder) {
	c.str("master", &l.Master)
	c.str("cluster", &l.Cluster)
	c.int("numHosts", &l.NumHosts)
	c.int("numQueues", &l.NumQueues)
}

// MBD_DIE. OL writeMbdDie.
func (l *MbdDie) fields(c coder) {
	c.str("master", &l.Master)
	c.int("numRemoveJobs", &l.NumRemoveJobs)
	c.int("exitCode", &l.ExitCode)
	if c.more() {
		c.str("ctrlComments", &l.Message)
	}
}

// JOB_SIGNAL. OL writeJobSignal.
func (l *JobSignal) fields(c coder) {
	c.int("jobId", &l.JobID)
	c.int("userId", &l.UserID)
	c.int("runCount", &l.RunCount)
	c.str("signalSymbol", &l.SignalSymbol)
	c.int("idx", &l.Idx)
	c.str("userName", &l.UserName)
}

// JOB_REQUEUE. OL writeJobRqueue.
func (l *JobRequeue) fields(c coder) {
	c.int("jobId", &l.JobID)
	c.int("idx", &l.Idx)
}

// JOB_CLEAN. OL writeJobClean.
func (l *JobClean) fields(c coder) {
	c.int("jobId", &l.JobID)
	c.int("idx", &l.Idx)
}

// JOB_FORWARD (LSF 10.1 lsb.events: jobId numReserHosts cluster
// reserHosts idx jobRmtAttr; the host list written after the cluster).
func (l *JobForward) fields(c coder) {
	c.int("jobId", &l.JobID)
	n := int64(len(l.ReserHosts))
	c.int("numReserHosts", &n)
	c.str("cluster", &l.Cluster)
	if n < 0 || n > 1024 {
		n = 0
	}
	if len(l.ReserHosts) != int(n) {
		l.ReserHosts = make([]string, n)
	}
	for i := range l.ReserHosts {
		c.str("reserHosts", &l.ReserHosts[i])
	}
	c.int("idx", &l.Idx)
	c.int("jobRmtAttr", &l.JobRmtAttr)
}

// JOB_FORCE. OL writeJobForce.
func (l *JobForce) fields(c coder) {
	c.int("jobId", &l.JobID)
	c.int("userId", &l.UserID)
	c.int("idx", &l.Idx)
	c.int("options", &l.Options)
	c.strs("numExecHosts", &l.ExecHosts)
	c.str("userName", &l.UserName)
}

// LOG_SWITCH. OL writeLogSwitch.
func (l *LogSwitch) fields(c coder) {
	c.int("lastJobId", &l.LastJobID)
}

// JOB_MODIFY2. OL writeJobMod; presence of most fields follows the option
// bits. IBM's order is not documented here: after userName, IBM records are
// decoded softly.
func (l *JobModify2) fields(c coder) {
	c.str("jobIdStr", &l.JobIDStr)
	c.int("options", &l.Options)
	c.int("options2", &l.Options2)
	c.int("delOptions", &l.DelOptions)
	c.int("userId", &l.UserID)
	c.str("userName", &l.UserName)
	if c.ibm() && c.decoding() {
		soft(c, func() { l.rest(c) })
		return
	}
	l.rest(c)
}

func (l *JobModify2) rest(c coder) {
	c.int("submitTime", &l.SubmitTime)
	c.int("umask", &l.Umask)
	c.int("numProcessors", &l.NumProcessors)
	c.int("beginTime", &l.BeginTime)
	c.int("termTime", &l.TermTime)
	c.int("sigValue", &l.SigValue)
	c.int("restartPid", &l.RestartPID)
	if l.Options&SubJobName != 0 {
		c.str("jobName", &l.JobName)
	}
	if l.Options&SubQueue != 0 {
		c.str("queue", &l.Queue)
	}
	if l.Options&SubHost != 0 {
		c.strs("numAskedHosts", &l.AskedHosts)
	}
	if l.Options&SubResReq != 0 {
		c.str("resReq", &l.ResReq)
	}
	rlimits(c, &l.RLimits)
	if l.Options&SubHostSpec != 0 {
		c.str("hostSpec", &l.HostSpec)
	}
	if l.Options&SubDependCond != 0 {
		c.str("dependCond", &l.DependCond)
	}
	c.str("subHomeDir", &l.SubHomeDir)
	if l.Options&SubInFile != 0 || l.Options2&Sub2InFileSpool != 0 {
		c.str("inFile", &l.InFile)
	}
	if l.Options&SubOutFile != 0 {
		c.str("outFile", &l.OutFile)
	}
	if l.Options&SubErrFile != 0 {
		c.str("errFile", &l.ErrFile)
	}
	if l.Options2&Sub2ModifyCmd != 0 {
		c.str("command", &l.Command)
	}
	if l.Options&SubChkpntPeriod != 0 {
		c.int("chkpntPeriod", &l.ChkpntPeriod)
	}
	if l.Options&SubChkpntDir != 0 {
		c.str("chkpntDir", &l.ChkpntDir)
	}
	if l.Options&SubOtherFiles != 0 {
		xfiles(c, &l.XFiles)
	}
	c.str("jobFile", &l.JobFile)
	c.str("fromHost", &l.FromHost)
	c.str("cwd", &l.Cwd)
	if l.Options&SubPreExec != 0 {
		c.str("preExecCmd", &l.PreExecCmd)
	}
	if l.Options&SubPostExec != 0 {
		c.str("postExecCmd", &l.PostExecCmd)
	}
	if l.Options&SubMailUser != 0 {
		c.str("mailUser", &l.MailUser)
	}
	if l.Options&SubProjectName != 0 {
		c.str("projectName", &l.ProjectName)
	}
	c.int("niosPort", &l.NiosPort)
	c.int("maxNumProcessors", &l.MaxNumProcessors)
	if l.Options&SubLoginShell != 0 {
		c.str("loginShell", &l.LoginShell)
	}
	c.str("schedHostType", &l.SchedHostType)
	c.int("delOptions2", &l.DelOptions2)
	if l.Options2&Sub2InFileSpool != 0 {
		c.str("inFileSpool", &l.InFileSpool)
	}
	if l.Options2&Sub2JobCmdSpool != 0 {
		c.str("commandSpool", &l.CommandSpool)
	}
	if l.Options2&Sub2JobPriority != 0 {
		c.int("userPriority", &l.UserPriority)
	}
	// volclava 2.2 reads jobDesc for versions >= 2.2; older writers end
	// before it.
	if l.Options2&Sub2JobDesc != 0 && c.more() {
		c.str("jobDesc", &l.JobDesc)
	}
	c.ext(&l.Ext)
}

// JOB_FINISH (lsb.acct). OL writeJobFinish up to loginShell (with
// postExecCmd after preExecCmd when SUB_POST_EXEC is set), then idx maxRMem
// maxRSwap inFileSpool commandSpool. IBM: no postExecCmd there, and after
// loginShell IBM LSF 10.1's lsb.acct fields, in its documented order
// (checked against a real "10.1" record), decoded softly for other IBM
// versions.
func (l *JobFinish) fields(c coder) {
	c.int("jobId", &l.JobID)
	c.int("userId", &l.UserID)
	c.int("options", &l.Options)
	c.int("numProcessors", &l.NumProcessors)
	c.int("submitTime", &l.SubmitTime)
	c.int("beginTime", &l.BeginTime)
	c.int("termTime", &l.TermTime)
	c.int("startTime", &l.StartTime)
	c.str("userName", &l.UserName)
	c.str("queue", &l.Queue)
	c.str("resReq", &l.ResReq)
	c.str("dependCond", &l.DependCond)
	c.str("preExecCmd", &l.PreExecCmd)
	if !c.ibm() && l.Options&SubPostExec != 0 {
		c.str("postExecCmd", &l.PostExecCmd)
	}
	c.str("fromHost", &l.FromHost)
	c.str("cwd", &l.Cwd)
	c.str("inFile", &l.InFile)
	c.str("outFile", &l.OutFile)
	c.str("errFile", &l.ErrFile)
	c.str("jobFile", &l.JobFile)
	c.strs("numAskedHosts", &l.AskedHosts)
	c.strs("numExHosts", &l.ExecHosts)
	c.int("jStatus", &l.JStatus)
	c.float("hostFactor", &l.HostFactor, 3, 1) // "%3.1f"
	c.str("jobName", &l.JobName)
	c.str("command", &l.Command)
	rusage(c, &l.Rusage)
	c.str("mailUser", &l.MailUser)
	c.str("projectName", &l.ProjectName)
	c.int("exitStatus", &l.ExitStatus)
	c.int("maxNumProcessors", &l.MaxNumProcessors)
	c.str("loginShell", &l.LoginShell)
	if !c.ibm() {
		// OL: idx maxRMem maxRSwap inFileSpool commandSpool; older
		// versions end earlier.
		if !c.more() {
			return
		}
		c.int("idx", &l.Idx)
		if !c.more() {
			return
		}
		c.int("maxRMem", &l.MaxRMem)
		c.int("maxRSwap", &l.MaxRSwap)
		if !c.more() {
			return
		}
		c.str("inFileSpool", &l.InFileSpool)
		c.str("commandSpool", &l.CommandSpool)
		return
	}
	soft(c, func() { l.ibmTail(c) })
}

func (l *JobFinish) ibmTail(c coder) {
	c.str("timeEvent", &l.TimeEvent)
	c.int("idx", &l.Idx)
	c.int("maxRMem", &l.MaxRMem)
	c.int("maxRSwap", &l.MaxRSwap)
	c.str("inFileSpool", &l.InFileSpool)
	c.str("commandSpool", &l.CommandSpool)
	if !c.more() {
		return
	}
	c.str("rsvId", &l.RsvID)
	c.str("sla", &l.SLA)
	c.int("exceptMask", &l.ExceptMask)
	c.str("additionalInfo", &l.AdditionalInfo)
	c.int("exitInfo", &l.ExitInfo)
	c.str("warningAction", &l.WarningAction)
	c.int("warningTimePeriod", &l.WarningTime)
	c.str("chargedSAAP", &l.ChargedSAAP)
	c.str("licenseProject", &l.LicenseProject)
	c.str("app", &l.App)
	c.str("postExecCmd", &l.PostExecCmd)
	c.int("runtimeEstimation", &l.RuntimeEstimation)
	c.str("jobGroupName", &l.JobGroupName)
	c.str("requeueEValues", &l.RequeueEValues)
	c.int("options2", &l.Options2)
	c.str("resizeNotifyCmd", &l.ResizeNotifyCmd)
	c.int("lastResizeTime", &l.LastResizeTime)
	c.str("rsvId", &l.RsvID2)
	c.str("jobDescription", &l.JobDescription)
	if !c.more() {
		return
	}
	// submitEXT: Num, then (key %d, value %s) pairs; keys are integers.
	if !count(c, "submitEXT", &l.SubmitExt, 2) {
		return
	}
	for i := range l.SubmitExt {
		kv := &l.SubmitExt[i]
		if n, err := strconv.ParseInt(kv.Key, 10, 64); err == nil && !c.decoding() {
			c.int("key", &n)
		} else {
			c.str("key", &kv.Key)
		}
		c.str("value", &kv.Value)
	}
	hostRusage(c, &l.HostRusage)
	c.int("options3", &l.Options3)
	c.int("runLimit", &l.RunLimit)
	c.int("avgMem", &l.AvgMem)
	c.str("effectiveResReq", &l.EffectiveResReq)
	c.str("srcCluster", &l.SrcCluster)
	c.int("srcJobId", &l.SrcJobID)
	c.str("dstCluster", &l.DstCluster)
	c.int("dstJobId", &l.DstJobID)
	c.int("forwardTime", &l.ForwardTime)
	c.str("flow_id", &l.FlowID)
	c.int("acJobWaitTime", &l.AcJobWaitTime)
	c.int("totalProvisionTime", &l.TotalProvisionTime)
	c.str("outdir", &l.OutDir)
	c.int("runTime", &l.RunTime)
	c.str("subcwd", &l.SubCwd)
	if !count(c, "num_network", &l.Networks, 2) {
		return
	}
	for i := range l.Networks {
		c.str("networkID", &l.Networks[i].ID)
		c.int("num_window", &l.Networks[i].NumWindow)
	}
	c.str("affinity", &l.Affinity)
	c.float("serial_job_energy", &l.SerialJobEnergy, 1, 6) // "%f"
	c.float("cpi", &l.CPI, 1, 2)
	c.float("gips", &l.GIPS, 1, 2)
	c.float("gbs", &l.GBS, 1, 2)
	c.float("gflops", &l.GFLOPS, 1, 2)
	c.strs("numAllocSlots", &l.AllocSlots)
	c.int("ineligiblePendTime", &l.IneligiblePendTime)
	if !count(c, "indexRangeCnt", &l.IndexRanges, 3) {
		return
	}
	for i := range l.IndexRanges {
		r := &l.IndexRanges[i]
		c.int("indexRangeStart", &r.Start)
		c.int("indexRangeEnd", &r.End)
		c.int("indexRangeStep", &r.Step)
	}
	c.int("requeueTime", &l.RequeueTime)
	if !count(c, "numGPURusages", &l.GPURusages, 2) {
		return
	}
	for i := range l.GPURusages {
		c.str("hostname", &l.GPURusages[i].Host)
		kvs(c, "numKVP", &l.GPURusages[i].KVs)
	}
	// The real 10.1 record ends here; later fix packs add the rest.
	if !c.more() {
		return
	}
	c.strs("storageInfoC", &l.StorageInfo)
	if !c.more() {
		return
	}
	kvs(c, "numKVP", &l.Ext)
}
