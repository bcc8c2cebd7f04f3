//go:build !amd64

package jobgate

import "debug/elf"

// No gate on this architecture (Supported is false).
var code []byte

const (
	machine        = elf.EM_NONE
	sysMemfdCreate = 0
)
