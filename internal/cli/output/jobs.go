package output

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/basalt-lsf/basalt/api"
)

// JobsFlags choose bjobs' list layout.
type JobsFlags struct {
	// GPU is bjobs -l -gpu: each started job's GPU allocation, GPUHosts
	// the GPUs of the hosts (bhosts' data) for their models and sizes.
	GPU      bool
	GPUHosts map[string][]*api.HostGPU
	// GPUDefault is lsf.conf's LSB_GPU_REQ (GPU REQUIREMENT DETAILS).
	GPUDefault string
	// W is -W: resource usage and times columns, times as 03/31-14:46:42.
	W bool
	// PendOnly is "bjobs -p" without other state options: the pending-job
	// header, which has no EXEC_HOST column (OpenLava bjobs.c, options ==
	// PEND_JOB).
	PendOnly bool
	// PendReasons prints each pending job's reasons under it (-p).
	PendReasons bool
	// SuspReasons prints each suspended job's reasons under it (-s).
	SuspReasons bool
	// PendHosts lists host names instead of host counts (-l with -p).
	PendHosts bool
	// WL, WP and WF add TIME_LEFT, %COMPLETE and FINISH_TIME after
	// SUBMIT_TIME (-WL, -WP, -WF): the time left, the percentage done and
	// the estimated finish of a started job against its estimated run time
	// or run limit, marked E, X or L (see TimeLeft); a finished job's
	// FINISH_TIME is when it finished.
	WL, WP, WF bool
}

// estimateColumns are the -WL, -WP, -WF columns asked for, in that order.
func (fl JobsFlags) estimateColumns() []estimateColumn {
	var cs []estimateColumn
	if fl.WL {
		cs = append(cs, estimateColumn{"TIME_LEFT", 11, TimeLeft})
	}
	if fl.WP {
		cs = append(cs, estimateColumn{"%COMPLETE", 11, Complete})
	}
	if fl.WF {
		cs = append(cs, estimateColumn{"FINISH_TIME", 16, func(j *api.JobRecord, o *Options) (string, bool) {
			if Finished(j.State) {
				if j.EndTime <= 0 {
					return "", false
				}
				return ShortTime(j.EndTime, o), true
			}
			return EstimatedFinish(j, o)
		}})
	}
	return cs
}

type estimateColumn struct {
	header string
	width  int
	value  func(*api.JobRecord, *Options) (string, bool)
}

// appendEstimates adds the columns' cells to a row's first line (after
// SUBMIT_TIME, which is 12 characters wide), "-" for a job they do not
// apply to, or their headers when j is nil; the last cell is not padded.
func appendEstimates(line string, cs []estimateColumn, j *api.JobRecord, o *Options) string {
	var b strings.Builder
	b.WriteString(line)
	for i, c := range cs {
		v := c.header
		if j != nil {
			var ok bool
			if v, ok = c.value(j, o); !ok {
				v = "-"
			}
		}
		b.WriteByte(' ')
		if i < len(cs)-1 {
			b.WriteString(pad(v, c.width))
		} else {
			b.WriteString(v)
		}
	}
	return b.String()
}

// The default bjobs header (IBM LSF 10.1; lsf-clients.md §0.6). The seed
// (LSF 3.2 Batch Concepts) shows the same columns in the same order with
// narrower, hand-aligned spacing; clients split on white space, and IBM
// 10.1's fixed columns are what they meet today, so Basalt prints those.
const (
	jobsHeader     = "JOBID   USER    STAT  QUEUE      FROM_HOST   EXEC_HOST   JOB_NAME   SUBMIT_TIME"
	jobsHeaderW    = "  PROJ_NAME CPU_USED MEM SWAP PIDS START_TIME FINISH_TIME"
	jobsPendHeader = "JOBID   USER    STAT  QUEUE       FROM_HOST      JOB_NAME           SUBMIT_TIME"
	arrayHeader    = "JOBID    ARRAY_SPEC  OWNER   NJOBS PEND DONE  RUN EXIT SSUSP USUSP PSUSP"
	longSeparator  = "------------------------------------------------------------------------------"
)

// cut pads s to w columns, cutting the end of a longer value (C's %-w.ws).
func cut(s string, w int) string {
	if len(s) > w {
		return s[:w]
	}
	return s + strings.Repeat(" ", w-len(s))
}

// pad pads s to w columns without cutting (C's %-ws).
func pad(s string, w int) string {
	if len(s) >= w {
		return s
	}
	return s + strings.Repeat(" ", w-len(s))
}

// star truncates a name longer than w the way LSF does for JOB_NAME: an
// asterisk followed by the last w-1 characters ("*ngjobname"; OpenLava's
// TRUNC_STR, IBM -o "removes the header characters and replaces them with
// an asterisk").
func star(s string, w int) string {
	if len(s) <= w {
		return s
	}
	if w <= 1 {
		return "*"[:w]
	}
	return "*" + s[len(s)-w+1:]
}

// jobID formats a job ID in the JOBID column: IDs longer than the column
// (LSB_JOBID_DISP_LENGTH, default 7) are truncated on the left (IBM 10.1).
func jobID(id int64, w int) string {
	s := strconv.FormatInt(id, 10)
	if len(s) > w {
		s = s[len(s)-w:]
	}
	return s
}

// WriteJobs writes bjobs' default list (and -w, -W, -p, -s) for jobs.
func WriteJobs(w io.Writer, jobs []*api.JobRecord, o *Options, fl JobsFlags) error {
	var b strings.Builder
	b.Grow(128 * len(jobs))
	idw := o.jobIDWidth()
	wide := o != nil && o.Wide || fl.W
	est := fl.estimateColumns()
	if len(jobs) > 0 && !(o != nil && o.NoHeader) {
		h := jobsHeader
		if fl.PendOnly {
			h = jobsPendHeader
		}
		h = pad("JOBID", idw) + h[len("JOBID")+(7-5):]
		if fl.W && !fl.PendOnly {
			h += jobsHeaderW
		}
		if len(est) > 0 {
			h = appendEstimates(h+" ", est, nil, o)
		}
		b.WriteString(h)
		b.WriteByte('\n')
	}
	for _, j := range jobs {
		if j == nil {
			continue
		}
		if len(est) > 0 {
			var row strings.Builder
			writeJobRow(&row, j, o, fl, idw, wide)
			r := row.String()
			first, rest, _ := strings.Cut(r, "\n")
			b.WriteString(appendEstimates(first, est, j, o))
			b.WriteByte('\n')
			b.WriteString(rest)
		} else {
			writeJobRow(&b, j, o, fl, idw, wide)
		}
		if fl.PendReasons && j.State&(api.StatePend|api.StatePSusp) != 0 {
			b.WriteString(PendReasonLines(j.PendReasons, fl.PendHosts))
		}
		if fl.SuspReasons && isSusp(j.State) {
			if j.State&api.StatePSusp != 0 {
				if !fl.PendReasons {
					b.WriteString(PendReasonLines(j.PendReasons, fl.PendHosts))
				}
			} else {
				b.WriteString(SuspReasonLine(j.SuspReasons, j.SuspSubreason))
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func isSusp(s api.JobState) bool {
	return s&(api.StatePSusp|api.StateSSusp|api.StateUSusp) != 0
}

func writeJobRow(b *strings.Builder, j *api.JobRecord, o *Options, fl JobsFlags, idw int, wide bool) {
	id := pad(jobID(j.JobID, idw), idw)
	if wide {
		id = pad(strconv.FormatInt(j.JobID, 10), idw)
	}
	name := JobName(j)
	hosts := ExecHostList(j.ExecHosts)
	pending := j.State&(api.StatePend|api.StatePSusp) != 0 && len(hosts) == 0
	if fl.PendOnly {
		// OpenLava: "%-7d %-7.7s %-5.5s %-11.11s %-14.14s %-18.18s %s".
		if wide {
			fmt.Fprintf(b, "%s %s %s %s %s %s %s\n", id, pad(j.User, 7), cut(Stat(j.State), 5),
				pad(j.Queue, 11), pad(j.FromHost, 14), pad(name, 18), ShortTime(j.SubmitTime, o))
			return
		}
		fmt.Fprintf(b, "%s %s %s %s %s %s %s\n", id, cut(j.User, 7), cut(Stat(j.State), 5),
			cut(j.Queue, 11), cut(j.FromHost, 14), cut(star(name, 18), 18), ShortTime(j.SubmitTime, o))
		return
	}
	exec := ""
	switch {
	case pending:
	case len(hosts) == 0:
		exec = "   -   "
	case wide:
		exec = strings.Join(hosts, ":")
	default:
		exec = hosts[0]
	}
	if !wide {
		// "%-7d %-7.7s %-5.5s %-10.10s %-11.11s %-11.11s %-10.10s %s"
		fmt.Fprintf(b, "%s %s %s %s %s %s %s %s\n", id, cut(j.User, 7), cut(Stat(j.State), 5),
			cut(j.Queue, 10), cut(j.FromHost, 11), cut(exec, 11), cut(star(name, 10), 10),
			ShortTime(j.SubmitTime, o))
		// Further execution hosts of a parallel job, one a line, under
		// EXEC_HOST ("%45s%-s\n").
		for _, h := range hostsAfterFirst(hosts, pending) {
			b.WriteString(strings.Repeat(" ", 38+idw))
			b.WriteString(h)
			b.WriteByte('\n')
		}
		return
	}
	submit := ShortTime(j.SubmitTime, o)
	if fl.W {
		submit = cut(WideTime(j.SubmitTime, o), 14)
	}
	// "%-7d %-7s %-5.5s %-10s %-11s %-11s %-10s %s"
	fmt.Fprintf(b, "%s %s %s %s %s %s %s %s", id, pad(j.User, 7), cut(Stat(j.State), 5),
		pad(j.Queue, 10), pad(j.FromHost, 11), pad(exec, 11), pad(name, 10), submit)
	if fl.W {
		var cpu float64
		var mem, swap int64
		var pids []int32
		if u := j.Usage; u != nil {
			cpu, mem, swap, pids = u.CPUTime, u.Mem, u.Swap, u.PIDs
		}
		// " %-10s %-10s %-6d %-6d " then PIDs, START_TIME, FINISH_TIME
		// (volclava bjobs.c).
		fmt.Fprintf(b, " %s %s %s %s ", pad(Project(j), 10), pad(CPUClock(cpu), 10),
			pad(strconv.FormatInt(max(mem, 0), 10), 6), pad(strconv.FormatInt(max(swap, 0), 10), 6))
		if len(pids) == 0 {
			b.WriteString(" - ")
		} else {
			for i, p := range pids {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(strconv.Itoa(int(p)))
			}
		}
		for _, t := range []int64{j.StartTime, j.EndTime} {
			if t <= 0 {
				b.WriteString(" - ")
			} else {
				b.WriteString(" " + WideTime(t, o))
			}
		}
	}
	b.WriteByte('\n')
}

func hostsAfterFirst(hosts []string, pending bool) []string {
	if pending || len(hosts) < 2 {
		return nil
	}
	return hosts[1:]
}

// WriteJobsSummary writes bjobs -sum: the slots of the jobs in each
// unfinished state, under IBM 10.1's header (FWD_PEND, MultiCluster's, is
// always 0).
func WriteJobsSummary(w io.Writer, jobs []*api.JobRecord) error {
	var run, ssusp, ususp, unkwn, pend, psusp int
	for _, j := range jobs {
		if j == nil {
			continue
		}
		n := int(max(j.NumSlots, 1))
		switch j.State {
		case api.StateRun:
			run += n
		case api.StateSSusp:
			ssusp += n
		case api.StateUSusp:
			ususp += n
		case api.StateUnkwn:
			unkwn += n
		case api.StatePend:
			pend += n
		case api.StatePSusp:
			psusp += n
		}
	}
	_, err := fmt.Fprintf(w, "%-10s %-10s %-10s %-10s %-10s %-10s %-10s\n%-10d %-10d %-10d %-10d %-10d %-10d %-10d\n",
		"RUN", "SSUSP", "USUSP", "UNKNOWN", "PEND", "FWD_PEND", "PSUSP", run, ssusp, ususp, unkwn, pend, 0, psusp)
	return err
}

// WriteArraySummary writes bjobs -A: one line per job array with the count
// of its elements in each state. Elements are the records with Index > 0;
// a record with Index 0 names the array (its ArraySpec and user).
func WriteArraySummary(w io.Writer, jobs []*api.JobRecord, o *Options) error {
	type summary struct {
		id                                       int64
		name, user                               string
		njobs, pend, done, run, exit, ss, us, ps int
	}
	var order []int64
	byID := map[int64]*summary{}
	for _, j := range jobs {
		if j == nil {
			continue
		}
		s := byID[j.JobID]
		if s == nil {
			s = &summary{id: j.JobID, user: j.User}
			byID[j.JobID] = s
			order = append(order, j.JobID)
		}
		if s.name == "" || j.Index == 0 {
			n := j.JobName
			if n == "" {
				n = spec(j).JobName
			}
			if j.ArraySpec != "" {
				// An element is named name[index]: the array is
				// name and its index specification.
				if j.Index > 0 {
					n = strings.TrimSuffix(n, "["+strconv.Itoa(int(j.Index))+"]")
				}
				if !strings.Contains(n, "[") {
					n += j.ArraySpec
				}
			}
			if n != "" {
				s.name = n
			}
		}
		if j.Index == 0 && j.ArraySpec != "" {
			continue // the array's own record: its elements are counted
		}
		s.njobs++
		switch Stat(j.State) {
		case "PEND":
			s.pend++
		case "DONE":
			s.done++
		case "RUN":
			s.run++
		case "EXIT":
			s.exit++
		case "SSUSP":
			s.ss++
		case "USUSP":
			s.us++
		case "PSUSP":
			s.ps++
		}
	}
	var b strings.Builder
	if len(order) > 0 && !(o != nil && o.NoHeader) {
		b.WriteString(arrayHeader + "\n")
	}
	wide := o != nil && o.Wide
	for _, id := range order {
		s := byID[id]
		// OpenLava: "%-7d  %-8.8s " "%8.8s " then "  %5d %4d %4d %4d %4d %5d %5d %5d".
		if wide {
			fmt.Fprintf(&b, "%-7d  %s %s ", s.id, s.name, s.user)
		} else {
			fmt.Fprintf(&b, "%-7d  %s %8.8s ", s.id, cut(s.name, 8), s.user)
		}
		fmt.Fprintf(&b, "  %5d %4d %4d %4d %4d %5d %5d %5d\n", s.njobs, s.pend, s.done, s.run, s.exit, s.ss, s.us, s.ps)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
