package config

import (
	"strings"
	"testing"
	"time"
)

// TestInterruptibleBackfill checks INTERRUPTIBLE_BACKFILL: seconds, only
// with BACKFILL = Y and RUNLIMIT, and every rejection positioned.
func TestInterruptibleBackfill(t *testing.T) {
	tests := []struct {
		name  string
		lines string
		want  time.Duration
		diag  string // expected diagnostic (file:line:col prefix included); "" none
	}{
		{"valid", "BACKFILL = Y\nRUNLIMIT = 10\nINTERRUPTIBLE_BACKFILL = 60", time.Minute, ""},
		{"valid-before-backfill", "INTERRUPTIBLE_BACKFILL = 1\nBACKFILL = y\nRUNLIMIT = 5 10", time.Second, ""},
		{"zero", "BACKFILL = Y\nRUNLIMIT = 10\nINTERRUPTIBLE_BACKFILL = 0", 0,
			"lsb.queues:5:26: warning: Queue <q>: INTERRUPTIBLE_BACKFILL value <0> must be at least 1; ignored"},
		{"negative", "BACKFILL = Y\nRUNLIMIT = 10\nINTERRUPTIBLE_BACKFILL = -5", 0,
			"lsb.queues:5:26: warning: Queue <q>: INTERRUPTIBLE_BACKFILL value <-5>"},
		{"text", "BACKFILL = Y\nRUNLIMIT = 10\nINTERRUPTIBLE_BACKFILL = 10m", 0,
			"lsb.queues:5:26: warning: Queue <q>: INTERRUPTIBLE_BACKFILL value <10m> is not an integer; ignored"},
		{"no-backfill", "RUNLIMIT = 10\nINTERRUPTIBLE_BACKFILL = 30", 0,
			"lsb.queues:4:1: warning: Queue <q>: INTERRUPTIBLE_BACKFILL requires BACKFILL = Y; interruptible backfill disabled"},
		{"backfill-n", "BACKFILL = N\nRUNLIMIT = 10\nINTERRUPTIBLE_BACKFILL = 30", 0,
			"lsb.queues:5:1: warning: Queue <q>: INTERRUPTIBLE_BACKFILL requires BACKFILL = Y; interruptible backfill disabled"},
		{"no-runlimit", "BACKFILL = Y\nINTERRUPTIBLE_BACKFILL = 30", 0,
			"lsb.queues:4:1: warning: Queue <q>: INTERRUPTIBLE_BACKFILL requires RUNLIMIT; interruptible backfill disabled"},
		{"neither", "INTERRUPTIBLE_BACKFILL = 30", 0,
			"lsb.queues:3:1: warning: Queue <q>: INTERRUPTIBLE_BACKFILL requires BACKFILL = Y and RUNLIMIT; interruptible backfill disabled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := fixture(map[string]string{"lsb.queues": queuesFile("QUEUE_NAME=q\n" + tt.lines)})
			var d Diagnostics
			f := must(lexParse(batchDir+"lsb.queues", m, &d))
			qs := parseQueues(f, "KB", &d)
			if len(qs) != 1 {
				t.Fatalf("queues: %+v (%s)", qs, d)
			}
			if got := qs[0].InterruptibleBackfill; got != tt.want {
				t.Errorf("InterruptibleBackfill = %v, want %v", got, tt.want)
			}
			var msgs []string
			for _, x := range d {
				msgs = append(msgs, x.String())
			}
			all := strings.Join(msgs, "\n")
			switch {
			case tt.diag == "" && len(d) != 0:
				t.Errorf("unexpected diagnostics:\n%s", all)
			case tt.diag != "" && (len(d) != 1 || !strings.Contains(all, tt.diag)):
				t.Errorf("diagnostics:\n%s\nwant one containing:\n%s", all, tt.diag)
			}
		})
	}
}
