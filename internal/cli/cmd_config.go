package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os/user"
	"strings"

	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/config/defaults"
)

func init() {
	Register(&Command{Name: "config", Sub: true, Summary: "write the default cluster configuration, dump or check a configuration", Run: runConfig})
}

const configUsage = `Usage: basalt config write DIR [--hosts N] [--slots N] [--cluster NAME] [--port-base P]
                           [--masters N] [--admin USER] [--force]
       basalt config dump      (the typed configuration of $LSF_ENVDIR)
       basalt config check     (every diagnostic of $LSF_ENVDIR's configuration)`

func runConfig(ctx context.Context, env *Env, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(env.Stderr, configUsage)
		return 2
	}
	switch args[0] {
	case "write":
		return runConfigWrite(env, args[1:])
	case "dump":
		return runConfigDump(ctx, env, args[1:])
	case "check":
		return runConfigCheck(ctx, env, args[1:])
	case "help", "-h", "--help":
		fmt.Fprintln(env.Stdout, configUsage)
		return 0
	}
	fmt.Fprintf(env.Stderr, "basalt config: unknown subcommand %q\n%s\n", args[0], configUsage)
	return 2
}

// parseInterspersed parses flags placed before or after the operands.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var operands []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return operands, nil
		}
		operands = append(operands, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// currentUser is the administrator of a cluster written by basalt config
// write: the user running it.
func currentUser(env *Env) string {
	if u := env.Getenv("USER"); u != "" {
		return u
	}
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return defaults.DefaultAdmin
}

// runConfigWrite is basalt config write DIR [options]: it writes the
// embedded default configuration for a local cluster and prints the
// LSF_ENVDIR to use.
func runConfigWrite(env *Env, args []string) int {
	fs := flag.NewFlagSet("basalt config write", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var o defaults.Options
	fs.IntVar(&o.Hosts, "hosts", defaults.DefaultHosts, "number of hosts, host1..hostN")
	fs.IntVar(&o.Slots, "slots", defaults.DefaultSlots, "job slots (MXJ) of each host")
	fs.StringVar(&o.Cluster, "cluster", defaults.DefaultCluster, "cluster name")
	fs.IntVar(&o.PortBase, "port-base", defaults.DefaultPortBase, "first of the ports (RES, LIM, -, MBD, SBD)")
	fs.IntVar(&o.Masters, "masters", 1, "number of master candidates (the first hosts)")
	fs.StringVar(&o.Admin, "admin", "", "cluster administrator (default: the current user)")
	fs.BoolVar(&o.Force, "force", false, "overwrite an existing configuration")
	operands, err := parseInterspersed(fs, args)
	if err != nil || len(operands) != 1 {
		if err != nil {
			fmt.Fprintf(env.Stderr, "basalt config write: %v\n", err)
		}
		fmt.Fprintln(env.Stderr, configUsage)
		return 2
	}
	if o.Admin == "" {
		o.Admin = currentUser(env)
	}
	dir := operands[0]
	if wd, err := env.Getwd(); err == nil && !strings.HasPrefix(dir, "/") {
		dir = wd + "/" + dir
	}
	envDir, err := defaults.Write(dir, o)
	if err != nil {
		fmt.Fprintf(env.Stderr, "basalt %v\n", err)
		return 1
	}
	fmt.Fprintf(env.Stdout, "LSF_ENVDIR=%s\n", envDir)
	return 0
}

func runConfigDump(ctx context.Context, env *Env, args []string) int {
	if len(args) != 0 {
		fmt.Fprintln(env.Stderr, configUsage)
		return 2
	}
	c, err := config.Load(ctx, loadOptions(env))
	if err != nil {
		if el, ok := err.(*config.ErrorList); ok {
			fmt.Fprint(env.Stderr, el.Diags.String())
		} else {
			env.Errorf("basalt config dump: %v", err)
		}
		return 1
	}
	fmt.Fprint(env.Stdout, c.Dump())
	return 0
}

// runConfigCheck prints every diagnostic, one per line, and exits 1 with
// errors: a script-friendly ckconfig.
func runConfigCheck(ctx context.Context, env *Env, args []string) int {
	if len(args) != 0 {
		fmt.Fprintln(env.Stderr, configUsage)
		return 2
	}
	d := diagnosticsFor(ctx, env, true)
	fmt.Fprint(env.Stdout, d.String())
	if d.HasErrors() {
		return 1
	}
	return 0
}
