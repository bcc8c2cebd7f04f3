package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
	"github.com/basalt-lsf/basalt/internal/resreq"
)

var lsplaceSpec = lsfopt.New("h|V|L|w|R:|n:")

func init() {
	Register(&Command{Name: "lsplace", Summary: "display hosts for tasks, by the master LIM's placement advice", Run: runLsplace})
}

func lsplaceUsage(env *Env) {
	fmt.Fprintln(env.Stderr, "Usage: lsplace [-h] [-V] [-L] [-w] [-R res_req] [-n num_hosts] [host_name ...]")
}

// runLsplace prints the best eligible hosts (lowest load first by the
// requirement's order section, r15s:pg by default), on one line. With
// -n 0 every eligible host; without -w, fewer eligible hosts than asked is
// an error.
func runLsplace(ctx context.Context, env *Env, args []string) int {
	res, err := lsplaceSpec.Parse(args)
	if err != nil {
		fmt.Fprintf(env.Stderr, "lsplace: %v\n", err)
		lsplaceUsage(env)
		return ExitUsage
	}
	if res.Has("h") {
		lsplaceUsage(env)
		return 0
	}
	if res.Has("V") {
		return PrintVersion(env)
	}
	num := 1
	if v, ok := res.Last("n"); ok {
		if num, err = strconv.Atoi(v); err != nil || num < 0 {
			lsplaceUsage(env)
			return ExitUsage
		}
	}
	c, b, ok := lsConnect(ctx, env, "lsplace")
	if !ok {
		return ExitUsage
	}
	defer c.Close()
	cl, err := c.Cluster(ctx)
	if err != nil {
		limError(env, "lsplace", err)
		return ExitUsage
	}
	hosts, ok := lsHosts(env, "lsplace", cl, res.Operands)
	if !ok {
		return ExitUsage
	}
	var avail []*api.HostLoad
	for _, h := range hosts {
		if h.Status == 0 && h.Server { // placement only on ok server hosts
			avail = append(avail, h)
		}
	}
	req, _ := res.Last("R")
	if avail, ok = lsSelect(env, "lsplace", b, cl, avail, req, resreq.CtxLsplace, true); !ok {
		return ExitUsage
	}
	if num > 0 && len(avail) < num && !res.Has("w") || len(avail) == 0 {
		fmt.Fprintln(env.Stderr, "lsplace: Not enough host(s) currently eligible")
		return ExitUsage
	}
	if num > 0 && len(avail) > num {
		avail = avail[:num]
	}
	names := make([]string, len(avail))
	for i, h := range avail {
		names[i] = h.Name
	}
	fmt.Fprintln(env.Stdout, strings.Join(names, " "))
	return 0
}
