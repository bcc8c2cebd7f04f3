package testutil

import (
	"testing"
	"time"
)

// Eventually waits until cond holds, polling it (every millisecond at
// first, backing off to every 50 ms), and fails t with what if it does
// not hold within d. cond runs on the calling goroutine.
func Eventually(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	if !Poll(d, cond) {
		t.Fatalf("timed out after %v waiting for %s", d, what)
	}
}

// Poll waits until cond holds or d passes, polling it as Eventually does,
// and reports whether it held.
func Poll(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	wait := time.Millisecond
	for !cond() {
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		t := time.NewTimer(min(wait, left))
		<-t.C
		wait = min(2*wait, 50*time.Millisecond)
	}
	return true
}
