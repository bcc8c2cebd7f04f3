package testutil

import (
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

func TestPollHolds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var n atomic.Int32
		go func() {
			time.Sleep(time.Second)
			n.Store(1)
		}()
		t0 := time.Now()
		if !Poll(5*time.Second, func() bool { return n.Load() == 1 }) {
			t.Fatal("Poll gave up on a condition that came true after 1s")
		}
		if d := time.Since(t0); d < time.Second || d > time.Second+50*time.Millisecond {
			t.Errorf("Poll returned after %v, want within one 50 ms poll of 1s", d)
		}
	})
}

func TestPollTimesOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		t0 := time.Now()
		calls := 0
		if Poll(2*time.Second, func() bool { calls++; return false }) {
			t.Fatal("Poll reported a condition that never held")
		}
		if d := time.Since(t0); d != 2*time.Second {
			t.Errorf("Poll gave up after %v, want exactly 2s", d)
		}
		if calls < 40 || calls > 60 {
			t.Errorf("%d polls in 2s, want about 2s/50ms", calls)
		}
	})
}

// fakeT records Fatalf instead of ending the test.
type fakeT struct {
	testing.TB
	failed string
}

func (f *fakeT) Helper() {}
func (f *fakeT) Fatalf(format string, args ...any) {
	f.failed = fmt.Sprintf(format, args...)
}

func TestEventuallyFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeT{TB: t}
		Eventually(f, time.Second, "the impossible", func() bool { return false })
		if want := "timed out after 1s waiting for the impossible"; f.failed != want {
			t.Errorf("failure %q, want %q", f.failed, want)
		}
		f = &fakeT{TB: t}
		Eventually(f, time.Second, "the obvious", func() bool { return true })
		if f.failed != "" {
			t.Errorf("failed on a condition that held: %q", f.failed)
		}
	})
}
