package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
)

var bresourcesSpec = lsfopt.New("h|V|" + unsupportedBresourcesOptions)

// unsupportedBresourcesOptions are IBM LSF 10.1's other bresources options
// (resource reservation, guaranteed resource pools, power policies).
const unsupportedBresourcesOptions = "g|l|m|p|s|q:"

func init() {
	Register(&Command{Name: "bresources", Summary: "display the resource allocation limits configured in lsb.resources", Run: runBresources})
}

func bresourcesUsage(env *Env) {
	fmt.Fprintln(env.Stderr, "Usage: bresources [-h] [-V]")
}

// runBresources prints the Limit sections mbatchd has in force, as
// lsb.resources sections (what blimits -c prints too).
func runBresources(ctx context.Context, env *Env, args []string) int {
	res, err := bresourcesSpec.Parse(args)
	if err != nil {
		fmt.Fprintf(env.Stderr, "bresources: %v\n", err)
		bresourcesUsage(env)
		return ExitUsage
	}
	if res.Has("h") {
		bresourcesUsage(env)
		return 0
	}
	if res.Has("V") {
		return PrintVersion(env)
	}
	if refuseUnsupported(env, "bresources", res, unsupportedBresourcesOptions) {
		return ExitUsage
	}
	if len(res.Operands) > 0 {
		bresourcesUsage(env)
		return ExitUsage
	}
	return printLimitConfig(ctx, env)
}

// printLimitConfig is bresources and blimits -c.
func printLimitConfig(ctx context.Context, env *Env) int {
	var reply api.LimitsReply
	if !batchCall(ctx, env, api.MBatchdLimits, &api.LimitsRequest{Config: true}, &reply) {
		return ExitUsage
	}
	if len(reply.Sections) == 0 {
		env.Errorf("No resource limits configured.")
		return ExitUsage
	}
	_, _ = io.WriteString(env.Stdout, strings.Join(reply.Sections, "\n"))
	return 0
}
