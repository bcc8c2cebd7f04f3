package mbd

import (
	"testing"
	"time"
)

// TestPassGap: a pass that acted is followed by the shortest gap whatever
// it cost; one that did nothing backs off three times its cost (at least
// the shortest gap).
func TestPassGap(t *testing.T) {
	for _, tc := range []struct {
		took  time.Duration
		acted bool
		want  time.Duration
	}{
		{time.Millisecond, true, minPassGap},
		{time.Second, true, minPassGap},
		{time.Millisecond, false, minPassGap},
		{20 * time.Millisecond, false, 60 * time.Millisecond},
		{time.Second, false, 3 * time.Second},
	} {
		if got := passGap(tc.took, tc.acted); got != tc.want {
			t.Errorf("passGap(%v, %t) = %v, want %v", tc.took, tc.acted, got, tc.want)
		}
	}
}
