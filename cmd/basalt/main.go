// Command basalt is Basalt's command binary: every user and administrator
// command (bsub, bjobs, lsload, badmin...) and basalt's own (basalt cluster,
// basalt config...). Invoked through a link named after a command it runs
// that command; invoked as basalt it takes the command name as its first
// argument. The daemons are the other binary, basaltd, which this one never
// links (see internal/daemon): every command's start-up pays only for what
// commands use. BASALT_CPUPROFILE: see cli.ProcessMain.
package main

import (
	"os"

	"github.com/basalt-lsf/basalt/internal/cli"
)

func main() { os.Exit(cli.ProcessMain()) }
