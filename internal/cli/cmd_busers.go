package cli

import (
	"context"
	"fmt"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
	"github.com/basalt-lsf/basalt/internal/cli/output"
)

var busersSpec = lsfopt.New("w|h|V|noheader|json|o:|" + unsupportedBusersOptions)

func init() {
	Register(&Command{Name: "busers", Summary: "display information about users and user groups", Run: runBusers})
}

func busersUsage(env *Env) {
	fmt.Fprintln(env.Stderr, "Usage: busers [-h] [-V] [-w | -o \"field ... [delimiter='c']\" [-json]] [-noheader] [user_name ... | user_group ... | all]")
}

func runBusers(ctx context.Context, env *Env, args []string) int {
	res, err := busersSpec.Parse(args)
	if err != nil {
		fmt.Fprintf(env.Stderr, "busers: %v\n", err)
		busersUsage(env)
		return ExitUsage
	}
	if res.Has("h") {
		busersUsage(env)
		return 0
	}
	if res.Has("V") {
		return PrintVersion(env)
	}
	if refuseUnsupported(env, "busers", res, unsupportedBusersOptions) {
		return ExitUsage
	}
	_, hasFormat := res.Last("o")
	if hasFormat && res.Has("w") {
		busersUsage(env)
		return ExitUsage
	}
	f, ok := listFormat(env, "busers", res, "LSB_BUSERS_FORMAT", res.Has("w"), output.UserFields, busersUsage)
	if !ok {
		return ExitUsage
	}
	var reply api.UsersReply
	if !batchCall(ctx, env, api.MBatchdUsers, &api.UsersRequest{Users: res.Operands}, &reply) {
		return ExitUsage
	}
	rc := 0
	for _, u := range reply.NotFound {
		env.Errorf("%s: No such user or user group", u)
		rc = ExitUsage
	}
	o := outputOptions(env)
	o.Wide, o.NoHeader = res.Has("w"), res.Has("noheader")
	switch {
	case res.Has("json"):
		err = output.WriteUsersJSON(env.Stdout, reply.Users, f)
	case f != nil:
		err = output.WriteUsersCustom(env.Stdout, reply.Users, f, o)
	default:
		err = output.WriteUsers(env.Stdout, reply.Users, o)
	}
	if err != nil {
		env.Errorf("busers: %v", err)
		return ExitUsage
	}
	return rc
}
