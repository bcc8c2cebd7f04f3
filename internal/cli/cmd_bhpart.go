package cli

import (
	"context"
	"fmt"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
	"github.com/basalt-lsf/basalt/internal/cli/output"
)

var bhpartSpec = lsfopt.New("h|V|" + unsupportedBhpartOptions)

func init() {
	Register(&Command{Name: "bhpart", Summary: "display host partitions and their fairshare accounts", Run: runBhpart})
}

func bhpartUsage(env *Env) {
	fmt.Fprintln(env.Stderr, "Usage: bhpart [-h] [-V] [host_partition_name ...]")
}

func runBhpart(ctx context.Context, env *Env, args []string) int {
	res, err := bhpartSpec.Parse(args)
	if err != nil {
		fmt.Fprintf(env.Stderr, "bhpart: %v\n", err)
		bhpartUsage(env)
		return ExitUsage
	}
	if res.Has("h") {
		bhpartUsage(env)
		return 0
	}
	if res.Has("V") {
		return PrintVersion(env)
	}
	if refuseUnsupported(env, "bhpart", res, unsupportedBhpartOptions) {
		return ExitUsage
	}
	var reply api.PartitionsReply
	if !batchCall(ctx, env, api.MBatchdPartitions, &api.PartitionsRequest{Names: res.Operands}, &reply) {
		return ExitUsage
	}
	rc := 0
	for _, n := range reply.NotFound {
		env.Errorf("%s: No such host partition", n)
		rc = ExitUsage
	}
	if len(reply.Partitions) == 0 {
		if len(reply.NotFound) == 0 {
			env.Errorf("No host partition is found")
		}
		return ExitUsage
	}
	if err := output.WriteHostPartitions(env.Stdout, reply.Partitions); err != nil {
		env.Errorf("bhpart: %v", err)
		return ExitUsage
	}
	return rc
}
