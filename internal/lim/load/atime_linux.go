package load

import (
	"os"
	"syscall"
	"time"
)

// atime is a file's last access time (a terminal's: the it index).
func atime(fi os.FileInfo) time.Time {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return time.Unix(st.Atim.Sec, st.Atim.Nsec)
	}
	return fi.ModTime()
}
