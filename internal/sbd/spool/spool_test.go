package spool

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/api/wire"
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
	for _, n := range []string{"8.gone", "9.2.gone/job", "x.gone", "10", "free.3/job", "free.x"} {
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
	if !reflect.DeepEqual(names, []string{"10", "free.x", "x.gone"}) {
		t.Errorf("after Sweep: %v", names)
	}
}

// TestWriteStateReplaces: every state replaces the file atomically
// (readers never see a torn one) and leaves no temporary file; from the
// second on, no new inode: the previous state is kept for the next write.
func TestWriteStateReplaces(t *testing.T) {
	d := Root(t.TempDir()).Job("5")
	os.MkdirAll(string(d), 0o700)
	var files []os.FileInfo
	for i, final := range []bool{false, false, true, true} {
		if err := d.WriteState(&api.JobStatusReport{JobID: 5, Seq: uint64(i + 1), Final: final}); err != nil {
			t.Fatal(err)
		}
		st, err := d.ReadState()
		if err != nil || st.Seq != uint64(i+1) || st.Final != final {
			t.Fatalf("state %d read back as %+v, %v", i, st, err)
		}
		fi, err := os.Stat(d.State())
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, fi)
	}
	if !os.SameFile(files[1], files[3]) || os.SameFile(files[2], files[3]) {
		t.Error("the states' files are not the two kept ones in turn")
	}
	var names []string
	ents, _ := os.ReadDir(string(d))
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if !reflect.DeepEqual(names, []string{"state", "state.next"}) {
		t.Errorf("spool holds %v", names)
	}
	fi, _ := os.Stat(d.State())
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("state mode %v", fi.Mode())
	}
	// Cleared or empty, it is no state; clearState keeps the file.
	if err := d.clearState(); err != nil {
		t.Fatal(err)
	}
	if _, err := d.ReadState(); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("cleared state: %v", err)
	}
	if fi, err := os.Stat(d.State()); err != nil || !os.SameFile(fi, files[3]) {
		t.Errorf("clearState made another file: %v", err)
	}
	os.Truncate(d.State(), 0)
	if _, err := d.ReadState(); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("empty state: %v", err)
	}
	if err := Dir(t.TempDir()).clearState(); err != nil {
		t.Errorf("clearState without a state: %v", err)
	}
}

func TestDecodeState(t *testing.T) {
	s := &api.JobStatusReport{JobID: 5, Seq: 9, Final: true, State: api.StateDone}
	rec := encodeState(s)
	bare := wire.Marshal(s)
	torn := append([]byte(nil), rec...)
	torn[len(torn)-1] ^= 1
	tests := []struct {
		name string
		in   []byte
		err  string // "" decodes to s
	}{
		{"checksummed", rec, ""},
		{"bare, as earlier versions wrote it", bare, ""},
		{"torn", torn, "checksum mismatch (a torn record) in bytes 8-"},
		{"cut in the message", rec[:len(rec)-2], "checksum mismatch"},
		{"cut in the header", rec[:6], "bad header at byte 0"},
		{"other magic", append([]byte{0, 'x', 'y', 'z'}, rec[4:]...), "bad header at byte 0"},
		{"bad bare message", []byte{0xff}, "JobStatusReport"},
	}
	for _, tt := range tests {
		got, err := DecodeState(tt.in)
		if tt.err == "" {
			if err != nil || !reflect.DeepEqual(got, s) {
				t.Errorf("%s: %+v, %v", tt.name, got, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.err)
		}
	}
}

func FuzzDecodeState(f *testing.F) {
	f.Add(encodeState(&api.JobStatusReport{JobID: 5, Seq: 9, Final: true}))
	f.Add(wire.Marshal(&api.JobStatusReport{JobID: 5, ExitStatus: 256}))
	f.Add([]byte{0, 'b', 's', '1', 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := DecodeState(b)
		if err != nil {
			return
		}
		// What decodes is stable through an encoding.
		again, err := DecodeState(encodeState(s))
		if err != nil || !reflect.DeepEqual(again, s) {
			t.Fatalf("%+v re-decoded as %+v, %v", s, again, err)
		}
	})
}

// TestPool: a retired directory leaves the job keys at once and is reused
// for the next job with the same inodes: its launch rewritten, its state
// emptied, job/ kept, anything else removed. A full pool removes what it
// cannot keep; an empty one makes new directories; Sweep empties it.
func TestPool(t *testing.T) {
	r := Root(t.TempDir())
	p := NewPool(r, 1)
	old := r.Job("7")
	if err := p.Create(old, wire.Marshal(&api.JobLaunch{JobID: 7})); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(string(old.User()), 0o700)
	os.WriteFile(old.User().HostFile(), []byte("h\n"), 0o600)
	old.WriteState(&api.JobStatusReport{JobID: 7, Final: true})
	old.WriteParams(&sbdwire.Params{Host: "h"})
	launch, err := os.Open(old.Launch()) // held: its inode number stays its own
	if err != nil {
		t.Fatal(err)
	}
	defer launch.Close()
	lfi, _ := launch.Stat()

	if err := p.Retire(old); err != nil {
		t.Fatal(err)
	}
	if keys, _ := r.Keys(); keys != nil {
		t.Fatalf("after Retire Keys = %v", keys)
	}
	d := r.Job("8.2")
	if err := p.Create(d, wire.Marshal(&api.JobLaunch{JobID: 8, Index: 2})); err != nil {
		t.Fatal(err)
	}
	if keys, _ := r.Keys(); !reflect.DeepEqual(keys, []string{"8.2"}) {
		t.Fatalf("Keys = %v", keys)
	}
	if l, err := d.ReadLaunch(); err != nil || l.JobID != 8 || l.Index != 2 {
		t.Errorf("launch %+v, %v", l, err)
	}
	if fi, err := os.Stat(d.Launch()); err != nil || !os.SameFile(fi, lfi) {
		t.Errorf("launch not rewritten in place: %v", err)
	}
	if _, err := d.ReadState(); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the last job's state: %v", err)
	}
	if _, err := os.Stat(d.Params()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the last job's params: %v", err)
	}
	if b, err := os.ReadFile(d.User().HostFile()); err != nil || string(b) != "h\n" {
		t.Errorf("job/ not kept: %q, %v", b, err)
	}

	// Pool of one: the second retired directory is removed; the pool
	// then makes a new directory for one job and reuses for the other.
	e := r.Job("9")
	if err := p.Create(e, wire.Marshal(&api.JobLaunch{JobID: 9})); err != nil {
		t.Fatal(err)
	}
	if err := p.Retire(d); err != nil {
		t.Fatal(err)
	}
	if err := p.Retire(e); err != nil {
		t.Fatal(err)
	}
	if err := p.Retire(r.Job("10")); err != nil {
		t.Errorf("Retire of a missing directory: %v", err)
	}
	if ents, _ := os.ReadDir(string(r)); len(ents) != 1 || !isKept(ents[0].Name()) {
		t.Errorf("root holds %v, want one kept directory", ents)
	}
	if err := r.Sweep(); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(string(r)); len(ents) != 0 {
		t.Errorf("after Sweep the root holds %v", ents)
	}
	// The pool's directory is gone (a new sbatchd's pool): Create makes
	// a new one.
	f := r.Job("11")
	if err := p.Create(f, wire.Marshal(&api.JobLaunch{JobID: 11})); err != nil {
		t.Fatal(err)
	}
	if l, err := f.ReadLaunch(); err != nil || l.JobID != 11 {
		t.Errorf("launch %+v, %v", l, err)
	}
}
