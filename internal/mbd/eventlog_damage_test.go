package mbd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/basalt-lsf/basalt/api"
)

// TestDamagedEventLogRestart: an lsb.events cut short while mbatchd was
// down does not keep it from serving: its jobs are intact (they live in the
// raft log), and the new lsb.events holds them after the next event.
func TestDamagedEventLogRestart(t *testing.T) {
	dir := writeCluster(t, 1, 4)
	m := startMbd(t, dir)
	for i := 0; i < 2; i++ {
		s := spec("sleep 100")
		s.Hold = true
		m.submit("alice", s)
	}
	events := filepath.Join(m.srv.logDir(m.srv.cfg.Current()), "lsb.events")
	m.stop()
	if err := os.Truncate(events, 3); err != nil {
		t.Fatal(err)
	}

	m = startMbd(t, dir)
	for id := int64(1); id <= 2; id++ {
		if r := m.job(id); r == nil || r.State != api.StatePSusp {
			t.Fatalf("job %d after the restart: %+v", id, r)
		}
	}
	if r := m.submit("alice", spec("sleep 100")); r[0].JobID != 3 {
		t.Fatalf("submit after the restart: job %d (%+v)", r[0].JobID, r[0].Status)
	}
	m.stop()
	b, err := os.ReadFile(events)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"LOG_SWITCH"`, `"JOB_NEW" "10.1" `} {
		if !strings.Contains(string(b), want) {
			t.Errorf("new lsb.events has no %s:\n%s", want, b)
		}
	}
	if n := strings.Count(string(b), `"JOB_NEW"`); n != 3 {
		t.Errorf("new lsb.events has %d JOB_NEW records, want 3 (jobs 1, 2 relogged, 3):\n%s", n, b)
	}
	if _, err := os.Stat(events + ".damaged.1"); err != nil {
		t.Errorf("the damaged file was not set aside: %v", err)
	}
}
