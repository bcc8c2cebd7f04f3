package cli

import (
	"path/filepath"

	"github.com/basalt-lsf/basalt/internal/cluster"
)

// startOnHost runs start (a daemon's start) so that the daemon runs on
// host: in host's network namespace when the configuration is a namespace
// cluster's (basalt cluster up --netns), where host's address is.
func startOnHost(env *Env, host string, start func() error) error {
	envDir := env.Getenv("LSF_ENVDIR")
	if envDir == "" {
		return start()
	}
	return cluster.OnHostOf(filepath.Dir(envDir), host, start)
}
