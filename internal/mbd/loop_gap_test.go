package mbd

import (
	"testing"
	"time"
)

// TestPassGap: a pass that acted is followed by the shortest gap whatever
// it cost; one that did nothing backs off three times its cost (at least
// the shortest gap); JOB_SCHEDULING_INTERVAL, when set, is the least gap.
func TestPassGap(t *testing.T) {
	for _, tc := range []struct {
		took     time.Duration
		acted    bool
		interval time.Duration
		want     time.Duration
	}{
		{time.Millisecond, true, 0, minPassGap},
		{time.Second, true, 0, minPassGap},
		{time.Millisecond, false, 0, minPassGap},
		{20 * time.Millisecond, false, 0, 60 * time.Millisecond},
		{time.Second, false, 0, 3 * time.Second},
		{time.Millisecond, true, time.Second, time.Second},
		{time.Millisecond, false, 500 * time.Millisecond, 500 * time.Millisecond},
		{time.Second, false, 500 * time.Millisecond, 3 * time.Second},
		{time.Millisecond, true, time.Millisecond, minPassGap},
	} {
		if got := passGap(tc.took, tc.acted, tc.interval); got != tc.want {
			t.Errorf("passGap(%v, %t, %v) = %v, want %v", tc.took, tc.acted, tc.interval, got, tc.want)
		}
	}
}
