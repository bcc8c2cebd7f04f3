package cli

import (
	"context"
	"fmt"

	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
	"github.com/basalt-lsf/basalt/internal/version"
)

var lsidSpec = lsfopt.New("h|V")

func init() {
	Register(&Command{Name: "lsid", Summary: "display the cluster name and the master host", Run: runLsid})
}

// runLsid prints the version header, a blank line, "My cluster name is X"
// and "My master name is Y", as LSF's lsid. Like LSF's, it ignores
// operands (an LSF exporter runs `lsid ""`).
func runLsid(ctx context.Context, env *Env, args []string) int {
	res, err := lsidSpec.Parse(args)
	if err != nil || res.Has("h") {
		if err != nil {
			fmt.Fprintf(env.Stderr, "lsid: %v\n", err)
		}
		fmt.Fprintln(env.Stderr, "Usage: lsid [-h] [-V]")
		if res != nil && res.Has("h") && err == nil {
			return 0
		}
		return ExitUsage
	}
	if res.Has("V") {
		return PrintVersion(env)
	}
	fmt.Fprintf(env.Stdout, "%s\n\n", version.Header())
	c, b, ok := lsConnect(ctx, env, "ls_getclustername()")
	if !ok {
		return ExitUsage
	}
	defer c.Close()
	master, _, err := c.Master(ctx)
	if err != nil {
		limError(env, "ls_getmastername()", err)
		return ExitUsage
	}
	fmt.Fprintf(env.Stdout, "My cluster name is %s\nMy master name is %s\n", b.ClusterName(), master)
	return 0
}
