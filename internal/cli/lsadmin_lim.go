package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/lim/limclient"
)

// lsadmin's LIM control: reconfig, limstartup, limshutdown, limrestart,
// limlock, limunlock.

func init() {
	LsadminSubs.Add(
		&Subcommand{Name: "reconfig", Usage: "reconfig [-f] [-v]", Summary: "Reconfigure LIMs on all hosts", Run: runLsadminReconfig},
		&Subcommand{Name: "limstartup", Usage: "limstartup [-f] [host_name ... | all]", Summary: "Start up LIMs", Run: runLimStartup},
		&Subcommand{Name: "limshutdown", Usage: "limshutdown [-f] [host_name ... | all]", Summary: "Shut down LIMs", Run: runLimShutdown},
		&Subcommand{Name: "limrestart", Usage: "limrestart [-v] [-f] [host_name ... | all]", Summary: "Restart LIMs", Run: runLimRestart},
		&Subcommand{Name: "limlock", Usage: "limlock [-l time_seconds]", Summary: "Lock the LIM on the local host", Run: runLimLock},
		&Subcommand{Name: "limunlock", Usage: "limunlock", Summary: "Unlock the LIM on the local host", Run: runLimUnlock},
	)
}

var limHostsSpec = lsfopt.New("f|v")

// IBM LSF 10.1's options of the LIM subcommands: limstartup and
// limshutdown take -f only, limrestart and reconfig -f and -v.
var (
	limStartStopSpec = lsfopt.New("f")
	limRestartSpec   = lsfopt.New("f|v")
)

// limTargets resolves "[host ...| all]": no operand is the local host.
func limTargets(env *Env, b *config.Base, operands []string) ([]string, bool) {
	if len(operands) == 0 {
		local, err := config.LocalHostName(b.Conf, env.Getenv, nil)
		if err != nil {
			fmt.Fprintf(env.Stderr, "lsadmin: %v\n", err)
			return nil, false
		}
		if h := b.Cluster.Host(local); h != nil {
			return []string{h.Name}, true
		}
		fmt.Fprintf(env.Stderr, "lsadmin: host <%s> is not in cluster <%s>\n", local, b.ClusterName())
		return nil, false
	}
	var out []string
	for _, o := range operands {
		if o == "all" {
			return b.Cluster.ServerHosts(), true
		}
		h := b.Cluster.Host(o)
		if h == nil {
			fmt.Fprintf(env.Stderr, "lsadmin: host <%s> is not in cluster <%s>\n", o, b.ClusterName())
			return nil, false
		}
		out = append(out, h.Name)
	}
	return out, true
}

func limControlAll(ctx context.Context, env *Env, args []string, sub string, spec *lsfopt.Spec, verb, question string, op api.LimOp) int {
	res, ok := subcommandOptions(env, "lsadmin "+sub, lsadminUsage(sub), spec, "", args)
	if !ok {
		return ExitUsage
	}
	c, b, ok := lsConnect(ctx, env, "lsadmin")
	if !ok {
		return ExitUsage
	}
	defer c.Close()
	hosts, ok := limTargets(env, b, res.Operands)
	if !ok {
		return ExitUsage
	}
	if lsContains(res.Operands, "all") && !res.Has("f") && !askYes(env, question+" [y/n] ") {
		return 0
	}
	status := 0
	for _, h := range hosts {
		fmt.Fprintf(env.Stdout, "%s LIM on <%s> ...... ", verb, h)
		if _, err := c.Control(ctx, h, &api.LimControlRequest{Op: op}); err != nil {
			fmt.Fprintln(env.Stdout, limFailure(err))
			status = ExitUsage
			continue
		}
		fmt.Fprintln(env.Stdout, "done")
	}
	return status
}

func limFailure(err error) string {
	msg := firstLine(err)
	// Refused, or a LIM going down as it was asked (reset, closed).
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) ||
		strings.Contains(msg, "connection refused") || strings.Contains(msg, "connect:") ||
		strings.Contains(msg, "connection reset") || strings.Contains(msg, "connection closed") {
		msg = limclient.ErrLIMDown.Error()
	}
	return "failed: " + msg
}

func runLimShutdown(ctx context.Context, env *Env, args []string) int {
	return limControlAll(ctx, env, args, "limshutdown", limStartStopSpec, "Shut down", "Do you really want to shut down LIMs on all hosts?", api.LimOpShutdown)
}

func runLimRestart(ctx context.Context, env *Env, args []string) int {
	return limControlAll(ctx, env, args, "limrestart", limRestartSpec, "Restart", "Do you really want to restart LIMs on all hosts?", api.LimOpRestart)
}

// runLsadminReconfig checks the configuration, then restarts every LIM.
func runLsadminReconfig(ctx context.Context, env *Env, args []string) int {
	res, ok := subcommandOptions(env, "lsadmin reconfig", lsadminUsage("reconfig"), limRestartSpec, "", args)
	if !ok {
		return ExitUsage
	}
	if len(res.Operands) > 0 {
		fmt.Fprintf(env.Stderr, "lsadmin reconfig: %s: unexpected operand\nUsage: %s\n", res.Operands[0], lsadminUsage("reconfig"))
		return ExitUsage
	}
	fmt.Fprintln(env.Stdout, "\nChecking configuration files ...")
	diags := config.Check(ctx, config.Options{EnvDir: env.Getenv("LSF_ENVDIR"), Getenv: env.Getenv}, false)
	if res.Has("v") {
		for _, d := range diags {
			fmt.Fprintln(env.Stdout, d.String())
		}
	}
	switch {
	case diags.HasErrors():
		fmt.Fprintln(env.Stdout, "\nThere are fatal errors.\n\nDo not restart LIM.")
		return ExitUsage
	case len(diags) > 0:
		fmt.Fprintln(env.Stdout, "\nThere are warning errors.")
		if !res.Has("f") && !askYes(env, "\nDo you want to reconfigure?  [y/n] ") {
			return 0
		}
	default:
		fmt.Fprintln(env.Stdout, "No errors found.")
	}
	fmt.Fprintln(env.Stdout)
	return limControlAll(ctx, env, []string{"-f", "all"}, "reconfig", limRestartSpec, "Restart", "", api.LimOpReconfig)
}

// runLimStartup starts the LIM of hosts of the local cluster: the binary
// runs "lim" with the host's BASALT_HOST, detached, and this waits until
// the LIM answers.
func runLimStartup(ctx context.Context, env *Env, args []string) int {
	res, ok := subcommandOptions(env, "lsadmin limstartup", lsadminUsage("limstartup"), limStartStopSpec, "", args)
	if !ok {
		return ExitUsage
	}
	c, b, ok := lsConnect(ctx, env, "lsadmin")
	if !ok {
		return ExitUsage
	}
	defer c.Close()
	hosts, ok := limTargets(env, b, res.Operands)
	if !ok {
		return ExitUsage
	}
	if lsContains(res.Operands, "all") && !res.Has("f") && !askYes(env, "Do you really want to start up LIM on all hosts? [y/n] ") {
		return 0
	}
	if _, err := daemonExe(); err != nil {
		fmt.Fprintf(env.Stderr, "lsadmin: %v\n", err)
		return ExitUsage
	}
	status := 0
	for _, h := range hosts {
		fmt.Fprintf(env.Stdout, "Starting up LIM on <%s> ...... ", h)
		if _, err := c.Ping(ctx, h); err == nil {
			fmt.Fprintln(env.Stdout, "done") // already running
			continue
		}
		if err := startDaemonProcess(env, "lim", h); err != nil {
			fmt.Fprintf(env.Stdout, "failed: %v\n", err)
			status = ExitUsage
			continue
		}
		if err := waitLIM(ctx, c, h, 15*time.Second); err != nil {
			fmt.Fprintf(env.Stdout, "failed: %v\n", err)
			status = ExitUsage
			continue
		}
		fmt.Fprintln(env.Stdout, "done")
	}
	return status
}

// daemonExe is the binary that runs the daemons: this one when it has them
// (basaltd, or a test binary), else basaltd beside it.
func daemonExe() (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	if _, ok := Lookup("lim"); ok {
		return self, nil
	}
	d := filepath.Join(filepath.Dir(self), "basaltd")
	if _, err := os.Stat(d); err != nil {
		return "", fmt.Errorf("no daemon binary: %w", err)
	}
	return d, nil
}

// waitLIM waits for host's LIM to answer, asking every 100 ms (the process
// is not ours to wait on).
func waitLIM(ctx context.Context, c *limclient.Client, host string, d time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	for {
		pctx, pcancel := context.WithTimeout(ctx, time.Second)
		_, err := c.Ping(pctx, host)
		pcancel()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return limclient.ErrLIMDown
		case <-time.After(100 * time.Millisecond):
		}
	}
}

var limlockSpec = lsfopt.New("l:")

func runLimLock(ctx context.Context, env *Env, args []string) int {
	res, err := limlockSpec.Parse(args)
	if err != nil || len(res.Operands) > 0 {
		fmt.Fprintln(env.Stderr, "Usage: lsadmin limlock [-l time_seconds]")
		return ExitUsage
	}
	var secs int64
	if v, ok := res.Last("l"); ok {
		if secs, err = strconv.ParseInt(v, 10, 64); err != nil || secs <= 0 {
			fmt.Fprintln(env.Stderr, "lsadmin: The time value must be a positive integer")
			return ExitUsage
		}
	}
	return limLockOp(ctx, env, &api.LimControlRequest{Op: api.LimOpLock, LockSeconds: secs}, "Host is locked")
}

func runLimUnlock(ctx context.Context, env *Env, args []string) int {
	if len(args) > 0 {
		fmt.Fprintln(env.Stderr, "Usage: lsadmin limunlock")
		return ExitUsage
	}
	return limLockOp(ctx, env, &api.LimControlRequest{Op: api.LimOpUnlock}, "Host is unlocked")
}

func limLockOp(ctx context.Context, env *Env, req *api.LimControlRequest, done string) int {
	c, b, ok := lsConnect(ctx, env, "lsadmin")
	if !ok {
		return ExitUsage
	}
	defer c.Close()
	hosts, ok := limTargets(env, b, nil)
	if !ok {
		return ExitUsage
	}
	if _, err := c.Control(ctx, hosts[0], req); err != nil {
		limError(env, "lsadmin", err)
		return ExitUsage
	}
	fmt.Fprintln(env.Stdout, done)
	return 0
}

// lsadminUsage is a subcommand's usage line, as lsadmin help prints it.
func lsadminUsage(sub string) string {
	LsadminSubs.mu.RLock()
	defer LsadminSubs.mu.RUnlock()
	if s, ok := LsadminSubs.subs[sub]; ok {
		return s.Usage
	}
	return sub
}
