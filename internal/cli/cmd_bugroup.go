package cli

import (
	"context"
	"fmt"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
	"github.com/basalt-lsf/basalt/internal/cli/output"
)

var (
	groupSpec   = lsfopt.New("l|r|w|h|V")
	bmgroupSpec = lsfopt.New("l|r|w|h|V|" + unsupportedBmgroupOptions)
)

func init() {
	Register(&Command{Name: "bugroup", Summary: "display user groups", Run: func(ctx context.Context, env *Env, args []string) int {
		return runGroups(ctx, env, args, false)
	}})
}

func groupUsage(env *Env, hostGroups bool) {
	if hostGroups {
		fmt.Fprintln(env.Stderr, "Usage: bmgroup [-h] [-V] [-l] [-r] [-w] [-cu] [host_group ... | compute_unit ...]")
		return
	}
	fmt.Fprintln(env.Stderr, "Usage: bugroup [-h] [-V] [-l] [-r] [-w] [user_group ...]")
}

// runGroups is bugroup, and bmgroup with hostGroups.
func runGroups(ctx context.Context, env *Env, args []string, hostGroups bool) int {
	cmd := "bugroup"
	if hostGroups {
		cmd = "bmgroup"
	}
	spec := groupSpec
	if hostGroups {
		spec = bmgroupSpec
	}
	res, err := spec.Parse(args)
	if err != nil {
		fmt.Fprintf(env.Stderr, "%s: %v\n", cmd, err)
		groupUsage(env, hostGroups)
		return ExitUsage
	}
	if res.Has("h") {
		groupUsage(env, hostGroups)
		return 0
	}
	if res.Has("V") {
		return PrintVersion(env)
	}
	if refuseUnsupported(env, cmd, res, unsupportedBmgroupOptions) {
		return ExitUsage
	}
	var reply api.GroupsReply
	req := &api.GroupsRequest{HostGroups: hostGroups, Names: res.Operands, Recursive: res.Has("r")}
	if !batchCall(ctx, env, api.MBatchdGroups, req, &reply) {
		return ExitUsage
	}
	rc := 0
	for _, g := range reply.NotFound {
		if hostGroups {
			env.Errorf("%s: No such host group", g)
		} else {
			env.Errorf("%s: No such user group", g)
		}
		rc = ExitUsage
	}
	if len(reply.Groups) == 0 && len(reply.NotFound) == 0 {
		if hostGroups {
			env.Errorf("No host group defined in the system")
		} else {
			env.Errorf("No user group defined in the system")
		}
		return ExitUsage
	}
	o := outputOptions(env)
	o.Wide = res.Has("w")
	if res.Has("l") {
		err = output.WriteGroupsLong(env.Stdout, reply.Groups, hostGroups, o)
	} else {
		err = output.WriteGroups(env.Stdout, reply.Groups, hostGroups, o)
	}
	if err != nil {
		env.Errorf("%s: %v", cmd, err)
		return ExitUsage
	}
	return rc
}
