package cli

import (
	"context"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
	"github.com/basalt-lsf/basalt/internal/mbd/eventlog"
)

// badmin's history subcommands: what the event log says of mbatchd, the
// queues and the hosts (LSF's cmd.hist.c). mbatchd reads its own
// lsb.events; -f reads a file here, with the caller's rights.

var badminHistSpec = lsfopt.New("t:|f:")

var histUsage = map[string]string{
	"hist":    "hist [-t time0,time1] [-f logfile_name]",
	"mbdhist": "mbdhist [-t time0,time1] [-f logfile_name]",
	"qhist":   "qhist [-t time0,time1] [-f logfile_name] [queue_name ...]",
	"hhist":   "hhist [-t time0,time1] [-f logfile_name] [host_name ...]",
}

func init() {
	BadminSubs.Add(
		&Subcommand{Name: "hist", Usage: histUsage["hist"], Summary: "Display the history of mbatchd, queues and hosts", Run: badminHist(eventlog.SysAll)},
		&Subcommand{Name: "mbdhist", Usage: histUsage["mbdhist"], Summary: "Display the history of mbatchd", Run: badminHist(eventlog.SysMbd)},
		&Subcommand{Name: "qhist", Usage: histUsage["qhist"], Summary: "Display the history of queues", Run: badminHist(eventlog.SysQueue)},
		&Subcommand{Name: "hhist", Usage: histUsage["hhist"], Summary: "Display the history of hosts", Run: badminHist(eventlog.SysHost)},
	)
}

func badminHist(kind eventlog.SysKind) SubcommandFunc {
	name := map[eventlog.SysKind]string{eventlog.SysAll: "hist", eventlog.SysMbd: "mbdhist", eventlog.SysQueue: "qhist", eventlog.SysHost: "hhist"}[kind]
	return func(ctx context.Context, env *Env, args []string) int {
		usage := func() int {
			fmt.Fprintf(env.Stderr, "Usage: badmin %s\n", histUsage[name])
			return ExitUsage
		}
		res, err := badminHistSpec.Parse(args)
		if err != nil {
			fmt.Fprintf(env.Stderr, "badmin: %v\n", err)
			return usage()
		}
		q := &eventlog.SysQuery{Kind: kind}
		if len(res.Operands) > 0 {
			if kind == eventlog.SysAll || kind == eventlog.SysMbd {
				return usage()
			}
			for _, o := range res.Operands {
				if o == "all" {
					q.Names = nil
					break
				}
				q.Names = append(q.Names, o)
			}
		}
		if v, ok := res.Last("t"); ok {
			from, to, err := parseTimeInterval(v, env.Clock.Now())
			if err != nil {
				env.Errorf("%v", err)
				return ExitUsage
			}
			if to == 0 {
				to = math.MaxInt64
			}
			q.From, q.To = from, to
		}
		var lines []eventlog.SysLine
		if file, ok := res.Last("f"); ok {
			f, err := os.Open(file)
			if err != nil {
				env.Errorf("%s: %v", file, pathErr(err))
				return ExitUsage
			}
			defer f.Close()
			var bad int
			if lines, bad, err = eventlog.ReadSysHistory(ctx, f, file, q); err != nil {
				env.Errorf("%v", err)
				return ExitUsage
			}
			if bad > 0 {
				env.Errorf("File %s: %d record(s) could not be read", file, bad)
			}
		} else {
			var reply api.SysHistoryReply
			req := &api.SysHistoryRequest{Kind: int32(kind), Names: q.Names, From: q.From, To: q.To}
			if !batchCall(ctx, env, api.MBatchdSysHistory, req, &reply) {
				return ExitUsage
			}
			for _, l := range reply.Lines {
				lines = append(lines, eventlog.SysLine{Time: l.Time, Text: l.Text})
			}
		}
		if len(lines) == 0 {
			env.Errorf("No matching event found")
			return 0
		}
		for _, l := range lines {
			fmt.Fprintf(env.Stdout, "%s: %s\n", time.Unix(l.Time, 0).Format("Mon Jan 02 15:04:05"), l.Text)
		}
		return 0
	}
}
