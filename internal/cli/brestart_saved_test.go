package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/chkpnt"
)

// TestSavedSubmission: brestart takes the submission a checkpoint saved
// only when it is the caller's regular file; none is no error.
func TestSavedSubmission(t *testing.T) {
	dir := t.TempDir()
	if b, err := savedSubmission(dir); b != nil || err != nil {
		t.Fatalf("no saved submission: %q, %v", b, err)
	}
	p := filepath.Join(dir, chkpnt.SubmissionFile)
	want := &api.JobSpec{Command: "./count.sh", JobName: "counter", Env: []string{"A=1"}}
	if err := os.WriteFile(p, want.AppendWire(nil), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := savedSubmission(dir)
	var got api.JobSpec
	if err != nil || got.UnmarshalWire(b) != nil || got.Command != want.Command || got.JobName != want.JobName || len(got.Env) != 1 {
		t.Fatalf("saved submission: %+v, %v", got, err)
	}

	// Not the caller's: refused.
	if os.Getuid() == 0 {
		if err := os.Chown(p, 12345, 12345); err != nil {
			t.Fatal(err)
		}
		if _, err := savedSubmission(dir); err == nil || !strings.Contains(err.Error(), "not yours") {
			t.Fatalf("another user's saved submission: %v", err)
		}
	}
	// A symbolic link is never followed.
	link := t.TempDir()
	if err := os.Symlink(p, filepath.Join(link, chkpnt.SubmissionFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := savedSubmission(link); err == nil {
		t.Fatal("a saved submission through a symbolic link was taken")
	}
	// Damaged: refused, with the file named.
	if err := os.WriteFile(filepath.Join(dir, chkpnt.SubmissionFile), []byte{0xff, 0xff, 0xff}, 0o600); err != nil {
		t.Fatal(err)
	}
	if os.Getuid() == 0 {
		os.Chown(p, 0, 0)
	}
	if _, err := savedSubmission(dir); err == nil || !strings.Contains(err.Error(), p) {
		t.Fatalf("damaged saved submission: %v", err)
	}
}
