package cli

import (
	"context"
	"fmt"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
	"github.com/basalt-lsf/basalt/internal/cli/output"
)

var bparamsSpec = lsfopt.New("l|a|h|V")

func init() {
	Register(&Command{Name: "bparams", Summary: "display batch system parameters", Run: runBparams})
}

func bparamsUsage(env *Env) {
	fmt.Fprintln(env.Stderr, "Usage: bparams [-h] [-V] [-a | -l]")
}

// runBparams prints the summary, or with -a / -l every parameter as
// "KEY = VALUE" (Toil runs "bparams -a").
func runBparams(ctx context.Context, env *Env, args []string) int {
	res, err := bparamsSpec.Parse(args)
	if err != nil || len(res.Operands) > 0 {
		if err != nil {
			fmt.Fprintf(env.Stderr, "bparams: %v\n", err)
		}
		bparamsUsage(env)
		return ExitUsage
	}
	if res.Has("h") {
		bparamsUsage(env)
		return 0
	}
	if res.Has("V") {
		return PrintVersion(env)
	}
	var reply api.ParamsReply
	if !batchCall(ctx, env, api.MBatchdParams, &api.ParamsRequest{}, &reply) {
		return ExitUsage
	}
	if res.Has("a") || res.Has("l") {
		err = output.WriteParamsAll(env.Stdout, reply.Params, outputOptions(env))
	} else {
		err = output.WriteParams(env.Stdout, reply.Params)
	}
	if err != nil {
		env.Errorf("bparams: %v", err)
		return ExitUsage
	}
	return 0
}
