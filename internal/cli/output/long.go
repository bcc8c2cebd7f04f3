package output

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/basalt-lsf/basalt/api"
)

// WriteJobsLong writes bjobs -l: for each job a blank line, the job's
// header, its dated events wrapped at 79 columns with 21-space continuation
// (see wrap), then memory usage, pending or suspending reasons and the
// scheduling parameters; jobs are separated by a line of 78 dashes and the
// output ends with a blank line (OpenLava bjobs.c; IBM 10.1 phrases).
func WriteJobsLong(w io.Writer, jobs []*api.JobRecord, o *Options, fl JobsFlags) error {
	var b strings.Builder
	n := 0
	for _, j := range jobs {
		if j == nil {
			continue
		}
		if n > 0 {
			b.WriteString(longSeparator + "\n")
		}
		writeJobLong(&b, j, o, fl)
		n++
	}
	if n > 0 {
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// LongJobRef is "123" or "123[4]" for an array element.
func LongJobRef(id int64, index int32) string {
	if index > 0 {
		return fmt.Sprintf("%d[%d]", id, index)
	}
	return strconv.FormatInt(id, 10)
}

func hasJobName(j *api.JobRecord) bool {
	return spec(j).JobName != "" || (j.JobName != "" && j.JobName != Command(j))
}

// jobHeaderLine is "Job <1>, Job Name <n>, User <u>, Project <p>, ...,
// Command <c>" (cmd.job.c prtHeader); status and queue are left out for
// bhist.
func jobHeaderLine(j *api.JobRecord, withStatus bool) string {
	s := spec(j)
	var b strings.Builder
	fmt.Fprintf(&b, "Job <%s>,", LongJobRef(j.JobID, j.Index))
	if hasJobName(j) {
		fmt.Fprintf(&b, " Job Name <%s>,", JobName(j))
	}
	fmt.Fprintf(&b, " User <%s>, Project <%s>,", j.User, Project(j))
	if s.MailUser != "" {
		fmt.Fprintf(&b, " Mail <%s>,", s.MailUser)
	}
	if withStatus {
		fmt.Fprintf(&b, " Status <%s>, Queue <%s>,", Stat(j.State), j.Queue)
	}
	if s.Interactive {
		b.WriteString(" Interactive mode,")
	}
	if s.UserPriority > 0 {
		fmt.Fprintf(&b, " Job Priority <%d>,", s.UserPriority)
	}
	fmt.Fprintf(&b, " Command <%s>", Command(j))
	if s.Description != "" {
		fmt.Fprintf(&b, ", Job Description <%s>", s.Description)
	}
	return b.String()
}

// cwdText shows a submission directory as LSF does: relative to the
// submitter's home as "$HOME/x", "$HOME" for the home itself.
func cwdText(s *api.JobSpec) string {
	cwd := s.SubCwd
	if cwd == "" {
		cwd = s.Cwd
	}
	home := strings.TrimRight(s.SubHome, "/")
	switch {
	case cwd == "":
		return "$HOME"
	case home != "" && cwd == home:
		return "$HOME"
	case home != "" && strings.HasPrefix(cwd, home+"/"):
		return "$HOME/" + cwd[len(home)+1:]
	}
	return cwd
}

// submitDetails is what follows "Submitted from host <h>" in bjobs -l and
// bhist -l (cmd.job.c prtJobSubmit, prtFileNames, prtSubDetails; IBM wording
// "N Task(s)").
func submitDetails(j *api.JobRecord, o *Options, toQueue bool) string {
	s := spec(j)
	var b strings.Builder
	if s.Hold {
		b.WriteString(" with hold")
	}
	if toQueue {
		fmt.Fprintf(&b, ", to Queue <%s>", j.Queue)
	}
	fmt.Fprintf(&b, ", CWD <%s>", cwdText(s))
	if s.BeginTime > 0 {
		fmt.Fprintf(&b, ", Specified Start Time <%s>", LongTime(s.BeginTime, o))
	}
	if s.TermTime > 0 {
		fmt.Fprintf(&b, ", Specified Termination Time <%s>", LongTime(s.TermTime, o))
	}
	if s.InFile != "" {
		if s.InSpool {
			fmt.Fprintf(&b, ", Input File(Spooled) <%s>", s.InFile)
		} else {
			fmt.Fprintf(&b, ", Input File <%s>", s.InFile)
		}
	}
	if s.OutFile != "" {
		fmt.Fprintf(&b, ", Output File <%s>", s.OutFile)
	}
	if s.ErrFile != "" {
		fmt.Fprintf(&b, ", Error File <%s>", s.ErrFile)
	}
	if len(s.Files) > 0 {
		b.WriteString(", Copy Files")
		for _, f := range s.Files {
			if f != nil {
				fmt.Fprintf(&b, " \"%s %s %s\"", f.Local, f.Op, f.Remote)
			}
		}
	}
	switch {
	case s.NotifyBegin && s.NotifyEnd:
		b.WriteString(", Notify when job begins/ends")
	case s.NotifyBegin:
		b.WriteString(", Notify when job begins")
	case s.NotifyEnd:
		b.WriteString(", Notify when job ends")
	}
	if s.Exclusive {
		b.WriteString(", Exclusive Execution")
	}
	if s.Rerunnable {
		b.WriteString(", Re-runnable")
	}
	if s.ChkpntDir != "" {
		if s.ChkpntPeriod > 0 {
			fmt.Fprintf(&b, ", Checkpoint period %d min.", s.ChkpntPeriod/60)
		}
		fmt.Fprintf(&b, ", Checkpoint directory <%s>", s.ChkpntDir)
	}
	if s.MinProcs > 1 || s.MaxProcs > 1 {
		if s.MaxProcs <= s.MinProcs {
			fmt.Fprintf(&b, ", %d Task(s)", max(s.MinProcs, s.MaxProcs))
		} else {
			fmt.Fprintf(&b, ", %d-%d Task(s)", s.MinProcs, s.MaxProcs)
		}
	}
	if len(s.ResReq) > 0 {
		fmt.Fprintf(&b, ", Requested Resources <%s>", strings.Join(s.ResReq, " "))
	}
	b.WriteString(gpuRequested(s))
	if s.AutoResizable {
		b.WriteString(", Autoresizable")
	}
	if s.ResizeNotifyCmd != "" {
		fmt.Fprintf(&b, ", Resize Notification Command <%s>", s.ResizeNotifyCmd)
	}
	if s.Dependency != "" {
		fmt.Fprintf(&b, ", Dependency Condition <%s>", s.Dependency)
	}
	if s.LoginShell != "" {
		fmt.Fprintf(&b, ", Login Shell <%s>", s.LoginShell)
	}
	if s.PreExec != "" {
		fmt.Fprintf(&b, ", Pre-execute Command <%s>", s.PreExec)
	}
	if s.PostExec != "" {
		fmt.Fprintf(&b, ", Post-execute Command <%s>", s.PostExec)
	}
	if len(s.AskedHosts) > 0 {
		fmt.Fprintf(&b, ", Specified Hosts <%s>", s.AskedHosts[0])
		for _, h := range s.AskedHosts[1:] {
			fmt.Fprintf(&b, ", <%s>", h)
		}
	}
	b.WriteByte(';')
	return b.String()
}

// limitsBlock is the resource limit block printed after the submission line
// (cmd.prt.c prtResourceLimit): CPULIMIT and RUNLIMIT in minutes, then the
// size limits in KB.
func limitsBlock(l *api.Limits) string {
	if l == nil {
		return ""
	}
	var b strings.Builder
	if l.CPU > 0 || l.Run > 0 {
		b.WriteByte('\n')
		if l.CPU > 0 {
			fmt.Fprintf(&b, " %-24s", "CPULIMIT")
		}
		if l.Run > 0 {
			fmt.Fprintf(&b, " %-24s", "RUNLIMIT")
		}
		b.WriteByte('\n')
		for _, v := range []struct {
			sec  int64
			host string
		}{{l.CPU, l.CPUHost}, {l.Run, l.RunHost}} {
			if v.sec <= 0 {
				continue
			}
			s := fmt.Sprintf(" %.1f min", float64(v.sec)/60)
			if v.host != "" {
				s += " of " + v.host
			}
			b.WriteString(pad(s, 25))
		}
		b.WriteByte('\n')
	}
	type sz struct {
		name string
		kb   int64
	}
	var sizes []sz
	for _, s := range []sz{{"FILELIMIT", l.File}, {"DATALIMIT", l.Data}, {"STACKLIMIT", l.Stack},
		{"CORELIMIT", l.Core}, {"MEMLIMIT", l.Mem}, {"SWAPLIMIT", l.Swap}, {"PROCESSLIMIT", l.Process}} {
		if s.kb > 0 || s.name == "CORELIMIT" && l.CoreZero {
			sizes = append(sizes, s)
		}
	}
	if len(sizes) > 0 {
		b.WriteByte('\n')
		for _, s := range sizes {
			b.WriteString(" " + s.name)
		}
		b.WriteByte('\n')
		for _, s := range sizes {
			switch s.name {
			case "PROCESSLIMIT":
				fmt.Fprintf(&b, " %6d      ", s.kb)
			case "FILELIMIT", "DATALIMIT":
				// Not scaled by LSF_UNIT_FOR_LIMITS: always KB.
				fmt.Fprintf(&b, " %6d K ", s.kb)
			default:
				t := limitText(s.kb)
				if s.kb == 0 {
					// A zero core limit: LSF prints it in LSF_UNIT_FOR_LIMITS
					// ("0 M", Toil's fixture of real output); zero is zero
					// in any unit, so the output assumes MB, the unit LSF's
					// installer and Basalt's default configuration set.
					t = "0 M"
				}
				fmt.Fprintf(&b, " %8s ", t)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// hostsText is " <hostA> <4*hostB>".
func hostsText(hosts []string) string {
	var b strings.Builder
	for _, h := range hosts {
		b.WriteString(" <" + h + ">")
	}
	return b.String()
}

// memText is LSF's -l memory amount: "512 Kbytes" below a megabyte, "6
// Mbytes" (whole megabytes, as cmd.job.c prints them), "1.3 Gbytes" from a
// gigabyte on.
func memText(kb int64) string {
	n, unit := memAmount(kb, false)
	return n + " " + unit + "bytes"
}

// limitText is a size limit as bjobs -l and bqueues -l print it: in KB
// below a megabyte, otherwise in the largest unit it reaches (IBM 10.1:
// "MEMLIMIT" over "48 G" for a 49152 MB limit).
func limitText(kb int64) string {
	n, unit := memAmount(kb, true)
	return n + " " + unit
}

// memAmount is kb in the largest of K, M, G and T it reaches: kilobytes
// whole, megabytes whole or (mbTenths) to a tenth, gigabytes and terabytes
// to a tenth, without a trailing ".0" (IBM 10.1: "MAX MEM: 1.3 Gbytes",
// "997 Mbytes", "48 Gbytes").
func memAmount(kb int64, mbTenths bool) (string, string) {
	switch {
	case kb >= 1<<30:
		return tenths(kb, 1<<30), "T"
	case kb >= 1<<20:
		return tenths(kb, 1<<20), "G"
	case kb >= 1024 && mbTenths:
		return tenths(kb, 1024), "M"
	case kb >= 1024:
		return strconv.FormatInt(kb/1024, 10), "M"
	}
	return strconv.FormatInt(max(kb, 0), 10), "K"
}

// tenths is kb in units of unit KB to a tenth, without a trailing ".0".
func tenths(kb, unit int64) string {
	return strconv.FormatFloat(math.Round(float64(kb)*10/float64(unit))/10, 'f', -1, 64)
}

// exitText is the phrase of a finished job: "Done successfully." or
// "Exited with exit code 1." / "Exited by signal 9.".
func exitText(j *api.JobRecord) string {
	if j.State&api.StateDone != 0 {
		return "Done successfully."
	}
	st := j.ExitStatus
	if sig := st & 0x7f; sig != 0 && sig != 0x7f {
		// IBM 10.1: a job LSF itself killed names the termination reason
		// ("Exited by LSF signal TERM_RUNLIMIT."; lsfMonitor matches it).
		if j.TermReason != "" {
			return "Exited by LSF signal " + j.TermReason + "."
		}
		return fmt.Sprintf("Exited by signal %d.", sig)
	}
	return fmt.Sprintf("Exited with exit code %d.", (st>>8)&0xff)
}

func cpuUsed(j *api.JobRecord) float64 {
	if j.Usage == nil {
		return 0
	}
	return j.Usage.CPUTime
}

// event wraps one dated line: the continuation indent is the width of the
// time stamp and its ": " (21, or 26 when the year is shown, as in IBM's
// bhist -l output).
func event(b *strings.Builder, t int64, o *Options, text string) {
	ts := LongTime(t, o)
	o.wrap(b, ts+": "+text, len(ts)+2)
}

// headerIndent is the continuation indent of a job's header line.
func headerIndent(o *Options) int {
	if o != nil && o.DisplayYear {
		return indent21 + 5
	}
	return indent21
}

func writeJobLong(b *strings.Builder, j *api.JobRecord, o *Options, fl JobsFlags) {
	b.WriteByte('\n')
	o.wrap(b, jobHeaderLine(j, true), headerIndent(o))
	s := spec(j)
	event(b, j.SubmitTime, o, "Submitted from host <"+j.FromHost+">"+submitDetails(j, o, false))
	b.WriteString(limitsBlock(s.Limits))
	if j.FwdCluster != "" && j.FwdTime > 0 {
		// MultiCluster job forwarding (IBM 10.1's wording).
		event(b, j.FwdTime, o, fmt.Sprintf("Job <%s> forwarded to cluster <%s>;", LongJobRef(j.JobID, j.Index), j.FwdCluster))
	}
	hosts := ExecHostList(j.ExecHosts)
	if j.StartTime > 0 && len(hosts) > 0 {
		slots := allocSlots(j)
		line := fmt.Sprintf("Started %d Task(s) on Host(s)%s, Allocated %d Slot(s) on Host(s)%s",
			slots, hostsText(hosts), slots, hostsText(hosts))
		if j.ExecHome != "" {
			line += ", Execution Home <" + j.ExecHome + ">"
		}
		if j.ExecCwd != "" {
			line += ", Execution CWD <" + j.ExecCwd + ">"
		}
		if j.ExecUser != "" && j.ExecUser != j.User {
			line += ", Execution user name <" + j.ExecUser + ">"
		}
		event(b, max(j.StartTime, j.SubmitTime), o, line+";")
		writeResizeLong(b, j, o)
	}
	if u := j.Usage; u != nil && u.SampledAt > 0 && !Finished(j.State) {
		event(b, u.SampledAt, o, "Resource usage collected.")
		ind := strings.Repeat(" ", indent21)
		if u.CPUTime > 0 {
			b.WriteString(ind + fmt.Sprintf("The CPU time used is %d seconds.", int64(u.CPUTime)) + "\n")
		}
		b.WriteString(ind + fmt.Sprintf("MEM: %s;  SWAP: %s;  NTHREAD: %d", memText(u.Mem), memText(u.Swap), u.NThreads) + "\n")
		if len(u.PIDs) > 0 {
			ps := make([]string, len(u.PIDs))
			for i, p := range u.PIDs {
				ps[i] = strconv.Itoa(int(p))
			}
			o.wrap(b, ind+fmt.Sprintf("PGID: %d;  PIDs: %s", u.PGID, strings.Join(ps, " ")), indent21)
		}
	}
	if Finished(j.State) && j.EndTime > 0 {
		event(b, j.EndTime, o, fmt.Sprintf("%s The CPU time used is %.1f seconds.", exitText(j), cpuUsed(j)))
		if j.State&api.StateExit != 0 && j.TermReason != "" {
			event(b, j.EndTime, o, "Completed <exit>; "+termText(j.TermReason)+".")
		}
	}
	if u := j.Usage; u != nil && u.MaxMem > 0 {
		fmt.Fprintf(b, "\n MEMORY USAGE:\n MAX MEM: %s;  AVG MEM: %s\n", memText(u.MaxMem), memText(u.AvgMem))
	}
	switch {
	case j.State&api.StatePend != 0 && len(j.PendReasons) > 0:
		b.WriteString("\n PENDING REASONS:\n")
		b.WriteString(PendReasonLines(j.PendReasons, fl.PendHosts))
	case j.State&api.StatePSusp != 0:
		b.WriteString("\n PENDING REASONS:\n")
		b.WriteString(PendReasonLines(j.PendReasons, fl.PendHosts))
	case j.State&(api.StateSSusp|api.StateUSusp) != 0:
		b.WriteString("\n SUSPENDING REASONS:\n")
		b.WriteString(SuspReasonLine(j.SuspReasons, j.SuspSubreason))
	}
	b.WriteString("\n SCHEDULING PARAMETERS:\n")
	b.WriteString(thresholdTable(j.Thresholds))
	writeResReqDetails(b, j, o)
	writeGPUDetails(b, j, fl)
}

// writeResReqDetails writes the RESOURCE REQUIREMENT DETAILS block that ends
// a job in IBM 10.1's bjobs -l: the job's requirement merged with its
// profile's and its queue's ("Combined") and the one its current or last run
// was scheduled with ("Effective", the combined one while the job has not
// run). Lines wrap as the job's events do; a pending job whose requirement
// does not parse has neither, and no block.
func writeResReqDetails(b *strings.Builder, j *api.JobRecord, o *Options) {
	combined, effective := j.CombinedResReq, j.EffectiveResReq
	if effective == "" {
		effective = combined
	}
	if combined == "" {
		combined = effective
	}
	if combined == "" {
		return
	}
	b.WriteString("\n RESOURCE REQUIREMENT DETAILS:\n")
	o.wrap(b, " Combined: "+combined, indent21)
	o.wrap(b, " Effective: "+effective, indent21)
}
