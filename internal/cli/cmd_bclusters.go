package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
)

var bclustersSpec = lsfopt.New("h|V|w|app")

func init() {
	Register(&Command{Name: "bclusters", Summary: "display MultiCluster information", Run: runBclusters})
}

// runBclusters prints LSF's job forwarding information: each send-jobs
// queue with the receive queues it forwards to, each receive-jobs queue
// with the clusters it accepts, and the link's status (ok, disc, reject).
// Basalt has no resource leasing model.
func runBclusters(ctx context.Context, env *Env, args []string) int {
	res, err := bclustersSpec.Parse(args)
	if err != nil || res.Has("h") || len(res.Operands) > 0 {
		if err != nil {
			fmt.Fprintf(env.Stderr, "bclusters: %v\n", err)
		}
		fmt.Fprintln(env.Stderr, "Usage: bclusters [-h] [-V] [-app] [-w]")
		if err == nil && len(res.Operands) == 0 {
			return 0
		}
		return ExitUsage
	}
	if res.Has("V") {
		return PrintVersion(env)
	}
	if res.Has("app") {
		fmt.Fprintln(env.Stderr, "bclusters: -app: Option not supported")
		return ExitUsage
	}
	var reply api.ClustersReply
	if !batchCall(ctx, env, api.MBatchdClusters, &api.ClustersRequest{}, &reply) {
		return ExitUsage
	}
	WriteBclusters(env.Stdout, reply.Links, res.Has("w"))
	return 0
}

// WriteBclusters writes bclusters' job forwarding and resource lease
// sections.
func WriteBclusters(w io.Writer, links []*api.MCLink, wide bool) {
	fmt.Fprintln(w, "[Job Forwarding Information ]")
	if len(links) == 0 {
		fmt.Fprintln(w, "No local queue setting for job forwarding")
	} else {
		fmt.Fprintln(w)
		format := "%-15.15s %-10.10s %-10.10s %-10.10s %s\n"
		if wide {
			format = "%-15s %-10s %-10s %-10s %s\n"
		}
		fmt.Fprintf(w, format, "LOCAL_QUEUE", "JOB_FLOW", "REMOTE", "CLUSTER", "STATUS")
		for _, l := range links {
			fmt.Fprintf(w, format, l.LocalQueue, l.Flow, l.Remote, l.Cluster, l.Status)
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "[Resource Lease Information ]")
	fmt.Fprintln(w, "No resources have been exported or borrowed")
}
