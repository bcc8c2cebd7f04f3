// Command basalt is the single Basalt binary. Invoked through a link named
// after an LSF command (bsub, bjobs, lsload, mbatchd...) it runs that command;
// invoked as basalt it takes the command name as its first argument.
package main

import (
	"context"
	"os"

	"github.com/basalt-lsf/basalt/internal/cli"
)

func main() {
	os.Exit(cli.Main(context.Background(), os.Args, cli.OSEnv))
}
