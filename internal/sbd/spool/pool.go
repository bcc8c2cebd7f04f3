package spool

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/basalt-lsf/basalt/internal/sbd/rawfile"
)

// Pool keeps the spool directories of forgotten jobs for new jobs.
//
// A spool directory is half a dozen inodes (the directory, launch, state,
// job/ and the job user's files in it), and making and deleting them for
// every job was most of the file system's work per job. On ext4 without a
// journal it grows with the churn: a new inode is looked for past every
// inode freed in the last seconds to minutes, so at a hundred jobs a
// second each creation scans thousands. A reused directory keeps its
// inodes: sbatchd renames it, rewrites its launch and clears its state;
// the shepherd rewrites the job user's files in place when job/ is still
// that user's (see the shepherd's prepareFiles).
//
// Kept directories are named free.<n> under the root: not job keys, so
// nothing reads them as jobs, and Sweep removes them after a restart.
type Pool struct {
	root Root
	free chan string
	seq  atomic.Uint64
}

// freePrefix starts the names of kept directories.
const freePrefix = "free."

// NewPool returns a pool keeping at most size directories under r.
func NewPool(r Root, size int) *Pool {
	return &Pool{root: r, free: make(chan string, size)}
}

// Retire takes d out of the job keys atomically (a rename) and keeps it,
// or removes it when the pool is full. A missing d is not an error.
func (p *Pool) Retire(d Dir) error {
	name := filepath.Join(string(p.root), freePrefix+strconv.FormatUint(p.seq.Add(1), 10))
	if err := rawfile.Rename(string(d), name); err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return d.Remove()
	}
	select {
	case p.free <- name:
		return nil
	default:
		if err := rawfile.RemoveAll(name); err != nil {
			return fmt.Errorf("spool: %w", err)
		}
		return nil
	}
}

// Create makes d, holding the job's launch (encoded): a kept directory
// when there is one, renamed to d once its launch is written and its state
// cleared (so d never holds another job's launch or state), a new
// directory otherwise. The kept directory's job/ stays for the shepherd to
// reuse or replace. d must not exist.
func (p *Pool) Create(d Dir, launch []byte) error {
	select {
	case name := <-p.free:
		if reuse(name, d, launch) == nil {
			return nil
		}
		rawfile.RemoveAll(name) // and d is made anew
	default:
	}
	// Job users reach their directory in it (mode 0711), unless sbatchd's
	// umask takes that away: the shepherd then sets the mode.
	if err := os.Mkdir(string(d), 0o711); err != nil {
		if err := os.MkdirAll(string(d), 0o711); err != nil {
			return err
		}
	}
	return d.CreateLaunch(launch)
}

// kept are the entries of a reused directory that stay: the files
// rewritten for the next job, and the job user's directory.
func kept(name string) bool {
	switch name {
	case launchName, stateName, stateNextName, userName:
		return true
	}
	return false
}

func reuse(from string, d Dir, launch []byte) error {
	f := Dir(from)
	if err := rawfile.RemoveEntries(from, kept); err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	if err := f.clearState(); err != nil {
		return err
	}
	if err := rawfile.Overwrite(f.Launch(), launch, syscall.O_CREAT, 0o600); err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	if err := rawfile.Rename(from, string(d)); err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	return nil
}

// isKept reports whether name (an entry of a root) is a kept directory.
func isKept(name string) bool {
	n, ok := strings.CutPrefix(name, freePrefix)
	if !ok {
		return false
	}
	_, err := strconv.ParseUint(n, 10, 64)
	return err == nil
}
