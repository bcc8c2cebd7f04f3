package daemon

import (
	"os"

	"github.com/basalt-lsf/basalt/internal/cli"
	"github.com/basalt-lsf/basalt/internal/timerslack"
)

// tuneDaemon gives a daemon that works for every job its timer slack: it
// executes the process again (package timerslack), so only when the Env is
// the process's own, and before the daemon opens anything. A failure is
// reported and the daemon goes on as it was.
func tuneDaemon(env *cli.Env) {
	if !env.Process {
		return
	}
	if err := timerslack.Raise(os.Args, env.Environ()); err != nil {
		env.Errorf("%s: %v", env.Name, err)
	}
}
