//go:build !linux

package raftlog

import "os"

// datasync flushes f; fsync(2) where fdatasync(2) is not available.
func datasync(f *os.File) error { return f.Sync() }
