//go:build linux

package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
	"github.com/basalt-lsf/basalt/internal/cluster"
)

func init() {
	Register(
		&Command{Name: "cluster", Sub: true, Summary: "start or stop a local multi-host cluster (up|env|down)", Run: runCluster},
		&Command{Name: "dev", Sub: true, Summary: "run a local multi-host cluster in the foreground until interrupted", Run: runDev},
	)
}

var clusterSpec = lsfopt.New("-hosts:|-slots:|-masters:|-dir:|-cluster:|-user:|-netns|h|-help")

// clusterExecSpec is basalt cluster exec's: options, then the command.
var clusterExecSpec = func() *lsfopt.Spec {
	s := lsfopt.New("-dir:|-host:|host:|h|-help")
	s.StopAtOperand = true
	return s
}()

// defaultClusterDir is where basalt cluster keeps its cluster when --dir is
// not given.
func defaultClusterDir(env *Env) string {
	if h := env.Getenv("HOME"); h != "" {
		return filepath.Join(h, ".basalt", "cluster")
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("basalt-%d", os.Getuid()), "cluster")
}

func clusterOptions(env *Env, res *lsfopt.Result) (cluster.Options, error) {
	o := cluster.Options{Dir: defaultClusterDir(env)}
	for _, opt := range res.Opts {
		switch opt.Name {
		case "-hosts", "-slots":
			n, err := strconv.Atoi(opt.Value)
			if err != nil || n < 1 || n > 250 && opt.Name == "-hosts" {
				return o, fmt.Errorf("%s %s: expected a positive number", opt.Name, opt.Value)
			}
			if opt.Name == "-hosts" {
				o.Hosts = n
			} else {
				o.Slots = n
			}
		case "-masters":
			n, err := strconv.Atoi(opt.Value)
			if err != nil || n < 1 {
				return o, fmt.Errorf("%s %s: expected a positive number", opt.Name, opt.Value)
			}
			o.Masters = n
		case "-dir":
			o.Dir = opt.Value
		case "-cluster":
			o.Cluster = opt.Value
		case "-user":
			o.User = opt.Value
		case "-netns":
			o.Netns = true
		}
	}
	return o, nil
}

const clusterUsage = `Usage: basalt cluster up [--hosts N] [--slots N] [--masters N] [--dir DIR] [--cluster NAME] [--user NAME] [--netns]
       basalt cluster env [--dir DIR]
       basalt cluster exec [--dir DIR] --host HOST [command [argument ...]]
       basalt cluster down [--dir DIR]

up starts a local multi-host cluster (hostN on 127.0.1.N) in the background,
waits until it accepts jobs and prints the shell variables to use it:
    eval "$(basalt cluster up)"
--masters N makes the first N hosts master candidates (LSF_MASTER_LIST);
3 or 5 replicate the master: each runs an mbatchd replica with its own
copy of the log, and the raft leader among them is the master.
--user (root only) runs every daemon, and so every job, as that unprivileged
user, who administers the cluster (a non-root installation).
--netns (root, iproute2) puts each host in a network namespace of its own,
with its own address (10.250.X.N) on a bridge: hosts share no loopback, as
separate machines. Run commands on a host with exec.
exec runs a command on HOST of the cluster in DIR (in its namespace, with
BASALT_HOST=HOST and the cluster's LSF_ENVDIR and bin directory), or a
shell there without a command:
    basalt cluster exec --host host2 bsub -m host3 hostname
env prints the same variables for the cluster already running in DIR (in
another shell: eval "$(basalt cluster env)").
down stops it and every process it started.`

func runCluster(ctx context.Context, env *Env, args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprintln(env.Stderr, clusterUsage)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	sub := args[0]
	if sub == "exec" {
		return runClusterExec(env, args[1:])
	}
	res, err := clusterSpec.Parse(args[1:])
	if err != nil || len(res.Operands) > 0 {
		if err == nil {
			err = fmt.Errorf("unexpected argument %q", res.Operands[0])
		}
		env.Errorf("basalt cluster %s: %v", sub, err)
		fmt.Fprintln(env.Stderr, clusterUsage)
		return 2
	}
	if res.Has("h") || res.Has("-help") {
		fmt.Fprintln(env.Stdout, clusterUsage)
		return 0
	}
	o, err := clusterOptions(env, res)
	if err != nil {
		env.Errorf("basalt cluster %s: %v", sub, err)
		return 2
	}
	switch sub {
	case "up":
		c, err := cluster.Up(ctx, o)
		if err != nil {
			env.Errorf("basalt cluster up: %v", err)
			return 1
		}
		printExports(env, c)
		fmt.Fprintf(env.Stdout, "# Basalt cluster %q is up: %d hosts, %d slots each; stop it with: basalt cluster down --dir %s\n",
			c.Opts.Cluster, c.Opts.Hosts, c.Opts.Slots, shellQuote(c.Opts.Dir))
		printNetnsHint(env, c)
		if u := c.DashboardURL(); u != "" {
			fmt.Fprintf(env.Stdout, "# dashboard: %s (job control: log in with a token from basalt web-token)\n", u)
		}
		if u := c.MetricsURL(); u != "" {
			fmt.Fprintf(env.Stdout, "# mbatchd's metrics: %s\n", u)
		}
		return 0
	case "env":
		if len(res.Opts) > 0 && !(len(res.Opts) == 1 && res.Has("-dir")) {
			env.Errorf("basalt cluster env: only --dir applies")
			return 2
		}
		c, err := cluster.Running(o.Dir)
		if err != nil {
			env.Errorf("basalt cluster env: %v", err)
			return 1
		}
		printExports(env, c)
		fmt.Fprintf(env.Stdout, "# Basalt cluster %q in %s\n", c.Opts.Cluster, shellQuote(c.Opts.Dir))
		printNetnsHint(env, c)
		return 0
	case "down":
		if err := cluster.Down(ctx, o.Dir, ""); err != nil {
			env.Errorf("basalt cluster down: %v", err)
			return 1
		}
		return 0
	}
	env.Errorf("basalt cluster: unknown subcommand %q", sub)
	fmt.Fprintln(env.Stderr, clusterUsage)
	return 2
}

// runClusterExec is basalt cluster exec: it replaces this process with the
// command, run on the host.
func runClusterExec(env *Env, args []string) int {
	res, err := clusterExecSpec.Parse(args)
	host := ""
	if err == nil {
		// --host, or -host as LSF's commands spell their options.
		for _, o := range res.Opts {
			if o.Name == "-host" || o.Name == "host" {
				host = o.Value
			}
		}
	}
	if err != nil || res.Has("h") || res.Has("-help") || host == "" {
		if err != nil {
			env.Errorf("basalt cluster exec: %v", err)
		}
		env.Errorf("Usage: basalt cluster exec [--dir DIR] --host HOST [command [argument ...]]")
		return 2
	}
	dir := defaultClusterDir(env)
	if d, ok := res.Last("-dir"); ok {
		dir = d
	}
	argv := res.Operands
	if len(argv) == 0 {
		// No command: a shell on the host.
		sh := env.Getenv("SHELL")
		if sh == "" {
			sh = "/bin/sh"
		}
		argv = []string{sh}
	}
	err = cluster.ExecIn(dir, host, argv)
	env.Errorf("basalt cluster exec: %v", err)
	return 1
}

// printNetnsHint tells how to reach a namespace cluster's hosts: this
// machine's own network is none of them.
func printNetnsHint(env *Env, c *cluster.Cluster) {
	if c.Opts.Netns {
		fmt.Fprintf(env.Stdout, "# Each host is a network namespace: run commands on one with: basalt cluster exec --dir %s --host host1 [command]\n",
			shellQuote(c.Opts.Dir))
	}
}

// printExports prints c's variables as shell export lines.
func printExports(env *Env, c *cluster.Cluster) {
	for _, kv := range c.Exports() {
		fmt.Fprintf(env.Stdout, "export %s=%s\n", kv[0], shellQuote(kv[1]))
	}
}

// runDev runs a cluster in the foreground until SIGINT or SIGTERM.
func runDev(ctx context.Context, env *Env, args []string) int {
	res, err := clusterSpec.Parse(args)
	if err != nil || len(res.Operands) > 0 {
		env.Errorf("Usage: basalt dev [--hosts N] [--slots N] [--dir DIR] [--cluster NAME]")
		return 2
	}
	if res.Has("h") || res.Has("-help") {
		fmt.Fprintln(env.Stdout, "Usage: basalt dev [--hosts N] [--slots N] [--dir DIR] [--cluster NAME]\n\nRuns a local cluster in the foreground until interrupted.")
		return 0
	}
	o, err := clusterOptions(env, res)
	if err != nil {
		env.Errorf("basalt dev: %v", err)
		return 2
	}
	if !flagGiven(res, "-dir") {
		o.Dir = filepath.Join(os.TempDir(), fmt.Sprintf("basalt-dev-%d", os.Getpid()))
		defer os.RemoveAll(o.Dir)
	}
	o.Foreground = true
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	c, err := cluster.Up(ctx, o)
	if err != nil {
		env.Errorf("basalt dev: %v", err)
		return 1
	}
	fmt.Fprintf(env.Stderr, "Basalt dev cluster %q: %d hosts, %d slots each, in %s. In another shell:\n", c.Opts.Cluster, c.Opts.Hosts, c.Opts.Slots, c.Opts.Dir)
	for _, kv := range c.Exports() {
		fmt.Fprintf(env.Stderr, "  export %s=%s\n", kv[0], shellQuote(kv[1]))
	}
	fmt.Fprintln(env.Stderr, "Press Ctrl-C to stop.")
	if err := c.Wait(ctx); err != nil {
		env.Errorf("basalt dev: %v", err)
		return 1
	}
	return 0
}

func flagGiven(res *lsfopt.Result, name string) bool { return res.Has(name) }

// shellQuote quotes s for a POSIX shell when needed.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`|&;<>()*?[]#~{}!") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
