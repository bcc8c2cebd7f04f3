package state

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/api/wire"
)

var update = flag.Bool("update", false, "write golden fixtures that are missing (existing ones are never rewritten)")

// goldenSnapshot is the snapshot fixture this version wrote.
const goldenSnapshot = "testdata/golden/snapshot-1"

// goldenState is a small state with every kind of snapshot record: jobs
// pending, running and done, an array, closed queue and host.
func goldenState(t *testing.T) *State {
	l := newLogger(t)
	l.must(submit(1, "normal", "alice"))
	l.must(submit(2, "night", "bob", func(n *api.EvJobNew) { n.ArrayIndices, n.ArraySpec = []int32{1, 2, 3}, "1-3" }))
	l.must(start(1, 0, "hostA"))
	l.must(start(2, 1, "hostB"))
	l.must(&api.Event{JobStatus: &api.EvJobStatus{JobID: 2, Index: 1, State: api.StateDone, RunCount: 1, Usage: &api.Usage{CPUTime: 2.5}}})
	l.must(&api.Event{QueueCtrl: &api.EvQueueCtrl{Queue: "night", Op: api.QueueClose}})
	l.must(&api.Event{HostCtrl: &api.EvHostCtrl{Host: "hostB", Op: api.HostClose, Message: "maintenance"}})
	l.must(&api.Event{MbdStart: &api.EvMbdStart{}})
	return l.s
}

// splitSnapshot decodes a snapshot's records (each prefixed by its length).
func splitSnapshot(t *testing.T, b []byte) []*api.SnapRecord {
	var out []*api.SnapRecord
	for len(b) > 0 {
		n, k := wire.ConsumeVarint(b)
		if k < 0 || uint64(len(b)-k) < n {
			t.Fatalf("snapshot record %d: bad length", len(out))
		}
		r := &api.SnapRecord{}
		if err := r.UnmarshalWire(b[k : k+int(n)]); err != nil {
			t.Fatalf("snapshot record %d: %v", len(out), err)
		}
		out = append(out, r)
		b = b[k+int(n):]
	}
	return out
}

// TestGoldenSnapshot: a snapshot this version wrote (snapshot-1.bin, with
// its records' values in snapshot-1.json) decodes to the same records and
// restores, in this version and every later one. -update writes it when
// missing and never rewrites it.
func TestGoldenSnapshot(t *testing.T) {
	bin, js := goldenSnapshot+".bin", goldenSnapshot+".json"
	if _, err := os.Stat(bin); os.IsNotExist(err) && *update {
		b, _ := goldenState(t).Snapshot()
		j, err := json.MarshalIndent(splitSnapshot(t, b), "", "\t")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(bin, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(js, append(j, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatalf("no golden snapshot (%v): run go test ./internal/mbd/state/ -run TestGoldenSnapshot -update", err)
	}
	want, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var exp []*api.SnapRecord
	if err := json.Unmarshal(want, &exp); err != nil {
		t.Fatal(err)
	}
	if got := splitSnapshot(t, data); !reflect.DeepEqual(got, exp) {
		g, _ := json.MarshalIndent(got, "", "\t")
		t.Fatalf("%s decodes to\n%s\nwant (%s)\n%s", bin, g, js, want)
	}
	s := New()
	if err := s.Restore(bytes.NewReader(data), 9); err != nil {
		t.Fatalf("restoring %s: %v", bin, err)
	}
	s.View(func(v *View) {
		j1, j22 := v.Job(Key{1, 0}), v.Job(Key{2, 2})
		if j1 == nil || j1.State != api.StateRun || j1.User != "alice" || j22 == nil || j22.State != api.StatePend {
			t.Errorf("restored jobs: %+v %+v", j1, j22)
		}
		if v.Count(api.StateDone) != 1 {
			t.Errorf("restored: %d done jobs, want 1", v.Count(api.StateDone))
		}
	})
}
