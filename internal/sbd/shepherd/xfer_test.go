package shepherd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/sbd/sbdwire"
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

func TestCopyFilesLocal(t *testing.T) {
	sub, exe := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(sub, "in"), []byte("input"), 0o755)
	os.WriteFile(filepath.Join(exe, "res"), []byte("result"), 0o644)
	os.WriteFile(filepath.Join(sub, "log"), []byte("old;"), 0o644)
	os.WriteFile(filepath.Join(exe, "log"), []byte("new"), 0o644)
	ts := []transfer{
		{local: "in", remote: "in.copy", in: true},
		{local: "res.back", remote: "res", out: true},
		{local: "log", remote: "log", out: true, appendOut: true},
		{local: "missing", remote: "m", in: true},
	}
	g := &staging{fromHost: "subhost", subCwd: sub, execCwd: exe}
	notes := g.copyFiles(context.Background(), ts, true)
	want := "Failed to copy file <" + filepath.Join(sub, "missing") + "> from submission host <subhost> to file <m> on execution host: no such file or directory."
	if len(notes) != 1 || notes[0] != want {
		t.Errorf("notes %q, want %q", notes, want)
	}
	if b, _ := os.ReadFile(filepath.Join(exe, "in.copy")); string(b) != "input" {
		t.Errorf("copied in: %q", b)
	}
	if st, err := os.Stat(filepath.Join(exe, "in.copy")); err != nil || st.Mode().Perm()&0o100 == 0 {
		t.Errorf("copy in lost the mode: %v %v", st.Mode(), err)
	}
	if notes := g.copyFiles(context.Background(), ts, false); len(notes) != 0 {
		t.Errorf("notes back %q", notes)
	}
	if b, _ := os.ReadFile(filepath.Join(sub, "res.back")); string(b) != "result" {
		t.Errorf("copied back: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(sub, "log")); string(b) != "old;new" {
		t.Errorf("appended back: %q", b)
	}
}

// TestCopyFilesSameLocal: a file both sides name alike in one directory
// (the job runs where it was submitted) is left as it is: a copy would
// truncate it before reading it, and "<<" would double it.
func TestCopyFilesSameLocal(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "data"), []byte("keep"), 0o644)
	g := &staging{fromHost: "subhost", subCwd: dir, execCwd: dir}
	ts := []transfer{{local: "data", remote: "data", in: true, out: true}, {local: "data", remote: "data", out: true, appendOut: true}}
	for _, toExec := range []bool{true, false} {
		if notes := g.copyFiles(context.Background(), ts, toExec); len(notes) != 0 {
			t.Errorf("notes %q", notes)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "data")); string(b) != "keep" {
			t.Fatalf("toExec %v: data %q", toExec, b)
		}
	}
}

// fakeRemote is a submission host whose file system is root on this one
// ("" : this host's own, a shared file system); it records the requests.
type fakeRemote struct {
	root string
	mu   sync.Mutex
	log  []string
}

func (f *fakeRemote) note(s string) {
	f.mu.Lock()
	f.log = append(f.log, s)
	f.mu.Unlock()
}

func (f *fakeRemote) Fetch(ctx context.Context, host, user, path string) (os.FileMode, io.ReadCloser, error) {
	f.note("fetch " + host + " " + user + " " + path)
	r, err := os.Open(f.root + path)
	if err != nil {
		return 0, nil, fmt.Errorf("%s:%s: %w", host, path, errors.Unwrap(err))
	}
	st, _ := r.Stat()
	return st.Mode().Perm(), r, nil
}

func (f *fakeRemote) Store(ctx context.Context, host, user, path string, appendTo bool, mode os.FileMode, r io.Reader) error {
	f.note(fmt.Sprintf("store %s %s %s %v %o", host, user, path, appendTo, mode))
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if appendTo {
		flags = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	}
	w, err := os.OpenFile(f.root+path, flags, mode)
	if err != nil {
		return fmt.Errorf("%s:%s: %w", host, path, errors.Unwrap(err))
	}
	if _, err := io.Copy(w, r); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

// TestCopyFilesRemote: with a Remote, the submission side's files are
// read and written through it, as the job's user, with the submission
// host's paths; failures are LSF's notes.
func TestCopyFilesRemote(t *testing.T) {
	subRoot, exe := t.TempDir(), t.TempDir()
	home := filepath.Join(subRoot, "home", "u")
	os.MkdirAll(filepath.Join(home, "proj"), 0o755)
	os.WriteFile(filepath.Join(home, "proj", "in"), []byte("input"), 0o755)
	os.WriteFile(filepath.Join(home, "proj", "log"), []byte("old;"), 0o644)
	os.WriteFile(filepath.Join(exe, "res"), []byte("result"), 0o640)
	os.WriteFile(filepath.Join(exe, "log"), []byte("new"), 0o644)
	fr := &fakeRemote{root: subRoot}
	// A relative submission directory is under the submitter's home (LSF).
	g := &staging{remote: fr, fromHost: "subhost", user: "alice", subCwd: "proj", subHome: "/home/u", execCwd: exe}
	ts := []transfer{
		{local: "in", remote: "in", in: true},
		{local: "/home/u/proj/res.back", remote: "res", out: true},
		{local: "log", remote: "log", out: true, appendOut: true},
		{local: "missing", remote: "m", in: true},
		{local: "back.missing", remote: "nothere", out: true},
	}
	notes := g.copyFiles(context.Background(), ts, true)
	want := []string{"Failed to copy file </home/u/proj/missing> from submission host <subhost> to file <m> on execution host: subhost:/home/u/proj/missing: no such file or directory."}
	if !reflect.DeepEqual(notes, want) {
		t.Errorf("notes %q, want %q", notes, want)
	}
	if b, _ := os.ReadFile(filepath.Join(exe, "in")); string(b) != "input" {
		t.Errorf("copied in: %q", b)
	}
	if st, err := os.Stat(filepath.Join(exe, "in")); err != nil || st.Mode().Perm()&0o100 == 0 {
		t.Errorf("copy in lost the mode: %v %v", st.Mode(), err)
	}
	if _, err := os.Stat(filepath.Join(exe, "m")); err == nil {
		t.Errorf("a missing source left a file on the execution host")
	}
	notes = g.copyFiles(context.Background(), ts, false)
	want = []string{"Unable to copy file <nothere> to </home/u/proj/back.missing> on submission host <subhost>: no such file or directory."}
	if !reflect.DeepEqual(notes, want) {
		t.Errorf("notes back %q, want %q", notes, want)
	}
	if b, _ := os.ReadFile(filepath.Join(home, "proj", "res.back")); string(b) != "result" {
		t.Errorf("copied back: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(home, "proj", "log")); string(b) != "old;new" {
		t.Errorf("appended back: %q", b)
	}
	joined := strings.Join(fr.log, "\n")
	for _, w := range []string{"fetch subhost alice /home/u/proj/in", "store subhost alice /home/u/proj/res.back false 640", "store subhost alice /home/u/proj/log true 644"} {
		if !strings.Contains(joined, w) {
			t.Errorf("remote requests lack %q:\n%s", w, joined)
		}
	}
	if ents, _ := os.ReadDir(exe); len(ents) != 3 {
		t.Errorf("execution directory holds %d files (probe files left?): %v", len(ents), ents)
	}
}

// TestCopyFilesRemoteShared: through a Remote, a file the two hosts share
// (the same directory on a shared file system) is found by the probe and
// not copied onto itself.
func TestCopyFilesRemoteShared(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "data"), []byte("keep"), 0o644)
	fr := &fakeRemote{}
	g := &staging{remote: fr, fromHost: "subhost", user: "alice", subCwd: dir, execCwd: dir}
	ts := []transfer{{local: "data", remote: "data", in: true, out: true}, {local: "data", remote: "data", out: true, appendOut: true}}
	for _, toExec := range []bool{true, false} {
		if notes := g.copyFiles(context.Background(), ts, toExec); len(notes) != 0 {
			t.Errorf("notes %q", notes)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "data")); string(b) != "keep" {
			t.Fatalf("toExec %v: data %q", toExec, b)
		}
	}
	for _, l := range fr.log {
		if strings.HasSuffix(l, "/data") || strings.HasPrefix(l, "store") {
			t.Errorf("copied a shared file: %s", l)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("probe files left: %v", ents)
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

// blockingRemote is a submission host that never answers: Fetch and Store
// create the file mark, then wait for their context, then write
// "cancelled" into mark.
type blockingRemote struct{ mark string }

func (b blockingRemote) Fetch(ctx context.Context, host, user, path string) (os.FileMode, io.ReadCloser, error) {
	os.WriteFile(b.mark, []byte(path), 0o644)
	<-ctx.Done()
	os.WriteFile(b.mark, []byte("cancelled"), 0o644)
	return 0, nil, ctx.Err()
}

func (b blockingRemote) Store(ctx context.Context, host, user, path string, appendTo bool, mode os.FileMode, r io.Reader) error {
	os.WriteFile(b.mark, []byte(path), 0o644)
	<-ctx.Done()
	os.WriteFile(b.mark, []byte("cancelled"), 0o644)
	return ctx.Err()
}

// TestKillWhileStaging: a job killed while its input files are being
// copied from a submission host that does not answer ends killed at once
// (the copies are cancelled, not left waiting in the shepherd) and never
// runs.
func TestKillWhileStaging(t *testing.T) {
	j := newJob(t, "touch ran")
	sub := j.launch.Spec.SubCwd
	mark := filepath.Join(sub, "fetching")
	j.env = append(j.env, "SHEPHERD_TEST_BLOCKING_REMOTE="+mark)
	j.launch.Spec.Files = []*api.FileTransfer{{Local: "input.txt", Op: ">", Remote: "data.in"}}
	j.launch.Spec.OutFile = "out"
	r := j.start(t)
	waitFor(t, "the copy from the submission host", func() bool {
		b, _ := os.ReadFile(mark)
		return string(b) == filepath.Join(sub, "input.txt")
	})
	r.send(&sbdwire.Command{Op: sbdwire.OpTerminate, TermReason: "TERM_OWNER"})
	if st := r.final(); st.State != api.StateExit || st.TermReason != "TERM_OWNER" {
		t.Errorf("final %+v", st)
	}
	if _, err := os.Stat(filepath.Join(sub, "ran")); err == nil {
		t.Errorf("the job ran")
	}
	if b, _ := os.ReadFile(mark); string(b) != "cancelled" {
		t.Errorf("the copy was not cancelled")
	}
}
