package cli

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// SubcommandFunc runs one subcommand of an admin command (lsadmin ckconfig,
// badmin qclose...). args excludes the subcommand name.
type SubcommandFunc func(ctx context.Context, env *Env, args []string) int

// Subcommand is one entry in an admin command's table.
type Subcommand struct {
	Name    string
	Usage   string // e.g. "ckconfig [-v]"
	Summary string
	Run     SubcommandFunc
}

// SubcommandTable is the subcommand set of one admin command. Each area of
// the code registers its own subcommands from its own file, in an init.
type SubcommandTable struct {
	cmd  string
	mu   sync.RWMutex
	subs map[string]*Subcommand
	// unsupported are IBM LSF 10.1's subcommands Basalt does not have:
	// refused by name, not "Invalid command".
	unsupported map[string]bool
}

// NewSubcommandTable returns an empty table for command cmd; unsupported
// lists the command's LSF subcommands Basalt does not implement.
func NewSubcommandTable(cmd string, unsupported ...string) *SubcommandTable {
	t := &SubcommandTable{cmd: cmd, subs: map[string]*Subcommand{}, unsupported: map[string]bool{}}
	for _, u := range unsupported {
		t.unsupported[u] = true
	}
	return t
}

// Add registers subcommands; a duplicate name panics.
func (t *SubcommandTable) Add(subs ...*Subcommand) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, s := range subs {
		if _, dup := t.subs[s.Name]; dup {
			panic("cli: duplicate subcommand " + t.cmd + " " + s.Name)
		}
		t.subs[s.Name] = s
	}
}

// Run dispatches args[0]. With no arguments LSF's admin commands start an
// interactive prompt; Basalt prints the usage instead.
func (t *SubcommandTable) Run(ctx context.Context, env *Env, args []string) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" {
		t.usage(env)
		if len(args) == 0 {
			return ExitUsage
		}
		return 0
	}
	t.mu.RLock()
	s, ok := t.subs[args[0]]
	t.mu.RUnlock()
	if !ok {
		if t.unsupported[args[0]] {
			fmt.Fprintf(env.Stderr, "%s %s: Subcommand not supported\n", t.cmd, args[0])
			return ExitUsage
		}
		// LSF: "Invalid command <xxx>. Try help."
		fmt.Fprintf(env.Stderr, "Invalid command <%s>. Try help.\n", args[0])
		return ExitUsage
	}
	return s.Run(ctx, env, args[1:])
}

func (t *SubcommandTable) usage(env *Env) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	names := make([]string, 0, len(t.subs))
	for n := range t.subs {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintf(env.Stderr, "Usage: %s subcommand [options]\n", t.cmd)
	for _, n := range names {
		s := t.subs[n]
		fmt.Fprintf(env.Stderr, "    %-40s %s\n", strings.TrimSpace(s.Usage), s.Summary)
	}
}

var (
	// LsadminSubs holds lsadmin's subcommands (config checks, LIM control).
	LsadminSubs = NewSubcommandTable("lsadmin", unsupportedLsadminSubcommands...)
	// BadminSubs holds badmin's subcommands (config checks, mbatchd control).
	BadminSubs = NewSubcommandTable("badmin", unsupportedBadminSubcommands...)
)

func init() {
	Register(
		&Command{Name: "lsadmin", Summary: "administer LIM and RES", Run: LsadminSubs.Run},
		&Command{Name: "badmin", Summary: "administer the batch system", Run: BadminSubs.Run},
	)
}
