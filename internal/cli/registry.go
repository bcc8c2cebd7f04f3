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
	if c, ok := Lookup(name); ok && name != "basalt" {
		return c.Run(ctx, env(name), args)
	}
	e := env("basalt")
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(e)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c, ok := Lookup(args[0])
	if !ok {
		e.Errorf("basalt: unknown command %q; run 'basalt help' for the list", args[0])
		return 2
	}
	e.Name = c.Name
	return c.Run(ctx, e, args[1:])
}

func usage(e *Env) {
	fmt.Fprintln(e.Stdout, "Usage: basalt <command> [arguments]   (or run a command through its link: bsub, bjobs, ...)")
	fmt.Fprintln(e.Stdout)
	for _, group := range []struct {
		title  string
		daemon bool
		sub    bool
	}{{"basalt commands:", false, true}, {"LSF commands:", false, false}, {"Daemons:", true, false}} {
		fmt.Fprintln(e.Stdout, group.title)
		for _, c := range Commands() {
			if c.Hidden || c.Daemon != group.daemon || c.Sub != group.sub {
				continue
			}
			fmt.Fprintf(e.Stdout, "  %-12s %s\n", c.Name, c.Summary)
		}
	}
}

// LinkNames returns the names that get a link to the binary in bin/.
func LinkNames() []string {
	var names []string
	for _, c := range Commands() {
		if !c.Hidden && !c.Sub && c.Name != "basalt" && !strings.Contains(c.Name, " ") {
			names = append(names, c.Name)
		}
	}
	return names
}
