package output

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"

	"github.com/basalt-lsf/basalt/api"
)

const (
	histSummaryTitle  = "Summary of time in seconds spent in various states:"
	histSummaryHeader = "JOBID   USER    JOB_NAME  PEND    PSUSP   RUN     USUSP   SSUSP   UNKWN   TOTAL"
)

// stateTimes is the time a job spent in each state.
type stateTimes struct {
	pend, psusp, run, ususp, ssusp, unkwn int64
}

func (s stateTimes) total() int64 { return s.pend + s.psusp + s.run + s.ususp + s.ssusp + s.unkwn }

// eventState is the state a job is in after an event: the event's own
// State when mbatchd recorded one, else what the event kind implies.
func eventState(ev *api.HistoryEvent) api.JobState {
	if ev.State != 0 {
		return ev.State
	}
	switch ev.Kind {
	case "JOB_NEW", "JOB_REQUEUE":
		return api.StatePend
	case "JOB_START", "JOB_START_ACCEPT", "JOB_EXECUTE":
		return api.StateRun
	}
	return 0
}

// timesInStates adds up the seconds between state changes, up to the job's
// end or, for an unfinished job, to now.
func timesInStates(h *api.JobHistory, o *Options) (stateTimes, int64) {
	var st stateTimes
	evs := sortedEvents(h.Events)
	var cur api.JobState
	var since int64
	end := int64(0)
	add := func(until int64) {
		d := until - since
		if since == 0 || d <= 0 {
			return
		}
		switch Stat(cur) {
		case "PEND":
			st.pend += d
		case "PSUSP":
			st.psusp += d
		case "RUN":
			st.run += d
		case "USUSP":
			st.ususp += d
		case "SSUSP":
			st.ssusp += d
		case "UNKWN":
			st.unkwn += d
		}
	}
	for _, ev := range evs {
		s := eventState(ev)
		if s == 0 || ev.Time <= 0 {
			continue
		}
		if cur != 0 {
			add(ev.Time)
		}
		if Finished(s) {
			end = ev.Time
			cur = 0
			break
		}
		cur, since = s, ev.Time
	}
	if cur != 0 {
		if j := h.Job; j != nil && Finished(j.State) && j.EndTime > 0 {
			end = j.EndTime
		} else if o != nil && !o.Now.IsZero() {
			end = o.Now.Unix()
		}
		add(end)
	}
	return st, end
}

func sortedEvents(evs []*api.HistoryEvent) []*api.HistoryEvent {
	out := make([]*api.HistoryEvent, 0, len(evs))
	for _, e := range evs {
		if e != nil {
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, k int) bool { return out[i].Time < out[k].Time })
	return out
}

// WriteHistory writes bhist's default summary: the title, the header and
// per job "%-7s %-7.7s %-9.9s %-7d %-7d %-7d %-7d %-7d %-7d %-7d" (job
// name truncated with '*'; -w does not cut).
func WriteHistory(w io.Writer, hs []*api.JobHistory, o *Options) error {
	var b strings.Builder
	if len(hs) > 0 {
		b.WriteString(histSummaryTitle + "\n" + histSummaryHeader + "\n")
	}
	wide := o != nil && o.Wide
	for _, h := range hs {
		if h == nil || h.Job == nil {
			continue
		}
		j := h.Job
		st, _ := timesInStates(h, o)
		id := LongJobRef(j.JobID, j.Index)
		user, name := cut(j.User, 7), cut(star(JobName(j), 9), 9)
		if wide {
			user, name = pad(j.User, 7), pad(JobName(j), 9)
		}
		fmt.Fprintf(&b, "%-7s %s %s %-7d %-7d %-7d %-7d %-7d %-7d %-7d\n", id, user, name,
			st.pend, st.psusp, st.run, st.ususp, st.ssusp, st.unkwn, st.total())
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// termTexts explain TERM_* keywords (IBM LSF "Termination reasons").
var termTexts = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"TERM_ADMIN":           "job killed by root or LSF administrator",
		"TERM_CPULIMIT":        "job killed after reaching LSF CPU usage limit",
		"TERM_CWD_NOTEXIST":    "current working directory not accessible or does not exist on the execution host",
		"TERM_DEADLINE":        "job killed after deadline expires",
		"TERM_EXTERNAL_SIGNAL": "job killed by a signal external to LSF",
		"TERM_FORCE_ADMIN":     "job killed by root or LSF administrator without time for cleanup",
		"TERM_FORCE_OWNER":     "job killed by owner without time for cleanup",
		"TERM_LOAD":            "job killed after load exceeds threshold",
		"TERM_MEMLIMIT":        "job killed after reaching LSF memory usage limit",
		"TERM_OWNER":           "job killed by owner",
		"TERM_PREEMPT":         "job killed after preemption",
		"TERM_PROCESSLIMIT":    "job killed after reaching LSF process limit",
		"TERM_REQUEUE_ADMIN":   "job killed and requeued by root or LSF administrator",
		"TERM_REQUEUE_OWNER":   "job killed and requeued by owner",
		"TERM_RUNLIMIT":        "job killed after reaching LSF run time limit",
		"TERM_SWAP":            "job killed after reaching LSF swap usage limit",
		"TERM_THREADLIMIT":     "job killed after reaching LSF thread limit",
		"TERM_UNKNOWN":         "LSF cannot determine a termination reason",
		"TERM_WINDOW":          "job killed after queue run window closed",
	}
})

// termText is "TERM_RUNLIMIT: job killed after reaching LSF run time limit".
func termText(reason string) string {
	if t, ok := termTexts()[reason]; ok {
		return reason + ": " + t
	}
	return reason
}

func eventUser(ev *api.HistoryEvent) string {
	if ev.User != "" {
		return ev.User
	}
	return "unknown"
}

// historyEventText is the text of one bhist -l event line (after the time
// stamp), in IBM 10.1 wording where clients match it: "Dispatched ...",
// "Starting (Pid N)", "Signal <KILL> requested ...", "Done successfully.",
// "Exited with exit code N.", "Suspended ...", "Resumed ...".
func historyEventText(h *api.JobHistory, ev *api.HistoryEvent, o *Options) string {
	j := h.Job
	switch ev.Kind {
	case "JOB_NEW":
		return "Submitted from host <" + j.FromHost + ">" + submitDetails(j, o, true)
	case "JOB_START":
		hosts := ExecHostList(ev.Hosts)
		if len(hosts) == 0 {
			hosts = ExecHostList(j.ExecHosts)
		}
		n := 0
		for _, x := range ev.Hosts {
			if x != nil {
				n += int(max(x.Slots, 1))
			}
		}
		if n == 0 {
			n = allocSlots(j)
		}
		s := fmt.Sprintf("Dispatched %d Task(s) on Host(s)%s, Allocated %d Slot(s) on Host(s)%s", n, hostsText(hosts), n, hostsText(hosts))
		if j.EffectiveResReq != "" {
			s += ", Effective RES_REQ <" + j.EffectiveResReq + ">"
		}
		return s + ";"
	case "JOB_START_ACCEPT":
		return fmt.Sprintf("Starting (Pid %d);", ev.PID)
	case "JOB_EXECUTE":
		pid := ev.PID
		if pid == 0 {
			pid = j.JobPID
		}
		return fmt.Sprintf("Running with execution home <%s>, Execution CWD <%s>, Execution Pid <%d>;", j.ExecHome, j.ExecCwd, pid)
	case "JOB_SIGNAL":
		return fmt.Sprintf("Signal <%s> requested by user or administrator <%s>;", ev.Signal, eventUser(ev))
	case "JOB_SWITCH":
		return fmt.Sprintf("Switched to Queue <%s> by user or administrator <%s>;", ev.Queue, eventUser(ev))
	case "JOB_REQUEUE":
		return "Pending: Job has been requeued;"
	case "JOB_FORCE":
		return fmt.Sprintf("Job is forced to run or rerun by user or administrator <%s>;", eventUser(ev))
	case "JOB_STATUS", "JOB_FINISH":
		switch Stat(eventState(ev)) {
		case "DONE":
			return fmt.Sprintf("Done successfully. The CPU time used is %.1f seconds;", evCPU(ev, j))
		case "EXIT":
			code := ExitCode(ev.ExitStatus)
			s := fmt.Sprintf("Exited with exit code %d. The CPU time used is %.1f seconds;", code, evCPU(ev, j))
			if sig := ev.ExitStatus & 0x7f; sig != 0 && sig != 0x7f {
				s = fmt.Sprintf("Exited by signal %d. The CPU time used is %.1f seconds;", sig, evCPU(ev, j))
			}
			if ev.Text != "" {
				s += " " + ev.Text
			}
			return s
		case "USUSP", "PSUSP":
			return fmt.Sprintf("Suspended by the user or administrator <%s>;", eventUser(ev))
		case "SSUSP":
			return "Suspended: " + strings.TrimSuffix(strings.TrimSpace(SuspReasonLine(ev.Reason, 0)), ";") + ";"
		case "RUN":
			return "Running;"
		case "UNKWN":
			return "Unknown; unable to reach the execution host;"
		case "ZOMBI":
			return "Termination request issued; but unable to reach the execution host;"
		case "PEND":
			return fmt.Sprintf("Resumed by the user or administrator <%s>;", eventUser(ev))
		}
	case "POST_DONE":
		return "Post job process done successfully;"
	case "POST_ERR":
		return "Post job process failed;"
	}
	if ev.Text != "" {
		return ev.Text
	}
	return ev.Kind + ";"
}

func evCPU(ev *api.HistoryEvent, j *api.JobRecord) float64 {
	if ev.Usage != nil {
		return ev.Usage.CPUTime
	}
	return cpuUsed(j)
}

// WriteHistoryLong writes bhist -l: per job its header (no status or
// queue), its events, memory usage and the time-in-states summary; jobs are
// separated by a line of 78 dashes.
func WriteHistoryLong(w io.Writer, hs []*api.JobHistory, o *Options) error {
	var b strings.Builder
	n := 0
	for _, h := range hs {
		if h == nil || h.Job == nil {
			continue
		}
		if n > 0 {
			b.WriteString(longSeparator + "\n")
		}
		n++
		j := h.Job
		b.WriteByte('\n')
		o.wrap(&b, jobHeaderLine(j, false), headerIndent(o))
		for _, ev := range sortedEvents(h.Events) {
			event(&b, ev.Time, o, historyEventText(h, ev, o))
			if Stat(eventState(ev)) == "EXIT" && j.TermReason != "" {
				// IBM 10.1 bhist: a blank line, then the reason ending with
				// ";" as bhist's events do.
				b.WriteByte('\n')
				event(&b, ev.Time, o, "Completed <exit>; "+termText(j.TermReason)+";")
			}
		}
		// The job's size and time limits follow its events (IBM 10.1 bhist:
		// "Completed <exit>; TERM_MEMLIMIT: ...;", two blank lines,
		// " MEMLIMIT", "     48 G ").
		if lb := limitsBlock(spec(j).Limits); lb != "" {
			b.WriteString("\n" + lb)
		}
		if u := j.Usage; u != nil && u.MaxMem > 0 {
			fmt.Fprintf(&b, "\nMEMORY USAGE:\nMAX MEM: %s;  AVG MEM: %s\n", memText(u.MaxMem), memText(u.AvgMem))
		}
		st, end := timesInStates(h, o)
		fmt.Fprintf(&b, "\nSummary of time in seconds spent in various states by  %s\n", LongTime(end, o))
		b.WriteString("  PEND     PSUSP    RUN      USUSP    SSUSP    UNKWN    TOTAL\n")
		fmt.Fprintf(&b, "  %-8d %-8d %-8d %-8d %-8d %-8d %-8d\n", st.pend, st.psusp, st.run, st.ususp, st.ssusp, st.unkwn, st.total())
	}
	if n > 0 {
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}
