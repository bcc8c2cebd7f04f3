package cli

import "context"

func init() {
	Register(&Command{Name: "bmgroup", Summary: "display host groups", Run: func(ctx context.Context, env *Env, args []string) int {
		return runGroups(ctx, env, args, true)
	}})
}
