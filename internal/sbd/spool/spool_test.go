package spool

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/sbd/sbdwire"
)

func TestKeys(t *testing.T) {
	tests := []struct {
		id  int64
		idx int32
		key string
	}{{12, 0, "12"}, {12, 3, "12.3"}, {999999, 1000, "999999.1000"}}
	for _, tt := range tests {
		if k := Key(tt.id, tt.idx); k != tt.key {
			t.Errorf("Key(%d, %d) = %q", tt.id, tt.idx, k)
		}
		id, idx, ok := ParseKey(tt.key)
		if !ok || id != tt.id || idx != tt.idx {
			t.Errorf("ParseKey(%q) = %d, %d, %v", tt.key, id, idx, ok)
		}
	}
	for _, bad := range []string{"", "x", "0", "-1", "12.", "12.0", "12.x", "012", "12.03", ".tmp", "1.2.3"} {
		if _, _, ok := ParseKey(bad); ok {
			t.Errorf("ParseKey(%q) accepted", bad)
		}
	}
}

func TestRootAndFiles(t *testing.T) {
	r := Root(t.TempDir())
	if keys, err := r.Keys(); err != nil || keys != nil {
		t.Fatalf("empty Keys = %v, %v", keys, err)
	}
	for _, k := range []string{"12", "3.2", "3.10", "3", "notajob"} {
		os.MkdirAll(string(r.Job(k)), 0o700)
	}
	os.WriteFile(filepath.Join(string(r), "99"), nil, 0o600) // a file, not a directory
	keys, err := r.Keys()
	if err != nil || !reflect.DeepEqual(keys, []string{"3", "3.2", "3.10", "12"}) {
		t.Fatalf("Keys = %v, %v", keys, err)
	}
	d := r.Job("12")
	if _, err := d.ReadState(); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadState before write: %v", err)
	}
	l := &api.JobLaunch{JobID: 12, User: "u", Spec: &api.JobSpec{Command: "true", Env: []string{"A=1"}}}
	p := &sbdwire.Params{Host: "h", UID: 7, ExecArgv: []string{"x"}}
	s := &api.JobStatusReport{JobID: 12, State: api.StateRun, PID: 5, Seq: 3}
	if err := d.WriteLaunch(l); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteParams(p); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteState(s); err != nil {
		t.Fatal(err)
	}
	gl, err1 := d.ReadLaunch()
	gp, err2 := d.ReadParams()
	gs, err3 := d.ReadState()
	if err1 != nil || err2 != nil || err3 != nil {
		t.Fatal(err1, err2, err3)
	}
	if !reflect.DeepEqual(gl, l) || !reflect.DeepEqual(gp, p) || !reflect.DeepEqual(gs, s) {
		t.Errorf("round trip: %+v %+v %+v", gl, gp, gs)
	}
	if d.IsAcked() {
		t.Error("acked before MarkAcked")
	}
	if err := d.MarkAcked(); err != nil || !d.IsAcked() {
		t.Errorf("MarkAcked: %v", err)
	}
	// No temporary files are left behind.
	ents, _ := os.ReadDir(string(d))
	if len(ents) != 4 {
		t.Errorf("spool holds %d entries, want 4", len(ents))
	}
	if err := os.WriteFile(d.State(), []byte{0xff}, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := d.ReadState(); err == nil {
		t.Error("corrupt state read without error")
	}
	if err := d.Remove(); err != nil {
		t.Fatal(err)
	}
	if keys, _ := r.Keys(); reflect.DeepEqual(keys, []string{"3", "3.2", "3.10", "12"}) {
		t.Error("Remove left the job")
	}
}

// TestRemoveAndSweep: Remove takes the job out of Keys at once (a rename)
// and deletes it; a removal a crash interrupted is no job, and Sweep
// deletes it (only those: other names are left alone).
func TestRemoveAndSweep(t *testing.T) {
	r := Root(t.TempDir())
	d := r.Job("7")
	if err := d.Remove(); err != nil {
		t.Errorf("Remove of a missing spool: %v", err)
	}
	os.MkdirAll(string(d.User()), 0o700)
	if err := d.WriteState(&api.JobStatusReport{JobID: 7, Final: true}); err != nil {
		t.Fatal(err)
	}
	if err := d.Remove(); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(string(r)); len(ents) != 0 {
		t.Errorf("after Remove the root holds %v", ents)
	}
	// Interrupted removals, and names that are not theirs.
	for _, n := range []string{"8.gone", "9.2.gone/job", "x.gone", "10"} {
		os.MkdirAll(filepath.Join(string(r), n), 0o700)
	}
	os.WriteFile(filepath.Join(string(r), "8.gone", "state"), nil, 0o600)
	if keys, _ := r.Keys(); !reflect.DeepEqual(keys, []string{"10"}) {
		t.Errorf("Keys = %v, want [10]", keys)
	}
	if err := r.Sweep(); err != nil {
		t.Fatal(err)
	}
	var names []string
	ents, _ := os.ReadDir(string(r))
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if !reflect.DeepEqual(names, []string{"10", "x.gone"}) {
		t.Errorf("after Sweep: %v", names)
	}
}

// TestWriteStateReplaces: every state replaces the file atomically
// (readers never see a torn one) and leaves no temporary file.
func TestWriteStateReplaces(t *testing.T) {
	d := Root(t.TempDir()).Job("5")
	os.MkdirAll(string(d), 0o700)
	for i, final := range []bool{false, false, true} {
		if err := d.WriteState(&api.JobStatusReport{JobID: 5, Seq: uint64(i + 1), Final: final}); err != nil {
			t.Fatal(err)
		}
		st, err := d.ReadState()
		if err != nil || st.Seq != uint64(i+1) || st.Final != final {
			t.Fatalf("state %d read back as %+v, %v", i, st, err)
		}
	}
	if ents, _ := os.ReadDir(string(d)); len(ents) != 1 {
		t.Errorf("spool holds %d entries, want 1", len(ents))
	}
	fi, _ := os.Stat(d.State())
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("state mode %v", fi.Mode())
	}
}
