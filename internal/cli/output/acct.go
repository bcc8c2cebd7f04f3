package output

import (
	"fmt"
	"io"
	"strings"

	"github.com/basalt-lsf/basalt/api"
)

// AcctFilter describes which jobs a bacct run selected, for the lines at
// the top of its summary.
type AcctFilter struct {
	Users     []string // "all" or names; empty: the requester, given in Requester
	Requester string
	Projects  []string
	Hosts     []string
	Queues    []string
}

func listOr(xs []string, all string) string {
	if len(xs) == 0 {
		return all
	}
	return strings.Join(xs, ", ")
}

type acctStats struct {
	n, done, exit             int
	cpuTot, cpuMax, cpuMin    float64
	waitTot, waitMax, waitMin int64
	turnTot, turnMax, turnMin int64
	hogTot, hogMax, hogMin    float64
	runTot, runMax, runMin    int64
	begin, end                int64
}

func acctOf(jobs []*api.JobRecord) acctStats {
	var s acctStats
	for _, j := range jobs {
		if j == nil {
			continue
		}
		cpu := cpuUsed(j)
		wait := max(j.StartTime-j.SubmitTime, 0)
		if j.StartTime <= 0 {
			wait = max(j.EndTime-j.SubmitTime, 0)
		}
		turn := max(j.EndTime-j.SubmitTime, 0)
		run := int64(0)
		if j.StartTime > 0 && j.EndTime > j.StartTime {
			run = j.EndTime - j.StartTime
		}
		hog := 0.0
		if turn > 0 {
			hog = cpu / float64(turn)
		}
		if s.n == 0 {
			s.cpuMin, s.waitMin, s.turnMin, s.hogMin, s.runMin = cpu, wait, turn, hog, run
			s.begin, s.end = j.EndTime, j.EndTime
		}
		s.n++
		if j.State&api.StateDone != 0 {
			s.done++
		} else {
			s.exit++
		}
		s.cpuTot += cpu
		s.cpuMax, s.cpuMin = max(s.cpuMax, cpu), min(s.cpuMin, cpu)
		s.waitTot += wait
		s.waitMax, s.waitMin = max(s.waitMax, wait), min(s.waitMin, wait)
		s.turnTot += turn
		s.turnMax, s.turnMin = max(s.turnMax, turn), min(s.turnMin, turn)
		s.hogTot += hog
		s.hogMax, s.hogMin = max(s.hogMax, hog), min(s.hogMin, hog)
		s.runTot += run
		s.runMax, s.runMin = max(s.runMax, run), min(s.runMin, run)
		s.begin, s.end = min(s.begin, j.EndTime), max(s.end, j.EndTime)
	}
	return s
}

// WriteAcct writes bacct's default summary of finished jobs (IBM 10.1
// layout): the selection, then SUMMARY with totals, averages, extremes and
// throughput. All times are in seconds and CPU time is not normalized.
func WriteAcct(w io.Writer, jobs []*api.JobRecord, f AcctFilter, o *Options) error {
	var b strings.Builder
	users := listOr(f.Users, f.Requester)
	if len(f.Users) == 1 && f.Users[0] == "all" {
		users = "all users"
	} else {
		users = "users " + users
	}
	b.WriteString("\nAccounting information about jobs that are: \n")
	fmt.Fprintf(&b, "  - submitted by %s.\n", users)
	fmt.Fprintf(&b, "  - accounted on %s.\n", projectsText(f.Projects))
	b.WriteString("  - completed normally or exited\n")
	fmt.Fprintf(&b, "  - executed on %s.\n", hostsSel(f.Hosts))
	fmt.Fprintf(&b, "  - submitted to %s.\n", queuesSel(f.Queues))
	b.WriteString("  - accounted on all service classes.\n")
	b.WriteString(longSeparator + "\n\n")
	s := acctOf(jobs)
	b.WriteString("SUMMARY:      ( time unit: second ) \n")
	fmt.Fprintf(&b, " Total number of done jobs:  %6d      Total number of exited jobs:  %6d\n", s.done, s.exit)
	if s.n == 0 {
		_, err := io.WriteString(w, b.String())
		return err
	}
	n := float64(s.n)
	fmt.Fprintf(&b, " Total CPU time consumed:  %8.1f      Average CPU time consumed:  %8.1f\n", s.cpuTot, s.cpuTot/n)
	fmt.Fprintf(&b, " Maximum CPU time of a job:  %6.1f      Minimum CPU time of a job:  %6.1f\n", s.cpuMax, s.cpuMin)
	fmt.Fprintf(&b, " Total wait time in queues:  %6.1f\n", float64(s.waitTot))
	fmt.Fprintf(&b, " Average wait time in queue:  %5.1f\n", float64(s.waitTot)/n)
	fmt.Fprintf(&b, " Maximum wait time in queue:  %5.1f      Minimum wait time in queue:  %5.1f\n", float64(s.waitMax), float64(s.waitMin))
	fmt.Fprintf(&b, " Average turnaround time:  %8.0f (seconds/job)\n", float64(s.turnTot)/n)
	fmt.Fprintf(&b, " Maximum turnaround time:  %8d      Minimum turnaround time:  %8d\n", s.turnMax, s.turnMin)
	fmt.Fprintf(&b, " Average hog factor of a job:  %4.2f ( cpu time / turnaround time )\n", s.hogTot/n)
	fmt.Fprintf(&b, " Maximum hog factor of a job:  %4.2f      Minimum hog factor of a job:  %4.2f\n", s.hogMax, s.hogMin)
	fmt.Fprintf(&b, " Total Run time consumed:  %8d      Average Run time consumed:  %8.0f\n", s.runTot, float64(s.runTot)/n)
	fmt.Fprintf(&b, " Maximum Run time of a job:  %6d      Minimum Run time of a job:  %6d\n", s.runMax, s.runMin)
	hours := float64(s.end-s.begin) / 3600
	through := 0.0
	if hours > 0 {
		through = n / hours
	}
	fmt.Fprintf(&b, " Total throughput:  %8.2f (jobs/hour)  during %8.2f hours\n", through, hours)
	fmt.Fprintf(&b, " Beginning time:       %s      Ending time:          %s\n", ShortTime(s.begin, o), ShortTime(s.end, o))
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}

func projectsText(p []string) string {
	if len(p) == 0 {
		return "all projects"
	}
	return "projects " + strings.Join(p, ", ")
}

func hostsSel(h []string) string {
	if len(h) == 0 {
		return "all hosts"
	}
	return "hosts " + strings.Join(h, ", ")
}

func queuesSel(q []string) string {
	if len(q) == 0 {
		return "all queues"
	}
	return "queues " + strings.Join(q, ", ")
}

// WriteAcctLong writes bacct -l: per job its header, submission, dispatch
// and completion ("Completed <done>." or "Completed <exit>; TERM_...: ...",
// which Toil matches), then the accounting table
// "%10.2f %8d %14d %8s %14.4f %5dM %6dM" under its header; jobs are
// separated by a line of 78 dashes.
func WriteAcctLong(w io.Writer, jobs []*api.JobRecord, o *Options) error {
	var b strings.Builder
	for _, j := range jobs {
		if j == nil {
			continue
		}
		b.WriteByte('\n')
		o.wrap(&b, jobHeaderLine(j, true), headerIndent(o))
		event(&b, j.SubmitTime, o, "Submitted from host <"+j.FromHost+">"+submitDetails(j, o, false))
		hosts := ExecHostList(j.ExecHosts)
		if j.StartTime > 0 && len(hosts) > 0 {
			n := allocSlots(j)
			s := fmt.Sprintf("Dispatched %d Task(s) on Host(s)%s, Allocated %d Slot(s) on Host(s)%s", n, hostsText(hosts), n, hostsText(hosts))
			if j.EffectiveResReq != "" {
				s += ", Effective RES_REQ <" + j.EffectiveResReq + ">"
			}
			event(&b, j.StartTime, o, s+";")
		}
		status := "done"
		done := "Completed <done>."
		if j.State&api.StateDone == 0 {
			status = "exit"
			done = "Completed <exit>"
			if j.TermReason != "" {
				done += "; " + termText(j.TermReason)
			}
			done += "."
		}
		event(&b, j.EndTime, o, done)
		cpu := cpuUsed(j)
		wait := max(j.StartTime-j.SubmitTime, 0)
		turn := max(j.EndTime-j.SubmitTime, 0)
		hog := 0.0
		if turn > 0 {
			hog = cpu / float64(turn)
		}
		var mem, swap int64
		if u := j.Usage; u != nil {
			mem, swap = u.MaxMem/1024, u.MaxSwap/1024
		}
		b.WriteString("\nAccounting information about this job:\n")
		b.WriteString("     CPU_T     WAIT     TURNAROUND   STATUS     HOG_FACTOR    MEM    SWAP\n")
		fmt.Fprintf(&b, "%10.2f %8d %14d %8s %14.4f %5dM %6dM\n", cpu, wait, turn, status, hog, mem, swap)
		b.WriteString(longSeparator + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
