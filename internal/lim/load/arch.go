package load

import "github.com/basalt-lsf/basalt/internal/lim/hosttype"

// LocalType returns the LSF host type of this machine (X86_64, ...).
func LocalType() string { return hosttype.Local() }
