//go:build !linux

package load

import (
	"os"
	"time"
)

// atime is a file's modification time where Basalt does not sample load
// (the commands use this package's index table and formulas only).
func atime(fi os.FileInfo) time.Time { return fi.ModTime() }
