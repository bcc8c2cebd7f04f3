package config

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// EGroupFunc returns the members of an external group (GROUP_MEMBER "!"):
// flag is "-u" for a user group (lsb.users) or "-m" for a host group
// (lsb.hosts), as LSF passes them to LSF_SERVERDIR/egroup.
type EGroupFunc func(ctx context.Context, flag, group string) ([]string, error)

// ErrNoEGroup is returned by ExecEGroup when LSF_SERVERDIR has no egroup.
var ErrNoEGroup = errors.New("no egroup executable")

// DefaultEGroupTimeout bounds one run of egroup.
const DefaultEGroupTimeout = 30 * time.Second

// ExecEGroup runs serverDir/egroup flag group and reads the members from its
// standard output, separated by blanks (the seed's protocol). A non-zero
// exit or a timeout is an error.
func ExecEGroup(serverDir string, timeout time.Duration) EGroupFunc {
	if timeout <= 0 {
		timeout = DefaultEGroupTimeout
	}
	return func(ctx context.Context, flag, group string) ([]string, error) {
		path := filepath.Join(serverDir, "egroup")
		if serverDir == "" {
			return nil, fmt.Errorf("%w: LSF_SERVERDIR is not defined", ErrNoEGroup)
		}
		if st, err := os.Stat(path); err != nil || st.IsDir() {
			return nil, fmt.Errorf("%w in %s", ErrNoEGroup, serverDir)
		}
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, path, flag, group)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			if msg := strings.TrimSpace(stderr.String()); msg != "" {
				return nil, fmt.Errorf("%s %s %s: %w: %s", path, flag, group, err, msg)
			}
			return nil, fmt.Errorf("%s %s %s: %w", path, flag, group, err)
		}
		return strings.Fields(string(out)), nil
	}
}
