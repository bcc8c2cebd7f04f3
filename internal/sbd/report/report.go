package report

import (
	"fmt"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/basalt-lsf/basalt/api"
)

// Separator is the line of dashes LSF draws around the job's input, and
// before the report when it follows the job's output.
const Separator = "------------------------------------------------------------"

// Job is what the report says about a finished job.
type Job struct {
	JobID    int64
	Index    int32
	JobName  string
	Cluster  string
	User     string // submitter
	ExecUser string
	FromHost string
	Queue    string
	Hosts    []*api.ExecHost
	ExecHome string
	ExecCwd  string
	// Command is the user's input: the command line or the job script.
	Command string
	// Sender is the administrator and host the report comes from:
	// "LSF System <lsfadmin@host>".
	Admin, Host string

	SubmitTime, StartTime, EndTime, ReportTime time.Time

	WaitStatus int32
	// TermReason is the TERM_* keyword when LSF killed the job.
	TermReason string
	// Requeued: brequeue killed the job and it goes back to pending.
	Requeued bool

	Usage *api.Usage
	// MaxProcs is the largest number of processes seen at once.
	MaxProcs int
	// MaxThreads is the largest number of threads seen at once.
	MaxThreads int
	// ReqMem is the memory the job reserved (rusage[mem]), in KB; 0 when
	// it reserved none.
	ReqMem int64

	// Notes are printed after "PS:" (files the output went to, problems
	// writing it).
	Notes []string
}

// Done reports whether the job succeeded (exit status 0).
func (j *Job) Done() bool {
	ws := syscall.WaitStatus(j.WaitStatus)
	return ws.Exited() && ws.ExitStatus() == 0
}

// ctime is C's ctime(3) layout, which LSF prints.
const ctime = "Mon Jan _2 15:04:05 2006"

// Format returns the report as LSF appends it to the job's output file:
// starting with a line of dashes after a blank line.
// Start is how every report begins: bpeek stops where a following job's
// output meets it.
const Start = "\n" + Separator + "\nSender: LSF System <"

func Format(j *Job) []byte {
	var b strings.Builder
	b.WriteString("\n" + Separator + "\n")
	body(&b, j)
	b.WriteString("\nThe output (if any) is above this job summary.\n\n")
	notes(&b, j)
	return []byte(b.String())
}

// sender is the report's first line.
func sender(b *strings.Builder, j *Job) {
	admin := j.Admin
	if admin == "" {
		admin = "lsfadmin"
	}
	fmt.Fprintf(b, "Sender: LSF System <%s@%s>\n", admin, j.Host)
}

// id is the job's ID as LSF prints it: "N" or "N[I]".
func (j *Job) id() string {
	id := strconv.FormatInt(j.JobID, 10)
	if j.Index > 0 {
		id += "[" + strconv.Itoa(int(j.Index)) + "]"
	}
	return id
}

// where prints the lines that say where and how the job ran, from its
// submission to its start.
func where(b *strings.Builder, j *Job) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("Job <%s> was submitted from host <%s> by user <%s> in cluster <%s> at %s\n",
		j.JobName, j.FromHost, j.User, j.Cluster, when(j.SubmitTime))
	hosts := hostList(j.Hosts)
	first := ""
	if len(hosts) > 0 {
		first = hosts[0]
	}
	p("Job was executed on host(s) <%s>, in queue <%s>, as user <%s> in cluster <%s> at %s\n",
		first, j.Queue, j.ExecUser, j.Cluster, when(j.StartTime))
	for _, h := range hosts[min(1, len(hosts)):] {
		p("%28s<%s>\n", "", h)
	}
	if j.ExecHome == "" {
		p("Execution home directory was not known.\n")
	} else {
		p("<%s> was used as the home directory.\n", j.ExecHome)
	}
	if j.ExecCwd == "" {
		p("Execution working directory was not known.\n")
	} else {
		p("<%s> was used as the working directory.\n", j.ExecCwd)
	}
	p("Started at %s\n", when(j.StartTime))
}

// body is the report from its Sender line to the resource usage summary.
func body(b *strings.Builder, j *Job) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	sender(b, j)
	result := "Exited"
	if j.Done() {
		result = "Done"
	}
	p("Subject: Job %s: <%s> in cluster <%s> %s\n\n", j.id(), j.JobName, j.Cluster, result)
	where(b, j)
	p("Terminated at %s\n", when(j.EndTime))
	p("Results reported at %s\n", when(j.ReportTime))
	p("\nYour job looked like:\n\n%s\n# LSBATCH: User input\n", Separator)
	b.WriteString(j.Command)
	if !strings.HasSuffix(j.Command, "\n") {
		b.WriteByte('\n')
	}
	p("%s\n\n", Separator)
	if t := TermText(j.TermReason); t != "" && j.TermReason != "TERM_UNKNOWN" {
		p("%s: %s.\n", j.TermReason, t)
	}
	p("%s.\n\n", Outcome(j.WaitStatus, j.Requeued))
	usageSummary(b, j)
}

// notes prints the PS section (nothing without notes).
func notes(b *strings.Builder, j *Job) {
	if len(j.Notes) > 0 {
		b.WriteString("\n\nPS:\n\n")
		for _, n := range j.Notes {
			b.WriteString(strings.TrimRight(n, "\n") + "\n")
		}
		b.WriteByte('\n')
	}
}

func when(t time.Time) string {
	if t.IsZero() {
		return "unknown time in the past"
	}
	return t.Format(ctime)
}

// hostList compresses the execution hosts LSF's way: "host" for one slot,
// "N*host" for several.
func hostList(hs []*api.ExecHost) []string {
	var out []string
	for _, h := range hs {
		if h.Slots > 1 {
			out = append(out, strconv.Itoa(int(h.Slots))+"*"+h.Host)
		} else {
			out = append(out, h.Host)
		}
	}
	return out
}

// Outcome is the result line without its final period: "Successfully
// completed", "Exited with exit code N", "Exited with signal termination:
// Killed[, and core dumped]".
func Outcome(waitStatus int32, requeued bool) string {
	ws := syscall.WaitStatus(waitStatus)
	switch {
	case ws.Exited() && ws.ExitStatus() == 0:
		return "Successfully completed"
	case ws.Signaled():
		s := "Exited with signal termination: " + SignalText(ws.Signal())
		if ws.CoreDump() {
			s += ", and core dumped"
		}
		return s
	case requeued:
		return "Job was killed by user or admin, and will be re-queued with the same jobid"
	case ws.Exited():
		return "Exited with exit code " + strconv.Itoa(ws.ExitStatus())
	}
	return "Exited with unknown status 0" + strconv.FormatInt(int64(waitStatus), 8)
}

// row prints one usage line: the label right after four blanks, the value
// from column 50.
func row(b *strings.Builder, label, value string) {
	fmt.Fprintf(b, "%-49s%s\n", "    "+label+" :", value)
}

func usageSummary(b *strings.Builder, j *Job) {
	b.WriteString("Resource usage summary:\n\n")
	u := j.Usage
	if u == nil {
		u = &api.Usage{}
	}
	row(b, "CPU time", fmt.Sprintf("%.2f sec.", u.CPUTime))
	dash := "-"
	mb := func(kb int64) string {
		if kb <= 0 {
			return dash
		}
		return strconv.FormatInt((kb+512)/1024, 10) + " MB"
	}
	mbf := func(kb int64) string {
		if kb <= 0 {
			return dash
		}
		return fmt.Sprintf("%.2f MB", float64(kb)/1024)
	}
	row(b, "Max Memory", mb(u.MaxMem))
	row(b, "Average Memory", mbf(u.AvgMem))
	row(b, "Total Requested Memory", mbf(j.ReqMem))
	delta := dash
	if j.ReqMem > 0 && u.MaxMem > 0 {
		delta = fmt.Sprintf("%.2f MB", float64(j.ReqMem-u.MaxMem)/1024)
	}
	row(b, "Delta Memory", delta)
	row(b, "Max Swap", mb(u.MaxSwap))
	count := func(n int) string {
		if n <= 0 {
			return dash
		}
		return strconv.Itoa(n)
	}
	row(b, "Max Processes", count(j.MaxProcs))
	row(b, "Max Threads", count(j.MaxThreads))
	row(b, "Run time", fmt.Sprintf("%d sec.", secs(j.EndTime.Sub(j.StartTime), j.StartTime, j.EndTime)))
	row(b, "Turnaround time", fmt.Sprintf("%d sec.", secs(j.EndTime.Sub(j.SubmitTime), j.SubmitTime, j.EndTime)))
}

func secs(d time.Duration, from, to time.Time) int64 {
	if from.IsZero() || to.IsZero() || d < 0 {
		return 0
	}
	return int64(d.Round(time.Second) / time.Second)
}
