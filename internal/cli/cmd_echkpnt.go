package cli

import (
	"context"
	"syscall"

	"github.com/basalt-lsf/basalt/internal/chkpnt"
)

// echkpnt and erestart are LSF_SERVERDIR's checkpoint and restart
// programs (internal/chkpnt): sbatchd runs echkpnt as the job user to
// checkpoint a job, and a restarted job runs erestart in its place. They
// are names of the command binary; a site's own echkpnt in LSF_SERVERDIR
// replaces them.

func init() {
	Register(&Command{Name: "echkpnt", Summary: "checkpoint a job with its method (LSF_SERVERDIR program)", Run: runEchkpnt},
		&Command{Name: "erestart", Summary: "restart a checkpointed job with its method (LSF_SERVERDIR program)", Run: runErestart})
}

func chkpntEnv(env *Env) chkpnt.Env {
	e := chkpnt.Env{Getenv: env.Getenv}
	if env.Environ != nil {
		e.Environ = env.Environ()
	}
	return e
}

func runEchkpnt(ctx context.Context, env *Env, args []string) int {
	a, err := chkpnt.ParseArgs(args)
	if err != nil {
		env.Errorf("echkpnt: %v", err)
		return ExitUsage
	}
	if err := chkpnt.Echkpnt(ctx, a, chkpntEnv(env)); err != nil {
		env.Errorf("echkpnt: %v", err)
		return 1
	}
	return 0
}

func runErestart(ctx context.Context, env *Env, args []string) int {
	dir, flags, err := chkpnt.ParseRestartArgs(args)
	if err != nil {
		env.Errorf("erestart: %v", err)
		return ExitUsage
	}
	ce := chkpntEnv(env)
	cmd, used, err := chkpnt.Erestart(ctx, dir, flags, ce)
	if err != nil {
		env.Errorf("erestart: %v", err)
		return 1
	}
	// The restart command replaces erestart, as the job's own process.
	vars := append(append([]string(nil), ce.Environ...), "LSB_RESTART=Y", "LSB_CHKPNT_DIR="+used)
	err = syscall.Exec("/bin/sh", []string{"/bin/sh", "-c", chkpnt.ExecForm(cmd)}, vars)
	env.Errorf("erestart: %s: %v", cmd, err)
	return 1
}
