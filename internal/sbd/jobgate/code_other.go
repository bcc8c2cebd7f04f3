//go:build !amd64

package jobgate

// No gate on this architecture (Supported is false).
var code []byte

const (
	machine        = 0 // EM_NONE
	sysMemfdCreate = 0
)
