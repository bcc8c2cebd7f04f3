package cli

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
	"github.com/basalt-lsf/basalt/internal/config"
)

// badmin's sbatchd control (LSF's cmd.bhc.c and startup): hshutdown and
// hrestart go through mbatchd to each host's sbatchd; hstartup starts
// sbatchd as lsadmin limstartup starts a LIM.

var badminHCtlSpec = lsfopt.New("f")

func init() {
	BadminSubs.Add(
		&Subcommand{Name: "hshutdown", Usage: "hshutdown [-f] [host_name ... | host_group ... | all]", Summary: "Shut down slave batch daemons", Run: badminSbdControl(api.AdminHShutdown, "Shut down slave batch daemon on")},
		&Subcommand{Name: "hrestart", Usage: "hrestart [-f] [host_name ... | host_group ... | all]", Summary: "Restart slave batch daemons", Run: badminSbdControl(api.AdminHRestart, "Restart slave batch daemon on")},
		&Subcommand{Name: "hstartup", Usage: "hstartup [-f] [host_name ... | all]", Summary: "Start up slave batch daemons", Run: runBadminHStartup},
	)
}

// badminHostOperands are the hosts named, the local host when none is: as
// LSF, a host control without a host acts on the host it runs on.
func badminHostOperands(env *Env, operands []string) ([]string, bool) {
	if len(operands) > 0 {
		return operands, true
	}
	b, err := lsBase(context.Background(), env)
	if err != nil {
		env.Errorf("badmin: %v", firstLine(err))
		return nil, false
	}
	local, err := config.LocalHostName(b.Conf, env.Getenv, nil)
	if err != nil {
		env.Errorf("badmin: %v", err)
		return nil, false
	}
	return []string{local}, true
}

func badminSbdControl(op api.AdminOp, verb string) SubcommandFunc {
	return func(ctx context.Context, env *Env, args []string) int {
		res, err := badminHCtlSpec.Parse(args)
		if err != nil {
			env.Errorf("badmin: %v", err)
			return ExitUsage
		}
		hosts, ok := badminHostOperands(env, res.Operands)
		if !ok {
			return ExitUsage
		}
		if len(hosts) == 1 && hosts[0] == "all" && !res.Has("f") && !askYes(env, "\n"+verb+" all the hosts? [y/n] ") {
			// Not all at once: each host is asked about before the
			// request, which then names only those confirmed.
			b, err := lsBase(ctx, env)
			if err != nil {
				env.Errorf("badmin: %v", firstLine(err))
				return ExitUsage
			}
			hosts = nil
			for _, h := range b.Cluster.ServerHosts() {
				if askYes(env, "\n"+verb+" "+h+"? [y/n] ") {
					hosts = append(hosts, h)
				}
			}
			if len(hosts) == 0 {
				return 0
			}
		}
		reply, ok := badminCall(ctx, env, &api.AdminRequest{Op: op, Targets: hosts})
		if !ok {
			return ExitUsage
		}
		status := 0
		for _, r := range reply.Results {
			fmt.Fprintf(env.Stderr, "%s <%s> ...... ", verb, r.Target)
			if r.Status != nil && r.Status.Code != 0 {
				fmt.Fprintf(env.Stderr, "Host control failed: %s\n", r.Status.Message)
				status = ExitUsage
				continue
			}
			fmt.Fprintln(env.Stderr, "done")
		}
		return status
	}
}

// runBadminHStartup starts sbatchd on hosts of the local cluster that do
// not run one (the binary runs "sbatchd" with the host's BASALT_HOST,
// detached, in the host's network namespace on a namespace cluster) and
// waits until it listens.
func runBadminHStartup(ctx context.Context, env *Env, args []string) int {
	res, err := badminHCtlSpec.Parse(args)
	if err != nil {
		env.Errorf("badmin: %v", err)
		return ExitUsage
	}
	b, err := lsBase(ctx, env)
	if err != nil {
		env.Errorf("badmin: %v", firstLine(err))
		return ExitUsage
	}
	hosts, ok := limTargets(env, b, res.Operands)
	if !ok {
		return ExitUsage
	}
	if lsContains(res.Operands, "all") && !res.Has("f") && !askYes(env, "Do you really want to start up slave batch daemon on all hosts? [y/n] ") {
		return 0
	}
	port := strconv.Itoa(b.Conf.SBDPort())
	status := 0
	for _, h := range hosts {
		fmt.Fprintf(env.Stdout, "Starting up slave batch daemon on <%s> ...... ", h)
		ip, err := b.Resolver().Resolve(ctx, h)
		if err != nil {
			fmt.Fprintf(env.Stdout, "failed: %v\n", err)
			status = ExitUsage
			continue
		}
		addr := net.JoinHostPort(ip.String(), port)
		if daemonListening(env, h, addr) {
			fmt.Fprintln(env.Stdout, "done") // already running
			continue
		}
		if err := startDaemonProcess(env, "sbatchd", h); err != nil {
			fmt.Fprintf(env.Stdout, "failed: %v\n", err)
			status = ExitUsage
			continue
		}
		deadline := time.Now().Add(15 * time.Second)
		for !daemonListening(env, h, addr) && time.Now().Before(deadline) && ctx.Err() == nil {
			time.Sleep(100 * time.Millisecond)
		}
		if !daemonListening(env, h, addr) {
			fmt.Fprintln(env.Stdout, "failed: sbatchd did not start listening within 15 seconds")
			status = ExitUsage
			continue
		}
		fmt.Fprintln(env.Stdout, "done")
	}
	return status
}
