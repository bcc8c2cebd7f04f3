// Command basalt is the single Basalt binary. Invoked through a link named
// after an LSF command (bsub, bjobs, lsload, mbatchd...) it runs that command;
// invoked as basalt it takes the command name as its first argument.
//
// BASALT_CPUPROFILE=prefix writes a CPU profile of the run to
// prefix.<command>.<pid> (go tool pprof reads it): for commands and daemons
// alike, daemons until they exit cleanly.
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"

	"github.com/basalt-lsf/basalt/internal/cli"
)

func main() {
	if prefix := os.Getenv("BASALT_CPUPROFILE"); prefix != "" {
		if f, err := os.Create(fmt.Sprintf("%s.%s.%d", prefix, filepath.Base(os.Args[0]), os.Getpid())); err == nil {
			if pprof.StartCPUProfile(f) == nil {
				code := cli.Main(context.Background(), os.Args, cli.OSEnv)
				pprof.StopCPUProfile()
				f.Close()
				os.Exit(code)
			}
		}
	}
	os.Exit(cli.Main(context.Background(), os.Args, cli.OSEnv))
}
