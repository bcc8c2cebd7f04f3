//go:build !linux

package hosttype

import "runtime"

// Machine is the architecture the program was built for.
func Machine() string { return runtime.GOARCH }
