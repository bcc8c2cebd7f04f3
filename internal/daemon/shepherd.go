package daemon

import (
	"context"

	"github.com/basalt-lsf/basalt/internal/cli"
	"github.com/basalt-lsf/basalt/internal/sbd/shepherd"
)

func init() {
	cli.Register(&cli.Command{Name: "job-shepherd", Hidden: true,
		Summary: "run batch jobs for sbatchd (internal)", Run: runJobShepherd})
}

// runJobShepherd is the host's shepherd process sbatchd starts and keeps
// (job-shepherd -host STATEDIR), which runs every job's shepherd; the
// shepherd of one job alone (job-shepherd SPOOLDIR); and the helper that
// becomes a job process when the shepherd cannot start it directly
// (job-shepherd -exec).
func runJobShepherd(_ context.Context, env *cli.Env, args []string) int {
	if len(args) > 0 && args[0] == "-host" {
		keepInherited(env, 4) // fd 3 is the socket sbatchd hands it
		tuneDaemon(env)
	}
	return shepherd.MainWith(args, jobFileRemote)
}
