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

var lsplaceSpec = lsfopt.New("h|V|L|R:|n:|w:")

func init() {
	Register(&Command{Name: "lsplace", Summary: "display hosts for tasks, by the master LIM's placement advice", Run: runLsplace})
}

func lsplaceUsage(env *Env) {
	fmt.Fprintln(env.Stderr, "Usage: lsplace [-h] [-V] [-L] [-n minimum | -n 0] [-R res_req] [-w maximum | -w 0] [host_name ...]")
}

// runLsplace prints the best eligible hosts (lowest load first by the
// requirement's order section, r15s:pg by default), on one line (IBM
// 10.1 lsplace): at least -n minimum (1 by default) and no more than -w
// maximum (the minimum by default), 0 for either meaning as many as there
// are. Fewer eligible hosts than the minimum, or none, prints "Not enough
// host(s) currently eligible" and exits 1.
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
	count := func(opt string, def int) (int, bool) {
		v, ok := res.Last(opt)
		if !ok {
			return def, true
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			fmt.Fprintf(env.Stderr, "lsplace: -%s %s: a number of hosts, 0 for as many as possible\n", opt, v)
			lsplaceUsage(env)
			return 0, false
		}
		return n, true
	}
	need, ok := count("n", 1)
	if !ok {
		return ExitUsage
	}
	most, ok := count("w", need)
	if !ok {
		return ExitUsage
	}
	if most != 0 && most < need {
		most = need
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
	if len(avail) < need || len(avail) == 0 {
		fmt.Fprintln(env.Stderr, "lsplace: Not enough host(s) currently eligible")
		return 1
	}
	if most > 0 && len(avail) > most {
		avail = avail[:most]
	}
	names := make([]string, len(avail))
	for i, h := range avail {
		names[i] = h.Name
	}
	fmt.Fprintln(env.Stdout, strings.Join(names, " "))
	return 0
}
