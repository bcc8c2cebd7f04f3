package cli

import (
	"context"
	"fmt"

	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
	"github.com/basalt-lsf/basalt/internal/cli/output"
	"github.com/basalt-lsf/basalt/internal/lim/lsfmt"
	"github.com/basalt-lsf/basalt/internal/resreq"
)

var lshostsSpec = lsfopt.New("h|V|l|w|s|json|R:|o:|" + unsupportedLshostsOptions)

func init() {
	Register(&Command{Name: "lshosts", Summary: "display hosts and their static resource information", Run: runLshosts})
}

func lshostsUsage(env *Env) {
	fmt.Fprintln(env.Stderr, `Usage: lshosts [-h] [-V] [-w | -l | -o "field[:[-][width]] ... [delimiter='c']" [-json]] [-R res_req] [host_name ...]`)
	fmt.Fprintln(env.Stderr, "or\n lshosts [-h] [-V] -s [static_resouce_name ...]")
}

func runLshosts(ctx context.Context, env *Env, args []string) int {
	res, err := lshostsSpec.Parse(args)
	if err != nil {
		fmt.Fprintf(env.Stderr, "lshosts: %v\n", err)
		lshostsUsage(env)
		return ExitUsage
	}
	if res.Has("h") {
		lshostsUsage(env)
		return 0
	}
	if res.Has("V") {
		return PrintVersion(env)
	}
	if refuseUnsupported(env, "lshosts", res, unsupportedLshostsOptions) {
		return ExitUsage
	}
	_, hasFormat := res.Last("o")
	if res.Has("s") && (res.Has("l") || res.Has("w") || res.Has("R") || hasFormat || res.Has("json")) || res.Has("l") && res.Has("w") ||
		hasFormat && (res.Has("l") || res.Has("w")) {
		lshostsUsage(env)
		return ExitUsage
	}
	f, ok := listFormat(env, "lshosts", res, "LSF_LSHOSTS_FORMAT", res.Has("l") || res.Has("w") || res.Has("s"), output.LshostsFields, lshostsUsage)
	if !ok {
		return ExitUsage
	}
	c, b, ok := lsConnect(ctx, env, "lshosts")
	if !ok {
		return ExitUsage
	}
	defer c.Close()
	cl, err := c.Cluster(ctx)
	if err != nil {
		limError(env, "ls_gethostinfo()", err)
		return ExitUsage
	}
	if res.Has("s") {
		lsfmt.WriteShared(env.Stdout, cl.Shared, false, res.Operands)
		return 0
	}
	hosts, ok := lsHosts(env, "lshosts", cl, res.Operands)
	if !ok {
		return ExitUsage
	}
	if req, _ := res.Last("R"); req != "" {
		if hosts, ok = lsSelect(env, "lshosts", b, cl, hosts, req, resreq.CtxLshosts, false); !ok {
			return ExitUsage
		}
		if len(hosts) == 0 {
			fmt.Fprintln(env.Stderr, "ls_gethostinfo(): No host is found to satisfy the resource requirements")
			return ExitUsage
		}
	}
	switch {
	case res.Has("json"):
		err = output.WriteLshostsJSON(env.Stdout, hosts, f)
	case f != nil:
		err = output.WriteLshostsCustom(env.Stdout, hosts, f)
	case res.Has("l"):
		lsfmt.WriteHostsLong(env.Stdout, hosts, allIndices(cl), cl.Shared)
	default:
		lsfmt.WriteHosts(env.Stdout, hosts, lsfmt.HostsOptions{Wide: res.Has("w")})
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "lshosts: %v\n", err)
		return ExitUsage
	}
	return 0
}
