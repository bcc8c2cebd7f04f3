package cli

import (
	"context"
	"fmt"

	"github.com/basalt-lsf/basalt/api"
)

// badmin's batch operations: queue and host control and reconfiguration,
// carried out by mbatchd.

func init() {
	BadminSubs.Add(
		&Subcommand{Name: "qopen", Usage: "qopen [-C comment] [queue_name ... | all]", Summary: "Open queues", Run: badminQueue(api.AdminQOpen, "opened")},
		&Subcommand{Name: "qclose", Usage: "qclose [-C comment] [queue_name ... | all]", Summary: "Close queues", Run: badminQueue(api.AdminQClose, "closed")},
		&Subcommand{Name: "qact", Usage: "qact [-C comment] [queue_name ... | all]", Summary: "Activate queues", Run: badminQueue(api.AdminQAct, "activated")},
		&Subcommand{Name: "qinact", Usage: "qinact [-C comment] [queue_name ... | all]", Summary: "Inactivate queues", Run: badminQueue(api.AdminQInact, "inactivated")},
		&Subcommand{Name: "hopen", Usage: "hopen [-C comment] [host_name ... | host_group ... | all]", Summary: "Open hosts", Run: badminHost(api.AdminHOpen, "Open")},
		&Subcommand{Name: "hclose", Usage: "hclose [-C comment] [host_name ... | host_group ... | all]", Summary: "Close hosts", Run: badminHost(api.AdminHClose, "Close")},
		&Subcommand{Name: "reconfig", Usage: "reconfig [-v] [-f]", Summary: "Reconfigure the batch system", Run: badminReconfig(api.AdminReconfig, "Reconfiguration initiated")},
		&Subcommand{Name: "mbdrestart", Usage: "mbdrestart [-v] [-f]", Summary: "Restart mbatchd", Run: badminReconfig(api.AdminMbdRestart, "MBD restart initiated")},
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
func adminTargets(op api.AdminOp, args []string) *api.AdminRequest {
	req := &api.AdminRequest{Op: op}
	for i := 0; i < len(args); i++ {
		if args[i] == "-C" && i+1 < len(args) {
			req.Message = args[i+1]
			i++
			continue
		}
		req.Targets = append(req.Targets, args[i])
	}
	return req
}

func badminQueue(op api.AdminOp, verb string) SubcommandFunc {
	return func(ctx context.Context, env *Env, args []string) int {
		reply, ok := badminCall(ctx, env, adminTargets(op, args))
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

func badminHost(op api.AdminOp, verb string) SubcommandFunc {
	return func(ctx context.Context, env *Env, args []string) int {
		reply, ok := badminCall(ctx, env, adminTargets(op, args))
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
// mbatchd to reload them (a bad configuration is refused there too).
func badminReconfig(op api.AdminOp, done string) SubcommandFunc {
	return func(ctx context.Context, env *Env, args []string) int {
		verbose := false
		for _, a := range args {
			switch a {
			case "-v":
				verbose = true
			case "-f":
			default:
				fmt.Fprintf(env.Stderr, "Usage: %s [-v] [-f]\n", map[api.AdminOp]string{api.AdminReconfig: "reconfig", api.AdminMbdRestart: "mbdrestart"}[op])
				return ExitUsage
			}
		}
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
		reply, ok := badminCall(ctx, env, &api.AdminRequest{Op: op})
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
