package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
	"github.com/basalt-lsf/basalt/internal/config"
)

var lsrunSpec = func() *lsfopt.Spec {
	s := lsfopt.New("h|V|l|L|P|S|v|n|m:|R:")
	s.StopAtOperand = true
	return s
}()

func init() {
	Register(&Command{Name: "lsrun", Summary: "run an interactive task on a remote host through its RES", Run: runLsrun})
}

func lsrunUsage(env *Env) {
	fmt.Fprintln(env.Stderr, `Usage: lsrun [-h] [-V] [-l] [-L] [-P] [-S] [-v] [-n] [-m "host_name ..." | -m "cluster_name ..."] [-R "res_req"] command [argument ...]`)
}

// lsrunOpts are lsrun's options once parsed.
type lsrunOpts struct {
	hosts      []string // -m, split
	resReq     string   // -R
	localFail  bool     // -l: run locally when the remote execution fails
	forceRES   bool     // -L: through the RES even on this host
	pty, shell bool     // -P, -S
	verbose    bool     // -v
	noStdin    bool     // -n
	version    bool     // -V
	argv       []string
}

// parseLsrun reads lsrun's arguments; an error is printed with the usage.
func parseLsrun(args []string) (*lsrunOpts, bool, error) {
	res, err := lsrunSpec.Parse(args)
	if err != nil {
		return nil, false, err
	}
	if res.Has("h") {
		return nil, true, nil
	}
	o := &lsrunOpts{localFail: res.Has("l"), forceRES: res.Has("L"), pty: res.Has("P") || res.Has("S"),
		shell: res.Has("S"), verbose: res.Has("v"), noStdin: res.Has("n"), argv: res.Operands}
	for _, m := range res.All("m") {
		o.hosts = append(o.hosts, strings.Fields(m)...)
	}
	if m, ok := res.Last("m"); ok && len(strings.Fields(m)) == 0 {
		return nil, false, fmt.Errorf("option -m needs a host or cluster name")
	}
	o.resReq, _ = res.Last("R")
	o.version = res.Has("V")
	return o, false, nil
}

// runLsrun runs a command on one host through its RES: the -m host (the
// best of several by the master LIM's placement), else the host the
// master LIM places it on (lsplace's advice for -R). Its output and exit
// status are the command's. As LSF's lsrun, a task placed on this host
// runs directly, without the RES, unless -L; -l runs the task here when
// the remote execution fails (the RES unreachable or refusing; not the
// command's own failure). -P gives the task a pseudo-terminal (the local
// terminal in raw mode, its signals and size changes forwarded), -S the
// same in shell mode (^C and ^Z reach the remote terminal as keys), -v
// names the host, -n gives the task no input. -m names hosts, or the
// local cluster (any of its hosts: there is no MultiCluster).
func runLsrun(ctx context.Context, env *Env, args []string) int {
	o, help, err := parseLsrun(args)
	if err != nil {
		fmt.Fprintf(env.Stderr, "lsrun: %v\n", err)
		lsrunUsage(env)
		return ExitUsage
	}
	if help {
		lsrunUsage(env)
		return 0
	}
	if o.version {
		return PrintVersion(env)
	}
	if len(o.argv) == 0 {
		lsrunUsage(env)
		return ExitUsage
	}
	b, err := lsBase(ctx, env)
	if err != nil {
		fmt.Fprintf(env.Stderr, "lsrun: %v\n", firstLine(err))
		return ExitUsage
	}
	// -m cluster_name: the local cluster is all its hosts; another one
	// is not known (no MultiCluster).
	var names []string
	for _, n := range o.hosts {
		switch {
		case strings.EqualFold(n, b.ClusterName()):
			names = append(names, b.Cluster.ServerHosts()...)
		case b.Cluster.Host(n) == nil:
			fmt.Fprintf(env.Stderr, "lsrun: invalid hostname %s\n", n)
			return ExitUsage
		default:
			names = append(names, n)
		}
	}
	var host string
	if len(names) == 1 {
		host = b.Cluster.Host(names[0]).Name // a single host: -R is ignored, as LSF does
	} else {
		hosts, ok := placeHosts(ctx, env, "lsrun", names, o.resReq, 1)
		if !ok {
			return ExitUsage
		}
		host = hosts[0]
	}
	var stdin io.Reader
	if !o.noStdin && !o.pty {
		stdin = env.Stdin
	}
	cmdline := strings.Join(o.argv, " ")
	local, _ := config.LocalHostName(b.Conf, env.Getenv, nil)
	if !o.forceRES && strings.EqualFold(host, local) {
		if o.verbose {
			fmt.Fprintf(env.Stdout, "<<Execute %s on remote host %s>>\n", cmdline, host)
		}
		if o.noStdin {
			stdin = nil
		} else {
			stdin = env.Stdin
		}
		return runLocal(ctx, env, o.argv, stdin)
	}
	cc, err := loadClientConf(env)
	if err != nil {
		fmt.Fprintf(env.Stderr, "lsrun: %v\n", err)
		return ExitUsage
	}
	if o.verbose {
		fmt.Fprintf(env.Stdout, "<<Execute %s on remote host %s>>\n", cmdline, host)
	}
	tio := taskIO{stdin: stdin, stdout: env.Stdout, stderr: env.Stderr, pty: o.pty, shellMode: o.shell, forwardSignals: true}
	code, started, err := runTaskStarted(ctx, env, cc, host, o.argv, tio)
	if err != nil {
		fmt.Fprintf(env.Stderr, "lsrun: %s\n", remoteMessage(err))
		if o.localFail && !started {
			if o.verbose {
				fmt.Fprintf(env.Stdout, "<<Execute %s on remote host %s>>\n", cmdline, local)
			}
			return runLocal(ctx, env, o.argv, env.Stdin)
		}
		if code != 0 {
			return code
		}
		return ExitUsage
	}
	return code
}
