package jobgate

import "debug/elf"

const (
	machine        = elf.EM_X86_64
	sysMemfdCreate = 319
)
