package jobgate

const (
	machine        = 62 // EM_X86_64
	sysMemfdCreate = 319
)
