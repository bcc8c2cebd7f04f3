package cli

import (
	"context"
	"fmt"

	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
	"github.com/basalt-lsf/basalt/internal/lim/lsfmt"
)

var lsclustersSpec = lsfopt.New("h|V|w|l")

func init() {
	Register(&Command{Name: "lsclusters", Summary: "display configuration information about clusters", Run: runLsclusters})
}

func runLsclusters(ctx context.Context, env *Env, args []string) int {
	res, err := lsclustersSpec.Parse(args)
	if err != nil || res.Has("h") {
		if err != nil {
			fmt.Fprintf(env.Stderr, "lsclusters: %v\n", err)
		}
		fmt.Fprintln(env.Stderr, "Usage: lsclusters [-h] [-V] [-w | -l] [cluster_name ...]")
		if err == nil {
			return 0
		}
		return ExitUsage
	}
	if res.Has("V") {
		return PrintVersion(env)
	}
	c, b, ok := lsConnect(ctx, env, "lsclusters")
	if !ok {
		return ExitUsage
	}
	defer c.Close()
	for _, n := range res.Operands {
		if n != b.ClusterName() {
			fmt.Fprintf(env.Stderr, "lsclusters: %s: Unknown cluster name\n", n)
			return ExitUsage
		}
	}
	admin := "root"
	if len(b.Cluster.Admins) > 0 {
		admin = b.Cluster.Admins[0]
	}
	status, master := "unavail", "-"
	if m, _, err := c.Master(ctx); err == nil {
		status, master = "ok", m
	}
	lsfmt.WriteClusters(env.Stdout, b.ClusterName(), status, master, admin, len(b.Cluster.Hosts),
		len(b.Cluster.ServerHosts()), res.Has("w") || res.Has("l"))
	return 0
}
