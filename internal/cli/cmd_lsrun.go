package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
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
	fmt.Fprintln(env.Stderr, `Usage: lsrun [-h] [-V] [-l] [-L] [-P] [-S] [-v] [-n] [-m "host_name ..."] [-R "res_req"] command [argument ...]`)
}

// runLsrun runs a command on one host through its RES: the -m host (the
// best of several by the master LIM's placement), else the host the
// master LIM places it on (lsplace's advice for -R). Its output and exit
// status are the command's. -P gives the task a pseudo-terminal (the local
// terminal in raw mode, its signals and size changes forwarded), -S the
// same in shell mode (^C and ^Z reach the remote terminal as keys), -v
// names the host, -n gives the task no input.
func runLsrun(ctx context.Context, env *Env, args []string) int {
	res, err := lsrunSpec.Parse(args)
	if err != nil {
		fmt.Fprintf(env.Stderr, "lsrun: %v\n", err)
		lsrunUsage(env)
		return ExitUsage
	}
	if res.Has("h") {
		lsrunUsage(env)
		return 0
	}
	if res.Has("V") {
		return PrintVersion(env)
	}
	if len(res.Operands) == 0 {
		lsrunUsage(env)
		return ExitUsage
	}
	var names []string
	for _, m := range res.All("m") {
		names = append(names, strings.Fields(m)...)
	}
	req, _ := res.Last("R")
	var host string
	if len(names) == 1 {
		h, err := clusterHost(ctx, env, names[0])
		if err != nil {
			fmt.Fprintf(env.Stderr, "lsrun: %v\n", firstLine(err))
			return ExitUsage
		}
		host = h
	} else {
		hosts, ok := placeHosts(ctx, env, "lsrun", names, req, 1)
		if !ok {
			return ExitUsage
		}
		host = hosts[0]
	}
	cc, err := loadClientConf(env)
	if err != nil {
		fmt.Fprintf(env.Stderr, "lsrun: %v\n", err)
		return ExitUsage
	}
	if res.Has("v") {
		fmt.Fprintf(env.Stdout, "<<Execute %s on remote host %s>>\n", strings.Join(res.Operands, " "), host)
	}
	tio := taskIO{stdout: env.Stdout, stderr: env.Stderr, pty: res.Has("P") || res.Has("S"), shellMode: res.Has("S"), forwardSignals: true}
	if !res.Has("n") && !tio.pty {
		tio.stdin = env.Stdin
	}
	code, err := runTask(ctx, env, cc, host, res.Operands, tio)
	if err != nil {
		fmt.Fprintf(env.Stderr, "lsrun: %s\n", remoteMessage(err))
		if code != 0 {
			return code
		}
		return ExitUsage
	}
	return code
}
