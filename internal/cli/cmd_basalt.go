package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/basalt-lsf/basalt/internal/version"
)

func init() {
	Register(
		&Command{Name: "version", Sub: true, Summary: "print Basalt's version", Run: runVersion},
		&Command{Name: "links", Sub: true, Summary: "create the LSF command links to this binary in a directory", Run: runLinks},
	)
}

func runVersion(_ context.Context, env *Env, _ []string) int {
	fmt.Fprintln(env.Stdout, version.Header())
	return 0
}

// PrintVersion is a command's -V: the version header on stderr, as LSF's
// commands print it.
func PrintVersion(env *Env) int {
	fmt.Fprintln(env.Stderr, version.Header())
	return 0
}

// runLinks creates DIR/<name> -> basalt symbolic links for every command.
func runLinks(_ context.Context, env *Env, args []string) int {
	if len(args) != 1 {
		env.Errorf("usage: basalt links DIR")
		return 2
	}
	dir := args[0]
	self, err := os.Executable()
	if err != nil {
		env.Errorf("basalt links: %v", err)
		return 1
	}
	target := self
	if abs, err := filepath.Abs(dir); err == nil && filepath.Dir(self) == abs {
		target = filepath.Base(self) // relative link inside the binary's own directory
	}
	// Remove links to the binary that are no longer commands to link.
	want := map[string]bool{}
	for _, name := range LinkNames() {
		want[name] = true
	}
	if entries, err := os.ReadDir(dir); err == nil {
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			if cur, err := os.Readlink(p); err == nil && cur == target && !want[e.Name()] {
				_ = os.Remove(p)
			}
		}
	}
	for _, name := range LinkNames() {
		p := filepath.Join(dir, name)
		if cur, err := os.Readlink(p); err == nil && cur == target {
			continue
		}
		_ = os.Remove(p)
		if err := os.Symlink(target, p); err != nil {
			env.Errorf("basalt links: %v", err)
			return 1
		}
	}
	return 0
}
