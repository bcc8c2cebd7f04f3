package cli

import (
	"context"
	"fmt"
	"slices"

	"github.com/basalt-lsf/basalt/api"
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
		if _, peer := b.Peer(n); n != b.ClusterName() && !peer {
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
	wide := res.Has("w") || res.Has("l")
	if len(b.Peers()) == 0 {
		lsfmt.WriteClusters(env.Stdout, b.ClusterName(), status, master, admin, len(b.Cluster.Hosts),
			len(b.Cluster.ServerHosts()), wide)
		return 0
	}
	// MultiCluster: the peers as the master last saw them.
	rows := []lsfmt.ClusterRow{{Name: b.ClusterName(), Status: status, Master: master, Admin: admin,
		Hosts: len(b.Cluster.Hosts), Servers: len(b.Cluster.ServerHosts())}}
	var reply api.ClustersReply
	if bc, err := dialBatch(ctx, env); err == nil {
		err = bc.Call(ctx, api.MBatchdClusters, &api.ClustersRequest{}, &reply)
		bc.Close()
		if err != nil {
			reply.Clusters = nil
		}
	}
	for _, p := range b.Peers() {
		row := lsfmt.ClusterRow{Name: p.Name, Status: "unavail", Master: "-", Admin: "-"}
		for _, c := range reply.Clusters {
			if c.Name == p.Name {
				row = lsfmt.ClusterRow{Name: c.Name, Status: c.Status, Master: c.Master, Admin: c.Admin, Hosts: int(c.Hosts), Servers: int(c.Servers)}
			}
		}
		rows = append(rows, row)
	}
	if len(res.Operands) > 0 {
		var sel []lsfmt.ClusterRow
		for _, r := range rows {
			if slices.Contains(res.Operands, r.Name) {
				sel = append(sel, r)
			}
		}
		rows = sel
	}
	lsfmt.WriteClusterRows(env.Stdout, rows, wide)
	return 0
}
