package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// ExitUsage is the status LSF commands return for bad usage and most
// failures: exit(-1).
const ExitUsage = 255

var (
	regMu    sync.RWMutex
	registry = map[string]*Command{}
)

// Register adds commands to the registry. It panics on a duplicate name: two
// commands claiming one name is a programming error.
func Register(cmds ...*Command) {
	regMu.Lock()
	defer regMu.Unlock()
	for _, c := range cmds {
		if _, dup := registry[c.Name]; dup {
			panic("cli: duplicate command " + c.Name)
		}
		registry[c.Name] = c
	}
}

// Lookup returns the command registered under name.
func Lookup(name string) (*Command, bool) {
	regMu.RLock()
	defer regMu.RUnlock()
	c, ok := registry[name]
	return c, ok
}

// Commands returns all commands sorted by name.
func Commands() []*Command {
	regMu.RLock()
	defer regMu.RUnlock()
	out := make([]*Command, 0, len(registry))
	for _, c := range registry {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Main dispatches argv: by the base name of argv[0] (bsub, bjobs... as links
// to the binary) or, when invoked as basalt, by the first argument.
func Main(ctx context.Context, argv []string, env func(name string) *Env) int {
	name := filepath.Base(argv[0])
	args := argv[1:]
	if c, ok := Lookup(name); ok && name != "basalt" && name != "basaltd" {
		return c.Run(ctx, env(name), args)
	}
	self := "basalt"
	if DaemonBinary {
		self = "basaltd"
	}
	e := env(self)
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(e)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c, ok := Lookup(args[0])
	if !ok {
		if isDaemonName(args[0]) && !DaemonBinary {
			e.Errorf("basalt: %s is a daemon: run it from basaltd (basaltd %s, or its link)", args[0], args[0])
			return 2
		}
		e.Errorf("%s: unknown command %q; run '%s help' for the list", self, args[0], self)
		return 2
	}
	e.Name = c.Name
	return c.Run(ctx, e, args[1:])
}

func usage(e *Env) {
	if DaemonBinary {
		fmt.Fprintln(e.Stdout, "Usage: basaltd <daemon> [arguments]   (or run a daemon through its link: lim, sbatchd, mbatchd)")
	} else {
		fmt.Fprintln(e.Stdout, "Usage: basalt <command> [arguments]   (or run a command through its link: bsub, bjobs, ...)")
	}
	groups := []struct {
		title  string
		daemon bool
		sub    bool
	}{{"basalt commands:", false, true}, {"LSF commands:", false, false}, {"Daemons:", true, false}}
	for _, group := range groups {
		if group.daemon != DaemonBinary {
			continue
		}
		fmt.Fprintln(e.Stdout)
		fmt.Fprintln(e.Stdout, group.title)
		for _, c := range Commands() {
			if c.Hidden || c.Daemon != group.daemon || c.Sub != group.sub {
				continue
			}
			fmt.Fprintf(e.Stdout, "  %-12s %s\n", c.Name, c.Summary)
		}
	}
	if !DaemonBinary {
		fmt.Fprintln(e.Stdout)
		fmt.Fprintln(e.Stdout, "The daemons (lim, sbatchd, mbatchd) are the basaltd binary beside this one.")
	}
}

// isDaemonName reports whether name is one of the daemons, which only the
// daemon binary has (internal/daemon registers them).
func isDaemonName(name string) bool {
	switch name {
	case "lim", "sbatchd", "mbatchd", "job-shepherd":
		return true
	}
	return false
}

// LinkNames returns the names that get a link to the binary in bin/: the
// daemons only in the daemon binary (which also holds the commands'
// registrations), everything the binary has otherwise (the command binary
// has no daemon; a test binary has both).
func LinkNames() []string {
	var names []string
	for _, c := range Commands() {
		if !c.Hidden && !c.Sub && (c.Daemon || !DaemonBinary) && c.Name != "basalt" && !strings.Contains(c.Name, " ") {
			names = append(names, c.Name)
		}
	}
	return names
}
