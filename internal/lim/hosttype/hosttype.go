// Package hosttype names the local machine's LSF host type (X86_64,
// LINUXARM64...), for LIM and for the commands that evaluate requirements
// on the submission host (type == local). It builds on every platform the
// commands do.
package hosttype

import "strings"

// Local returns the LSF host type of this machine.
func Local() string { return Of(Machine()) }

// Of maps a machine name (uname -m, or GOARCH) to LSF's host type name.
func Of(arch string) string {
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
