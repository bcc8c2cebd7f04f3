package cli

import (
	"context"
	"fmt"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
	"github.com/basalt-lsf/basalt/internal/cli/output"
)

var bappSpec = lsfopt.New("l|w|h|V|noheader|" + unsupportedBappOptions)

func init() {
	Register(&Command{Name: "bapp", Summary: "display application profiles", Run: runBapp})
}

func bappUsage(env *Env) {
	fmt.Fprintln(env.Stderr, "Usage: bapp [-h] [-V] [-l | -w] [-noheader] [application_profile ...]")
}

func runBapp(ctx context.Context, env *Env, args []string) int {
	res, err := bappSpec.Parse(args)
	if err != nil {
		fmt.Fprintf(env.Stderr, "bapp: %v\n", err)
		bappUsage(env)
		return ExitUsage
	}
	if res.Has("h") {
		bappUsage(env)
		return 0
	}
	if res.Has("V") {
		return PrintVersion(env)
	}
	if refuseUnsupported(env, "bapp", res, unsupportedBappOptions) {
		return ExitUsage
	}
	if res.Has("l") && res.Has("w") {
		bappUsage(env)
		return ExitUsage
	}
	var reply api.ApplicationsReply
	if !batchCall(ctx, env, api.MBatchdApplications, &api.ApplicationsRequest{Names: res.Operands}, &reply) {
		return ExitUsage
	}
	rc := 0
	for _, n := range reply.NotFound {
		env.Errorf("%s: No such application profile", n)
		rc = ExitUsage
	}
	if len(reply.Applications) == 0 {
		if len(reply.NotFound) == 0 {
			env.Errorf("No application profiles found")
		}
		return ExitUsage
	}
	if res.Has("l") {
		err = output.WriteApplicationsLong(env.Stdout, reply.Applications)
	} else {
		o := outputOptions(env)
		o.Wide, o.NoHeader = res.Has("w"), res.Has("noheader")
		err = output.WriteApplications(env.Stdout, reply.Applications, o)
	}
	if err != nil {
		env.Errorf("bapp: %v", err)
		return ExitUsage
	}
	return rc
}
