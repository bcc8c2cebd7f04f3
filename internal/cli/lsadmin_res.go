package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
	"github.com/basalt-lsf/basalt/internal/rpc"
)

// lsadmin's RES control: resstartup, resshutdown, resrestart. Shutdown
// and restart go to the host's RES over the wire (RES.Control: only root
// and the cluster administrators may); startup starts the daemon
// binary's "res" as limstartup starts a LIM (in the host's network
// namespace on a namespace cluster). Messages as LSF's lsadmin prints
// them: "Shut down RES on <host> ...... done", the confirmation for all
// hosts, then one question per host when it is not answered yes.

func init() {
	LsadminSubs.Add(
		&Subcommand{Name: "resstartup", Usage: "resstartup [-f] [host_name ... | all]", Summary: "Start up RES", Run: runResStartup},
		&Subcommand{Name: "resshutdown", Usage: "resshutdown [-f] [host_name ... | all]", Summary: "Shut down RES", Run: runResShutdown},
		&Subcommand{Name: "resrestart", Usage: "resrestart [-f] [host_name ... | all]", Summary: "Restart RES", Run: runResRestart},
	)
}

// resHostsSpec: -f only (no question for "all").
var resHostsSpec = lsfopt.New("f")

// resCtl is one of the three operations.
type resCtl struct {
	sub      string // the subcommand, for its usage
	verb     string // "Shut down": "Shut down RES on <host> ...... "
	ask      string // the per-host question's verb ("Start up" for resstartup)
	question string // the question for all hosts
	run      func(ctx context.Context, env *Env, cc *clientConf, host string) error
}

func runResStartup(ctx context.Context, env *Env, args []string) int {
	return resControl(ctx, env, args, resCtl{sub: "resstartup", verb: "Starting up", ask: "Start up",
		question: "Do you really want to start up RES on all hosts ?", run: resStart})
}

func runResShutdown(ctx context.Context, env *Env, args []string) int {
	return resControl(ctx, env, args, resCtl{sub: "resshutdown", verb: "Shut down", ask: "Shut down",
		question: "Do you really want to shut down RES on all hosts?", run: func(ctx context.Context, env *Env, cc *clientConf, host string) error {
			return resRemote(ctx, env, cc, host, api.ResOpShutdown)
		}})
}

func runResRestart(ctx context.Context, env *Env, args []string) int {
	return resControl(ctx, env, args, resCtl{sub: "resrestart", verb: "Restart", ask: "Restart",
		question: "Do you really want to restart RES on all hosts?", run: func(ctx context.Context, env *Env, cc *clientConf, host string) error {
			return resRemote(ctx, env, cc, host, api.ResOpRestart)
		}})
}

func resControl(ctx context.Context, env *Env, args []string, op resCtl) int {
	res, err := resHostsSpec.Parse(args)
	if err != nil {
		fmt.Fprintf(env.Stderr, "lsadmin: %v\n", err)
		fmt.Fprintf(env.Stderr, "Usage: lsadmin %s [-f] [host_name ... | all]\n", op.sub)
		return ExitUsage
	}
	b, err := lsBase(ctx, env)
	if err != nil {
		fmt.Fprintf(env.Stderr, "lsadmin: %v\n", firstLine(err))
		return ExitUsage
	}
	hosts, ok := limTargets(env, b, res.Operands)
	if !ok {
		return ExitUsage
	}
	perHost := lsContains(res.Operands, "all") && !res.Has("f") && !askYes(env, op.question+" [y/n] ")
	cc, err := loadClientConf(env)
	if err != nil {
		fmt.Fprintf(env.Stderr, "lsadmin: %v\n", err)
		return ExitUsage
	}
	status := 0
	for _, h := range hosts {
		if perHost && !askYes(env, fmt.Sprintf("%s RES on <%s> ? [y/n] ", op.ask, h)) {
			continue
		}
		fmt.Fprintf(env.Stdout, "%s RES on <%s> ...... ", op.verb, h)
		if err := op.run(ctx, env, cc, h); err != nil {
			fmt.Fprintf(env.Stdout, "failed: %s\n", remoteMessage(err))
			status = ExitUsage
			continue
		}
		fmt.Fprintln(env.Stdout, "done")
	}
	return status
}

// resRemote asks host's RES to shut down or restart. The RES closes its
// listener before it answers; after a restart this waits until the new
// RES accepts connections.
func resRemote(ctx context.Context, env *Env, cc *clientConf, host string, op api.ResOp) error {
	if err := resControlHost(ctx, env, cc, host, &api.ResControlRequest{Op: op}); err != nil {
		return err
	}
	if op != api.ResOpRestart {
		return nil
	}
	addr, err := cc.addr(ctx, host, cc.conf.RESPort())
	if err != nil {
		return err
	}
	deadline := time.Now().Add(15 * time.Second)
	for !daemonListening(env, host, addr) {
		if time.Now().After(deadline) {
			return errors.New("RES did not start again")
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

// resStart starts host's RES unless it already accepts connections, and
// waits until it does.
func resStart(ctx context.Context, env *Env, cc *clientConf, host string) error {
	addr, err := cc.addr(ctx, host, cc.conf.RESPort())
	if err != nil {
		return err
	}
	if daemonListening(env, host, addr) {
		return nil // already running
	}
	if err := startDaemonProcess(env, "res", host); err != nil {
		return err
	}
	deadline := time.Now().Add(15 * time.Second)
	for !daemonListening(env, host, addr) {
		if time.Now().After(deadline) {
			return errors.New("RES did not start")
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

// withRES runs fn with a connection to host's RES, within 30 seconds.
func withRES(ctx context.Context, env *Env, cc *clientConf, host string, fn func(ctx context.Context, c *rpc.Client) error) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	c, err := dialRES(ctx, env, cc, host)
	if err != nil {
		return err
	}
	defer c.Close()
	return fn(ctx, c)
}

// resControlHost sends req to host's RES (RES.Control) and waits for its
// answer.
func resControlHost(ctx context.Context, env *Env, cc *clientConf, host string, req *api.ResControlRequest) error {
	return withRES(ctx, env, cc, host, func(ctx context.Context, c *rpc.Client) error {
		st, err := c.Stream(ctx, api.RESControl, req)
		if err != nil {
			return err
		}
		var reply api.ResControlReply
		return st.Recv(&reply)
	})
}
