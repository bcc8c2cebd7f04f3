//go:build !race

package testutil

// Race reports whether the binary is built with the race detector (so are
// the daemons script tests start from the test binary).
const Race = false
