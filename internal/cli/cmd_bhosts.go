package cli

import (
	"context"
	"fmt"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
	"github.com/basalt-lsf/basalt/internal/cli/output"
)

var bhostsSpec = lsfopt.New("w|l|X|h|V|noheader|R:")

func init() {
	Register(&Command{Name: "bhosts", Summary: "display information about batch hosts", Run: runBhosts})
}

func bhostsUsage(env *Env) {
	fmt.Fprintln(env.Stderr, `Usage: bhosts [-h] [-V] [-w | -l] [-X] [-noheader] [-R "res_req"] [host_name | host_group ...]`)
}

func runBhosts(ctx context.Context, env *Env, args []string) int {
	res, err := bhostsSpec.Parse(args)
	if err != nil {
		fmt.Fprintf(env.Stderr, "bhosts: %v\n", err)
		bhostsUsage(env)
		return ExitUsage
	}
	if res.Has("h") {
		bhostsUsage(env)
		return 0
	}
	if res.Has("V") {
		return runVersion(ctx, env, nil)
	}
	if res.Has("l") && res.Has("w") {
		bhostsUsage(env)
		return ExitUsage
	}
	req := &api.HostsRequest{Hosts: res.Operands}
	req.ResReq, _ = res.Last("R")
	c, ok := batchConnect(ctx, env)
	if !ok {
		return ExitUsage
	}
	defer c.Close()
	var reply api.HostsReply
	if err := c.Call(ctx, "MBatchd.Hosts", req, &reply); err != nil {
		batchError(env, err)
		return ExitUsage
	}
	rc := 0
	for _, h := range reply.NotFound {
		env.Errorf("%s: Bad host name, host group name or cluster name", h)
		rc = ExitUsage
	}
	if len(reply.Hosts) == 0 {
		if len(reply.NotFound) == 0 {
			env.Errorf("No matching host found")
		}
		return ExitUsage
	}
	o := outputOptions(env)
	o.Wide, o.NoHeader = res.Has("w"), res.Has("noheader")
	if res.Has("l") {
		err = output.WriteHostsLong(env.Stdout, reply.Hosts, o)
	} else {
		err = output.WriteHosts(env.Stdout, reply.Hosts, o)
	}
	if err != nil {
		env.Errorf("bhosts: %v", err)
		return ExitUsage
	}
	return rc
}
