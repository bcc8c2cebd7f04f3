package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
	"github.com/basalt-lsf/basalt/internal/cli/output"
	"github.com/basalt-lsf/basalt/internal/lim/lsfmt"
	"github.com/basalt-lsf/basalt/internal/resreq"
)

var lsloadSpec = lsfopt.New("h|V|l|w|N|E|s|json|R:|I:|n:|o:|" + unsupportedLsloadOptions)

func init() {
	Register(&Command{Name: "lsload", Summary: "display load information for hosts", Run: runLsload})
}

func lsloadUsage(env *Env) {
	fmt.Fprintln(env.Stderr, `Usage: lsload [-h] [-V] [-N|-E] [-l | -w | -o "field[:[-][width]] ... [delimiter='c']" [-json]] [-R res_req]
              [-I index_list] [-n num_hosts] [host_name ... | cluster_name ...]`)
	fmt.Fprintln(env.Stderr, "or\nlsload [-h] [-V] -s [ shared_resource_name ... ]")
}

// lsloadExit is LSF's exit(-10) when the load cannot be obtained.
const lsloadExit = 246

func runLsload(ctx context.Context, env *Env, args []string) int {
	res, err := lsloadSpec.Parse(args)
	if err != nil {
		fmt.Fprintf(env.Stderr, "lsload: %v\n", err)
		lsloadUsage(env)
		return ExitUsage
	}
	if res.Has("h") {
		lsloadUsage(env)
		return 0
	}
	if res.Has("V") {
		return PrintVersion(env)
	}
	if refuseUnsupported(env, "lsload", res, unsupportedLsloadOptions) {
		return ExitUsage
	}
	_, hasFormat := res.Last("o")
	other := res.Has("l") || res.Has("w") || res.Has("N") || res.Has("E") || res.Has("R") || res.Has("I") || res.Has("n") ||
		hasFormat || res.Has("json")
	if res.Has("s") && other || res.Has("N") && res.Has("E") || res.Has("l") && res.Has("w") ||
		hasFormat && (res.Has("l") || res.Has("w") || res.Has("I")) {
		lsloadUsage(env)
		return ExitUsage
	}
	// The fields include the cluster's external indices: parsed once
	// LIM has answered.
	format, hasFormat, ok := formatSpec(env, "lsload", res, "LSF_LSLOAD_FORMAT",
		res.Has("l") || res.Has("w") || res.Has("I") || res.Has("s"), lsloadUsage)
	if !ok {
		return ExitUsage
	}
	num := 0
	if v, ok := res.Last("n"); ok {
		if num, err = strconv.Atoi(v); err != nil || num <= 0 {
			lsloadUsage(env)
			return ExitUsage
		}
	}
	c, b, ok := lsConnect(ctx, env, "lsload")
	if !ok {
		return lsloadExit
	}
	defer c.Close()
	cl, err := c.Cluster(ctx)
	if err != nil {
		limError(env, "lsload", err)
		return lsloadExit
	}
	if res.Has("s") {
		lsfmt.WriteShared(env.Stdout, cl.Shared, true, res.Operands)
		return 0
	}
	hosts, ok := lsHosts(env, "lsload", cl, res.Operands)
	if !ok {
		return ExitUsage
	}
	req, _ := res.Last("R")
	hosts, ok = lsSelect(env, "lsload", b, cl, hosts, req, resreq.CtxLsload, len(res.Operands) == 0)
	if !ok {
		return lsloadExit
	}
	if len(hosts) == 0 {
		fmt.Fprintln(env.Stderr, "lsload: Not enough host(s) currently eligible")
		return lsloadExit
	}
	if num > 0 && num < len(hosts) {
		hosts = hosts[:num]
	}
	mode := lsfmt.Raw
	switch {
	case res.Has("E"):
		mode = lsfmt.Effective
	case res.Has("N"):
		mode = lsfmt.Normalized
	}
	if hasFormat {
		f, ok := parseFormat(env, format, output.LsloadFields(externalIndices(cl)))
		if !ok {
			return ExitUsage
		}
		if res.Has("json") {
			err = output.WriteLsloadJSON(env.Stdout, hosts, f, mode)
		} else {
			err = output.WriteLsloadCustom(env.Stdout, hosts, f, mode)
		}
		if err != nil {
			env.Errorf("lsload: %v", err)
			return lsloadExit
		}
		return 0
	}
	indices := lsfmt.DefaultIndices
	switch {
	case res.Has("l"):
		indices = allIndices(cl)
	case res.Has("I"):
		v, _ := res.Last("I")
		indices = nil
		known := allIndices(cl)
		for _, n := range strings.Split(v, ":") {
			if n == "" {
				continue
			}
			if !lsContains(known, lsCanonicalIndex(n)) {
				fmt.Fprintf(env.Stderr, "lsload: Unknown load index name <%s>\n", n)
				return lsloadExit
			}
			indices = append(indices, n)
		}
	}
	o := lsfmt.LoadOptions{Wide: res.Has("w"), Long: res.Has("l"), Shared: cl.Shared, RunQueue: mode}
	lsfmt.WriteLoad(env.Stdout, hosts, indices, o)
	return 0
}

func lsCanonicalIndex(n string) string {
	switch n {
	case "swap":
		return "swp"
	case "login":
		return "ls"
	case "idle":
		return "it"
	case "cpu":
		return "r1m"
	}
	return n
}

func lsContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
