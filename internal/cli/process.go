package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
)

// DaemonBinary is set by the daemon binary (cmd/basaltd) before it runs:
// its links are the daemons', and its usage names it.
var DaemonBinary bool

// ProcessMain runs the process's command from os.Args and returns its exit
// status: the whole of both binaries' main functions.
//
// BASALT_CPUPROFILE=prefix writes a CPU profile of the run to
// prefix.<command>.<pid> (go tool pprof reads it): for commands and daemons
// alike, daemons until they exit cleanly.
func ProcessMain() int {
	if prefix := os.Getenv("BASALT_CPUPROFILE"); prefix != "" {
		if f, err := os.Create(fmt.Sprintf("%s.%s.%d", prefix, filepath.Base(os.Args[0]), os.Getpid())); err == nil {
			if pprof.StartCPUProfile(f) == nil {
				defer f.Close()
				defer pprof.StopCPUProfile()
			}
		}
	}
	return Main(context.Background(), os.Args, OSEnv)
}
