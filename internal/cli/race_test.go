//go:build race

package cli

// raceEnabled: the test binary, and so the daemons script tests start from
// it, is built with the race detector.
const raceEnabled = true
