package cli

import (
	"context"
	"fmt"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
)

// badmin's batch operations: queue and host control and reconfiguration,
// carried out by mbatchd.

// IBM LSF 10.1's usage of each subcommand, and its options: every one is
// parsed as itself, those Basalt does not implement are refused by name
// (hclose -i, a lock ID; mbdrestart -p and -s, parallel or serial restart).
const (
	badminQueueUsage      = "[-C comment] [queue_name ... | all]"
	badminHostUsage       = `[-C comment] [-i "lock_id"] [host_name ... | host_group ... | compute_unit ... | all]`
	badminReconfigUsage   = "reconfig [-v] [-f]"
	badminMbdrestartUsage = "mbdrestart [-C comment] [-v] [-f] [-p | -s]"

	unsupportedBadminHostOptions       = "i:"
	unsupportedBadminMbdrestartOptions = "p|s"
)

var (
	badminQueueSpec      = lsfopt.New("C:")
	badminHostSpec       = lsfopt.New("C:|" + unsupportedBadminHostOptions)
	badminReconfigSpec   = lsfopt.New("v|f")
	badminMbdrestartSpec = lsfopt.New("C:|v|f|" + unsupportedBadminMbdrestartOptions)
)

func init() {
	BadminSubs.Add(
		&Subcommand{Name: "qopen", Usage: "qopen " + badminQueueUsage, Summary: "Open queues", Run: badminQueue("qopen", api.AdminQOpen, "opened")},
		&Subcommand{Name: "qclose", Usage: "qclose " + badminQueueUsage, Summary: "Close queues", Run: badminQueue("qclose", api.AdminQClose, "closed")},
		&Subcommand{Name: "qact", Usage: "qact " + badminQueueUsage, Summary: "Activate queues", Run: badminQueue("qact", api.AdminQAct, "activated")},
		&Subcommand{Name: "qinact", Usage: "qinact " + badminQueueUsage, Summary: "Inactivate queues", Run: badminQueue("qinact", api.AdminQInact, "inactivated")},
		&Subcommand{Name: "hopen", Usage: "hopen " + badminHostUsage, Summary: "Open hosts", Run: badminHost("hopen", api.AdminHOpen, "Open")},
		&Subcommand{Name: "hclose", Usage: "hclose " + badminHostUsage, Summary: "Close hosts", Run: badminHost("hclose", api.AdminHClose, "Close")},
		&Subcommand{Name: "reconfig", Usage: badminReconfigUsage, Summary: "Reconfigure the batch system", Run: badminReconfig(api.AdminReconfig, "Reconfiguration initiated")},
		&Subcommand{Name: "mbdrestart", Usage: badminMbdrestartUsage, Summary: "Restart mbatchd", Run: badminReconfig(api.AdminMbdRestart, "MBD restart initiated")},
	)
}

func badminCall(ctx context.Context, env *Env, req *api.AdminRequest) (*api.AdminReply, bool) {
	var reply api.AdminReply
	if !batchCall(ctx, env, api.MBatchdAdmin, req, &reply) {
		return nil, false
	}
	return &reply, true
}

// adminTargets reads the operands of badmin's queue and host controls:
// "[-C comment] [name ...]" (the comment goes to lsb.events and, for hosts,
// bhosts -l).
func adminTargets(op api.AdminOp, res *lsfopt.Result) *api.AdminRequest {
	req := &api.AdminRequest{Op: op, Targets: res.Operands}
	req.Message, _ = res.Last("C")
	return req
}

func badminQueue(name string, op api.AdminOp, verb string) SubcommandFunc {
	return func(ctx context.Context, env *Env, args []string) int {
		res, ok := subcommandOptions(env, "badmin "+name, name+" "+badminQueueUsage, badminQueueSpec, "", args)
		if !ok {
			return ExitUsage
		}
		reply, ok := badminCall(ctx, env, adminTargets(op, res))
		if !ok {
			return ExitUsage
		}
		status := 0
		for _, r := range reply.Results {
			if r.Status != nil && r.Status.Code != 0 {
				fmt.Fprintf(env.Stderr, "%s: %s\n", r.Target, r.Status.Message)
				status = ExitUsage
				continue
			}
			fmt.Fprintf(env.Stdout, "Queue <%s> is %s\n", r.Target, verb)
		}
		return status
	}
}

func badminHost(name string, op api.AdminOp, verb string) SubcommandFunc {
	return func(ctx context.Context, env *Env, args []string) int {
		res, ok := subcommandOptions(env, "badmin "+name, name+" "+badminHostUsage, badminHostSpec, unsupportedBadminHostOptions, args)
		if !ok {
			return ExitUsage
		}
		reply, ok := badminCall(ctx, env, adminTargets(op, res))
		if !ok {
			return ExitUsage
		}
		status := 0
		for _, r := range reply.Results {
			if r.Status != nil && r.Status.Code != 0 {
				fmt.Fprintf(env.Stderr, "%s <%s> ...... Host control failed: %s\n", verb, r.Target, r.Status.Message)
				status = ExitUsage
				continue
			}
			fmt.Fprintf(env.Stderr, "%s <%s> ...... done\n", verb, r.Target)
		}
		return status
	}
}

// badminReconfig checks the files as badmin ckconfig does, then asks
// mbatchd to reload them (a bad configuration is refused there too); -f
// (no confirmation) changes nothing, since Basalt asks none; mbdrestart's
// -C comment goes in the request's Message (mbatchd does not record it:
// its reconfiguration event has no comment).
func badminReconfig(op api.AdminOp, done string) SubcommandFunc {
	return func(ctx context.Context, env *Env, args []string) int {
		name, usage, spec, unsupported := "reconfig", badminReconfigUsage, badminReconfigSpec, ""
		if op == api.AdminMbdRestart {
			name, usage, spec, unsupported = "mbdrestart", badminMbdrestartUsage, badminMbdrestartSpec, unsupportedBadminMbdrestartOptions
		}
		res, ok := subcommandOptions(env, "badmin "+name, usage, spec, unsupported, args)
		if !ok {
			return ExitUsage
		}
		if len(res.Operands) > 0 {
			fmt.Fprintf(env.Stderr, "badmin %s: %s: unexpected operand\nUsage: %s\n", name, res.Operands[0], usage)
			return ExitUsage
		}
		verbose := res.Has("v")
		comment, _ := res.Last("C")
		d := diagnosticsFor(ctx, env, true)
		fmt.Fprint(env.Stderr, "\nChecking configuration files ...\n\n")
		if verbose {
			verboseCheck(env.Stderr, env, d)
		}
		if statusOf(d) == checkFatal {
			fmt.Fprint(env.Stderr, "There are fatal errors.\n\n")
			if !verbose {
				verboseCheck(env.Stderr, env, d)
			}
			return ExitUsage
		}
		if statusOf(d) == checkOK {
			fmt.Fprint(env.Stderr, "No errors found.\n\n")
		} else {
			fmt.Fprint(env.Stderr, "There are warning errors.\n\n")
		}
		reply, ok := badminCall(ctx, env, &api.AdminRequest{Op: op, Message: comment})
		if !ok {
			return ExitUsage
		}
		if reply.Status != nil && reply.Status.Code != 0 {
			fmt.Fprintln(env.Stderr, reply.Status.Message)
			return ExitUsage
		}
		fmt.Fprintln(env.Stdout, done)
		return 0
	}
}
