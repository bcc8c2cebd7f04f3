package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/basalt-lsf/basalt/api"
)

// badmin showstatus: the master mbatchd's runtime summary (hosts, jobs,
// users, when it started and was last reconfigured), asked of mbatchd
// (MBatchd.ShowStatus). Anyone may run it. The layout is LSF's, labels
// padded so that every value starts at the 37th column, dates as LSF's
// ctime: scripts take a line's text after its first ':' ("Latest mbatchd
// start") and parse it as a date.

const showStatusUsage = "showstatus"

func init() {
	BadminSubs.Add(&Subcommand{Name: "showstatus", Usage: showStatusUsage,
		Summary: "Display the current LSF runtime information", Run: badminShowStatus})
}

func badminShowStatus(ctx context.Context, env *Env, args []string) int {
	if len(args) > 0 {
		fmt.Fprintf(env.Stderr, "Usage: badmin %s\n", showStatusUsage)
		return ExitUsage
	}
	var reply api.ShowStatusReply
	if !batchCall(ctx, env, api.MBatchdShowStatus, &api.ShowStatusRequest{}, &reply) {
		return ExitUsage
	}
	renderShowStatus(env.Stdout, &reply, time.Local)
	return 0
}

// showStatusDate is LSF's ctime layout: "Thu Nov 22 21:17:01 2012".
const showStatusDate = "Mon Jan _2 15:04:05 2006"

// renderShowStatus writes r as LSF's badmin showstatus, dates in loc.
func renderShowStatus(w io.Writer, r *api.ShowStatusReply, loc *time.Location) {
	line := func(label string, v any) { fmt.Fprintf(w, "%-36s%v\n", label+":", v) }
	pair := func(label string, c *api.ShowStatusCounts) {
		if c == nil {
			c = &api.ShowStatusCounts{}
		}
		line("    "+label, fmt.Sprintf("%d/%d", c.Current, c.Peak))
	}
	date := func(sec int64) string { return time.Unix(sec, 0).In(loc).Format(showStatusDate) }

	fmt.Fprintln(w, "LSF runtime mbatchd information")
	fmt.Fprintln(w, " Available local hosts (current/peak):")
	pair("Clients", r.Clients)
	pair("Servers", r.Servers)
	pair("CPUs", r.CPUs)
	pair("Cores", r.Cores)
	pair("Slots", r.Slots)
	fmt.Fprintln(w)
	line(" Number of servers", r.NumServers)
	line("    Ok", r.Ok)
	line("    Closed", r.Closed)
	line("    Unreachable", r.Unreachable)
	line("    Unavailable", r.Unavailable)
	fmt.Fprintln(w)
	line(" Number of jobs", r.NumJobs)
	line("    Running", r.Running)
	line("    Suspended", r.Suspended)
	line("    Pending", r.Pending)
	line("    Finished", r.Finished)
	fmt.Fprintln(w)
	line(" Number of users", r.NumUsers)
	line(" Number of user groups", r.NumUserGroups)
	line(" Number of active users", r.ActiveUsers)
	fmt.Fprintln(w)
	line(" Latest mbatchd start", date(r.Start))
	line(" Active mbatchd PID", r.PID)
	fmt.Fprintln(w)
	line(" Latest mbatchd reconfig", date(r.Reconfig))
}
