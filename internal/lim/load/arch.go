package load

import (
	"strings"
	"syscall"
)

// machine returns the kernel's machine name (uname -m).
func machine() string {
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

// hostType maps a machine name to LSF's host type names.
func hostType(arch string) string {
	switch arch {
	case "x86_64", "amd64":
		return "X86_64"
	case "aarch64", "arm64":
		return "LINUXARM64"
	case "ppc64le":
		return "LINUXPPC64LE"
	case "i386", "i686":
		return "LINUX86"
	}
	return strings.ToUpper(arch)
}

// LocalType returns the LSF host type of this machine (X86_64, ...).
func LocalType() string { return hostType(machine()) }
