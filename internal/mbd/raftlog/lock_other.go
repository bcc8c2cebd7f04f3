//go:build !unix

package raftlog

import (
	"errors"
	"os"
)

var errWouldBlock = errors.New("lock held")

// flock is not implemented off Unix: mbatchd runs on Unix hosts.
func flock(f *os.File) error {
	return errors.New("raftlog: directory locking needs flock(2), not available on this platform")
}
