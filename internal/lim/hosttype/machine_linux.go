package hosttype

import (
	"strings"
	"syscall"
)

// Machine returns the kernel's machine name (uname -m).
func Machine() string {
	var u syscall.Utsname
	if err := syscall.Uname(&u); err != nil {
		return ""
	}
	var b strings.Builder
	for _, c := range u.Machine {
		if c == 0 {
			break
		}
		b.WriteByte(byte(c))
	}
	return b.String()
}
