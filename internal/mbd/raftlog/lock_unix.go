//go:build unix

package raftlog

import (
	"errors"
	"os"
	"syscall"
)

// errWouldBlock reports that the lock is held elsewhere.
var errWouldBlock = errors.New("lock held")

// flock takes an exclusive, non-blocking flock(2) on f. The lock belongs to
// the open file description, so it is released when f is closed (or the
// process dies), and a second Open in the same process conflicts too.
func flock(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) {
		for {
			ferr = syscall.Flock(int(fd), syscall.LOCK_EX|syscall.LOCK_NB)
			if ferr != syscall.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	if ferr == syscall.EWOULDBLOCK {
		return errWouldBlock
	}
	if ferr != nil {
		return &os.PathError{Op: "flock", Path: f.Name(), Err: ferr}
	}
	return nil
}
