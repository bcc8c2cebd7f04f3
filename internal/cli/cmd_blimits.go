package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
	"github.com/basalt-lsf/basalt/internal/cli/output"
)

var blimitsSpec = lsfopt.New("a|c|w|h|V|n:|u:|q:|m:|P:|" + unsupportedBlimitsOptions)

// unsupportedBlimitsOptions are IBM LSF 10.1's other blimits options.
const unsupportedBlimitsOptions = "fwd|gl|A:|C:|Lp:|o:"

func init() {
	Register(&Command{Name: "blimits", Summary: "display resource allocation limits and their usage", Run: runBlimits})
}

func blimitsUsage(env *Env) {
	fmt.Fprintln(env.Stderr, "Usage: blimits [-h] [-V] [-a] [-c] [-w] [-n limit_name ...] [-P project_name ...] [-q queue_name ...] [-u user_name | -u user_group ...] [-m host_name | -m host_group]")
}

// runBlimits prints the lsb.resources limits running jobs count against
// (all of them with -a) and their usage, as mbatchd's scheduler counted
// it in its last pass; -c prints their configuration, as bresources. -n,
// -u, -q, -m and -P (each a name or a quoted list, repeatable) keep the
// rows of the limits so named, or whose consumers include the name (or
// are "all"). -w is accepted: Basalt's columns are as wide as their
// widest cell, so nothing is ever cut. IBM 10.1's -o, -Lp, -A, -fwd, -C
// and -gl are refused by name.
func runBlimits(ctx context.Context, env *Env, args []string) int {
	res, err := blimitsSpec.Parse(args)
	if err != nil {
		fmt.Fprintf(env.Stderr, "blimits: %v\n", err)
		blimitsUsage(env)
		return ExitUsage
	}
	if res.Has("h") {
		blimitsUsage(env)
		return 0
	}
	if res.Has("V") {
		return PrintVersion(env)
	}
	if refuseUnsupported(env, "blimits", res, unsupportedBlimitsOptions) {
		return ExitUsage
	}
	if res.Has("c") {
		return printLimitConfig(ctx, env)
	}
	var reply api.LimitsReply
	if !batchCall(ctx, env, api.MBatchdLimits, &api.LimitsRequest{All: res.Has("a")}, &reply) {
		return ExitUsage
	}
	rows := filterLimits(reply.Limits, res)
	if len(rows) == 0 {
		env.Errorf("No resource usage found.")
		return ExitUsage
	}
	if err := output.WriteLimits(env.Stdout, rows); err != nil {
		env.Errorf("blimits: %v", err)
		return ExitUsage
	}
	return 0
}

// filterLimits keeps the rows every given filter matches.
func filterLimits(ls []*api.LimitUsage, res *lsfopt.Result) []*api.LimitUsage {
	names := func(opt string) []string {
		var out []string
		for _, v := range res.All(opt) {
			out = append(out, strings.Fields(v)...)
		}
		return out
	}
	filters := []struct {
		want []string
		of   func(*api.LimitUsage) string
	}{
		{names("u"), func(l *api.LimitUsage) string { return l.Users }},
		{names("q"), func(l *api.LimitUsage) string { return l.Queues }},
		{names("m"), func(l *api.LimitUsage) string { return l.Hosts }},
		{names("P"), func(l *api.LimitUsage) string { return l.Projects }},
	}
	limitNames := names("n")
	var out []*api.LimitUsage
rows:
	for _, l := range ls {
		if len(limitNames) > 0 && !slices.Contains(limitNames, l.Name) {
			continue
		}
		for _, f := range filters {
			if len(f.want) == 0 {
				continue
			}
			cons := strings.Fields(f.of(l))
			ok := false
			for _, w := range f.want {
				if slices.Contains(cons, w) || slices.Contains(cons, "all") && !slices.Contains(cons, "~"+w) {
					ok = true
				}
			}
			if !ok {
				continue rows
			}
		}
		out = append(out, l)
	}
	return out
}
