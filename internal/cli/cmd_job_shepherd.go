package cli

import (
	"context"

	"github.com/basalt-lsf/basalt/internal/sbd/shepherd"
)

func init() {
	Register(&Command{Name: "job-shepherd", Hidden: true,
		Summary: "run one batch job for sbatchd (internal)", Run: runJobShepherd})
}

// runJobShepherd is the per-job process sbatchd starts (job-shepherd
// SPOOLDIR), and the helper that becomes a job process (job-shepherd -exec).
func runJobShepherd(_ context.Context, _ *Env, args []string) int {
	return shepherd.Main(args)
}
