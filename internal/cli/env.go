package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/basalt-lsf/basalt/internal/clock"
)

// Env is everything a command may touch of the outside world.
type Env struct {
	// Name is the name the command was invoked as (bsub, bjobs...).
	Name   string
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Getenv and Environ read the command's environment.
	Getenv  func(string) string
	Environ func() []string
	// Getwd returns the working directory.
	Getwd func() (string, error)
	Clock clock.Clock
	// Process says that the Env is the process's own (OSEnv): a daemon
	// may then execute the process again (see daemon.tuneDaemon).
	Process bool
}

// OSEnv returns an Env bound to the process's real streams and environment.
func OSEnv(name string) *Env {
	return &Env{
		Name:    name,
		Stdin:   os.Stdin,
		Stdout:  os.Stdout,
		Stderr:  os.Stderr,
		Getenv:  os.Getenv,
		Environ: os.Environ,
		Getwd:   os.Getwd,
		Clock:   clock.Real(),
		Process: true,
	}
}

// LookupEnv reports whether variable k is set (to anything, even empty) in
// the command's environment.
func (e *Env) LookupEnv(k string) (string, bool) {
	prefix := k + "="
	for _, kv := range e.Environ() {
		if strings.HasPrefix(kv, prefix) {
			return kv[len(prefix):], true
		}
	}
	return "", false
}

// Errorf prints a message to stderr followed by a newline.
func (e *Env) Errorf(format string, args ...any) {
	fmt.Fprintf(e.Stderr, format, args...)
	if !strings.HasSuffix(format, "\n") {
		fmt.Fprintln(e.Stderr)
	}
}

// Printf prints to stdout.
func (e *Env) Printf(format string, args ...any) { fmt.Fprintf(e.Stdout, format, args...) }

// Command is one registered command.
type Command struct {
	Name    string
	Summary string
	// Run executes the command and returns its exit status.
	Run func(ctx context.Context, env *Env, args []string) int
	// Daemon marks long-running servers (lim, mbatchd...).
	Daemon bool
	// Hidden commands are internal (job shepherd) and not listed or linked.
	Hidden bool
	// Sub commands are basalt's own (basalt cluster, basalt config...): they
	// are listed but not linked, so that generic names like "config" never
	// shadow other programs on a user's PATH.
	Sub bool
}
