package cli

import (
	"context"
	"fmt"

	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
	"github.com/basalt-lsf/basalt/internal/lim/lsfmt"
)

var lsinfoSpec = lsfopt.New("h|V|l|r|m|M|t")

func init() {
	Register(&Command{Name: "lsinfo", Summary: "display load sharing configuration information", Run: runLsinfo})
}

func runLsinfo(ctx context.Context, env *Env, args []string) int {
	res, err := lsinfoSpec.Parse(args)
	if err != nil || res.Has("h") {
		if err != nil {
			fmt.Fprintf(env.Stderr, "lsinfo: %v\n", err)
		}
		fmt.Fprintln(env.Stderr, "Usage: lsinfo [-h] [-V] [-l] [-r] [-m] [-M] [-t] [resource_name ...]")
		if err == nil {
			return 0
		}
		return ExitUsage
	}
	if res.Has("V") {
		return PrintVersion(env)
	}
	c, _, ok := lsConnect(ctx, env, "lsinfo")
	if !ok {
		return lsloadExit
	}
	defer c.Close()
	cl, err := c.Cluster(ctx)
	if err != nil {
		limError(env, "lsinfo", err)
		return lsloadExit
	}
	used := map[string]bool{}
	for _, h := range cl.Hosts {
		used[h.Model] = true
	}
	o := lsfmt.InfoOptions{Long: res.Has("l"), Resources: res.Has("r"), Types: res.Has("t"),
		Models: res.Has("m") || res.Has("M"), AllModels: res.Has("M"), Names: res.Operands}
	lsfmt.WriteInfo(env.Stdout, lsfmt.Resources(cl.Resources), cl.Types, cl.Models, used, o)
	return 0
}
