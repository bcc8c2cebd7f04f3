package daemon

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/basalt-lsf/basalt/internal/cli"
)

// keepInherited keeps the descriptors a daemon inherited from whoever
// started it (from fd `from` up) out of every process it starts: jobs, the
// shepherds, elim, esub, eexec, pre- and post-execution. Go opens its own
// descriptors close-on-exec, but an inherited one is not, and os/exec
// passes every descriptor that is not to the child: a cluster started with
// fd 7 open on a root-only file let every job write into it. A daemon runs
// with what it opens itself; a process it starts gets its standard streams
// and what it is explicitly given.
func keepInherited(env *cli.Env, from int) {
	if !env.Process {
		return
	}
	if err := closeOnExecFrom(from); err != nil {
		env.Errorf("%s: %v", env.Name, err)
	}
}

// closeOnExecFrom marks every descriptor from `from` up close-on-exec:
// close_range(2) where the kernel has it (5.11), else each one listed in
// /proc/self/fd.
func closeOnExecFrom(from int) error {
	err := unix.CloseRange(uint(from), math.MaxUint32, unix.CLOSE_RANGE_CLOEXEC)
	if err == nil {
		return nil
	}
	ents, derr := os.ReadDir("/proc/self/fd")
	if derr != nil {
		return fmt.Errorf("marking inherited descriptors close-on-exec: %v; %v", err, derr)
	}
	for _, e := range ents {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd >= from {
			syscall.CloseOnExec(fd)
		}
	}
	return nil
}
