//go:build !linux

package cli

// startOnHost runs start: only Linux has namespace clusters.
func startOnHost(_ *Env, _ string, start func() error) error { return start() }
