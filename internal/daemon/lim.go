package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"os/signal"
	"syscall"

	"github.com/basalt-lsf/basalt/internal/cli"
	"github.com/basalt-lsf/basalt/internal/cli/lsfopt"
	"github.com/basalt-lsf/basalt/internal/lim"
)

var limSpec = lsfopt.New("h|V|d:|C")

func init() {
	cli.Register(&cli.Command{Name: "lim", Daemon: true, Summary: "Load Information Manager (one per host)", Run: runLim})
}

// runLim runs the LIM in the foreground until SIGTERM or SIGINT.
func runLim(ctx context.Context, env *cli.Env, args []string) int {
	res, err := limSpec.Parse(args)
	if err != nil || res.Has("h") || len(res.Operands) > 0 {
		if err != nil {
			fmt.Fprintf(env.Stderr, "lim: %v\n", err)
		}
		fmt.Fprintln(env.Stderr, "Usage: lim [-h] [-V] [-C] [-d env_dir]")
		if err == nil && res.Has("h") {
			return 0
		}
		return cli.ExitUsage
	}
	if res.Has("V") {
		return cli.PrintVersion(env)
	}
	keepInherited(env, 3)
	envDir := envDir(env, res)
	if res.Has("C") { // lim -C: check the configuration and exit
		if _, err := lim.CheckConfig(ctx, envDir, env.Getenv); err != nil {
			fmt.Fprintf(env.Stderr, "%v\n", err)
			return 1
		}
		fmt.Fprintln(env.Stdout, "No errors found.")
		return 0
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	defer limMetrics(ctx, envDir, env.Getenv, slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))()
	if err := lim.Run(ctx, lim.Options{EnvDir: envDir, Getenv: env.Getenv, Environ: env.Environ, Stderr: env.Stderr}); err != nil {
		fmt.Fprintf(env.Stderr, "%v\n", err)
		return 1
	}
	return 0
}
