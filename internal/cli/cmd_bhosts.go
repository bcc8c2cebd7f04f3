package cli

import (
	"context"
	"fmt"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
	"github.com/basalt-lsf/basalt/internal/cli/output"
)

var bhostsSpec = lsfopt.New("w|l|X|h|V|noheader|json|R:|o:|s|gpu|" + unsupportedBhostsOptions)

func init() {
	Register(&Command{Name: "bhosts", Summary: "display information about batch hosts", Run: runBhosts})
}

func bhostsUsage(env *Env) {
	fmt.Fprintln(env.Stderr, `Usage: bhosts [-h] [-V] [-w | -l | -o "field[:[-][width]] ... [delimiter='c']" [-json]] [-X] [-noheader]
              [-R "res_req"] [host_name | host_group ...]`)
	fmt.Fprintln(env.Stderr, `       bhosts [-h] [-V] -s [resource_name ...]`)
	fmt.Fprintln(env.Stderr, `       bhosts [-h] [-V] -gpu [-w] [-noheader] [-R "res_req"] [host_name | host_group ...]`)
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
		return PrintVersion(env)
	}
	if refuseUnsupported(env, "bhosts", res, unsupportedBhostsOptions) {
		return ExitUsage
	}
	_, hasFormat := res.Last("o")
	if res.Has("l") && res.Has("w") || hasFormat && (res.Has("l") || res.Has("w")) ||
		res.Has("s") && (res.Has("l") || res.Has("w") || res.Has("R") || hasFormat || res.Has("json")) {
		bhostsUsage(env)
		return ExitUsage
	}
	f, ok := listFormat(env, "bhosts", res, "LSB_BHOSTS_FORMAT", res.Has("l") || res.Has("w") || res.Has("s"), output.HostFields, bhostsUsage)
	if !ok {
		return ExitUsage
	}
	if res.Has("s") {
		return bhostsShared(ctx, env, res.Operands)
	}
	if res.Has("gpu") {
		return bhostsGPU(ctx, env, res)
	}
	reply, rc, ok := bhostsQuery(ctx, env, res)
	if !ok {
		return ExitUsage
	}
	if len(reply.Hosts) == 0 {
		if len(reply.NotFound) == 0 {
			env.Errorf("No matching host found")
		}
		return ExitUsage
	}
	o := outputOptions(env)
	o.Wide, o.NoHeader = res.Has("w"), res.Has("noheader")
	switch {
	case res.Has("json"):
		err = output.WriteHostsJSON(env.Stdout, reply.Hosts, f)
	case f != nil:
		err = output.WriteHostsCustom(env.Stdout, reply.Hosts, f, o)
	case res.Has("l"):
		err = output.WriteHostsLong(env.Stdout, reply.Hosts, o)
	default:
		err = output.WriteHosts(env.Stdout, reply.Hosts, o)
	}
	if err != nil {
		env.Errorf("bhosts: %v", err)
		return ExitUsage
	}
	return rc
}

// bhostsShared is bhosts -s: the shared numeric resources, their values
// and reservations, per instance.
// batchHosts asks mbatchd for its hosts (bhosts, bslots); false once an
// error was printed.
func batchHosts(ctx context.Context, env *Env, req *api.HostsRequest) (*api.HostsReply, bool) {
	var reply api.HostsReply
	if !batchCall(ctx, env, api.MBatchdHosts, req, &reply) {
		return nil, false
	}
	return &reply, true
}

func bhostsShared(ctx context.Context, env *Env, names []string) int {
	var reply api.SharedResourcesReply
	if !batchCall(ctx, env, api.MBatchdSharedResources, &api.SharedResourcesRequest{Names: names}, &reply) {
		return ExitUsage
	}
	for _, n := range reply.NotFound {
		env.Errorf("%s: Bad resource name specified", n)
	}
	if len(reply.NotFound) > 0 {
		return ExitUsage
	}
	if len(reply.Resources) == 0 {
		env.Errorf("No resource is defined")
		return ExitUsage
	}
	if err := output.WriteSharedResources(env.Stdout, reply.Resources); err != nil {
		env.Errorf("bhosts: %v", err)
		return ExitUsage
	}
	return 0
}

// bhostsQuery asks mbatchd for the hosts named (all without names) that
// satisfy -R; hosts it does not know are reported, and rc is then
// ExitUsage. ok is false when mbatchd could not be asked.
func bhostsQuery(ctx context.Context, env *Env, res *lsfopt.Result) (reply *api.HostsReply, rc int, ok bool) {
	req := &api.HostsRequest{Hosts: res.Operands}
	req.ResReq, _ = res.Last("R")
	if reply, ok = batchHosts(ctx, env, req); !ok {
		return nil, 0, false
	}
	for _, h := range reply.NotFound {
		env.Errorf("%s: Bad host name, host group name or cluster name", h)
		rc = ExitUsage
	}
	return reply, rc, true
}
