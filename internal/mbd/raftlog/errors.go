package raftlog

import (
	"errors"
	"fmt"
)

var (
	// ErrLocked is returned by Open when another process holds the
	// directory's lock: LSF's rule that a lock file guarantees only one
	// mbatchd runs in the cluster.
	ErrLocked = errors.New("another mbatchd is running on this cluster")

	// ErrCorrupt is matched (errors.Is) by every *CorruptError.
	ErrCorrupt = errors.New("raftlog: corrupt log")

	// ErrClosed is returned by every method called after Close.
	ErrClosed = errors.New("raftlog: store is closed")

	// ErrFailed wraps the error that made the store refuse further writes: a
	// failed fsync or a half-done file operation leaves the on-disk state
	// unknown, so the process must reopen the store (and so recover) rather
	// than carry on over it.
	ErrFailed = errors.New("raftlog: store failed, reopen to recover")
)

// CorruptError reports damage that recovery must not repair by itself: a
// record or header that fails its checks anywhere except the unacknowledged
// tail of the log, or files that do not fit together. File is the path,
// Offset the byte offset of the damaged record or header in it, Index the
// raft index expected there (0 when not known).
type CorruptError struct {
	File   string
	Offset int64
	Index  uint64
	Reason string
}

func (e *CorruptError) Error() string {
	if e.Index != 0 {
		return fmt.Sprintf("raftlog: %s: offset %d (index %d): %s", e.File, e.Offset, e.Index, e.Reason)
	}
	return fmt.Sprintf("raftlog: %s: offset %d: %s", e.File, e.Offset, e.Reason)
}

// Is makes errors.Is(err, ErrCorrupt) true.
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }
