package shepherd

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/basalt-lsf/basalt/api"
)

func TestTransfers(t *testing.T) {
	ts, notes := transfers([]*api.FileTransfer{
		{Local: "a", Op: ">", Remote: "b"}, {Local: "c", Op: "<"}, {Local: "d", Op: "<<", Remote: "e"},
		{Local: "f", Op: "><", Remote: "g"}, {Local: "h", Op: "<>"}, {Local: "x", Op: "=>"}, {Op: ">", Remote: "y"},
	})
	want := []transfer{
		{local: "a", remote: "b", in: true}, {local: "c", remote: "c", out: true}, {local: "d", remote: "e", out: true, appendOut: true},
		{local: "f", remote: "g", in: true, out: true}, {local: "h", remote: "h", in: true, out: true},
	}
	if !reflect.DeepEqual(ts, want) {
		t.Errorf("transfers = %+v", ts)
	}
	if len(notes) != 2 || !strings.Contains(notes[0], "<=>") || !strings.Contains(notes[1], "no local file") {
		t.Errorf("notes %q", notes)
	}
}

func TestCopyFiles(t *testing.T) {
	sub, exe := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(sub, "in"), []byte("input"), 0o644)
	os.WriteFile(filepath.Join(exe, "res"), []byte("result"), 0o644)
	os.WriteFile(filepath.Join(sub, "log"), []byte("old;"), 0o644)
	os.WriteFile(filepath.Join(exe, "log"), []byte("new"), 0o644)
	ts := []transfer{
		{local: "in", remote: "in.copy", in: true},
		{local: "res.back", remote: "res", out: true},
		{local: "log", remote: "log", out: true, appendOut: true},
		{local: "missing", remote: "m", in: true},
	}
	notes := copyFiles(ts, true, sub, exe, nil)
	if len(notes) != 1 || !strings.Contains(notes[0], "Unable to copy file <"+filepath.Join(sub, "missing")+">") {
		t.Errorf("notes %q", notes)
	}
	if b, _ := os.ReadFile(filepath.Join(exe, "in.copy")); string(b) != "input" {
		t.Errorf("copied in: %q", b)
	}
	if notes := copyFiles(ts, false, sub, exe, nil); len(notes) != 0 {
		t.Errorf("notes back %q", notes)
	}
	if b, _ := os.ReadFile(filepath.Join(sub, "res.back")); string(b) != "result" {
		t.Errorf("copied back: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(sub, "log")); string(b) != "old;new" {
		t.Errorf("appended back: %q", b)
	}
}

// TestJobFileTransfers: bsub -f through a job run.
func TestJobFileTransfers(t *testing.T) {
	j := newJob(t, "cat data.in > data.out; echo more >> data.out")
	sub := j.launch.Spec.SubCwd
	os.WriteFile(filepath.Join(sub, "input.txt"), []byte("payload\n"), 0o644)
	j.launch.Spec.Cwd = "work"
	os.MkdirAll(filepath.Join(sub, "work"), 0o777)
	j.launch.Spec.Files = []*api.FileTransfer{{Local: "input.txt", Op: ">", Remote: "data.in"}, {Local: "result.txt", Op: "<", Remote: "data.out"}}
	j.launch.Spec.OutFile = "out"
	st := j.start(t).final()
	if st.State != api.StateDone {
		t.Fatalf("final %+v", st)
	}
	if b, _ := os.ReadFile(filepath.Join(sub, "result.txt")); string(b) != "payload\nmore\n" {
		t.Errorf("result %q", b)
	}
}
