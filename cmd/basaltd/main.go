// Command basaltd is Basalt's daemon binary: lim, sbatchd, mbatchd and the
// job shepherd. Invoked through a link named after a daemon it runs that
// daemon; invoked as basaltd it takes the daemon name as its first argument
// (basaltd links DIR makes the daemons' links). It is free to link what the
// daemons need; the commands are the other binary, basalt.
// BASALT_CPUPROFILE: see cli.ProcessMain.
package main

import (
	"os"

	"github.com/basalt-lsf/basalt/internal/cli"
	_ "github.com/basalt-lsf/basalt/internal/daemon"
)

func main() {
	cli.DaemonBinary = true
	os.Exit(cli.ProcessMain())
}
