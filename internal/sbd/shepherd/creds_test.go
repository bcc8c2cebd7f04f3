package shepherd

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOpenAs: files opened as the job user (openAs, for bsub -f copies,
// and the host's appendFile on a forker thread, for the job report) get
// the user's permissions, and leave every thread with the shepherd's own.
func TestOpenAs(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	acct, err := LookupAccount("basalt1")
	if err != nil {
		t.Skip(err)
	}
	h, err := NewHost(nil, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	viaOpenAs := func(path string, data []byte, c *cred) error {
		f, err := openAs(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o666, c)
		if err != nil {
			return err
		}
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
	for name, appendFile := range map[string]func(string, []byte, *cred) error{"openAs": viaOpenAs, "host.appendFile": h.appendFile} {
		t.Run(name, func(t *testing.T) { testOpenAs(t, acct, appendFile) })
	}
}

func testOpenAs(t *testing.T, acct *Account, appendFile func(string, []byte, *cred) error) {
	c := &cred{uid: int(acct.UID), gid: int(acct.GID), groups: acct.Groups}
	root := testRoot(t)
	userDir := filepath.Join(root, "user")
	rootDir := filepath.Join(root, "private")
	os.Mkdir(userDir, 0o700)
	os.Chown(userDir, int(acct.UID), int(acct.GID))
	os.Mkdir(rootDir, 0o700)

	p := filepath.Join(userDir, "report")
	if err := appendFile(p, []byte("one\n"), c); err != nil {
		t.Fatalf("append as the user: %v", err)
	}
	if err := appendFile(p, []byte("two\n"), c); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(p)
	if uid := st.Sys().(*syscall.Stat_t).Uid; uid != uint32(acct.UID) {
		t.Errorf("file owned by %d, want basalt1", uid)
	}
	if b, _ := os.ReadFile(p); string(b) != "one\ntwo\n" {
		t.Errorf("content %q", b)
	}
	// The user's permissions apply: root's private directory is refused...
	if err := appendFile(filepath.Join(rootDir, "x"), []byte("no"), c); !errors.Is(err, os.ErrPermission) {
		t.Errorf("append into root's directory as the user: %v", err)
	}
	// ...and the shepherd's own identity is intact afterwards, on every
	// thread.
	for i := 0; i < 20; i++ {
		if err := appendFile(filepath.Join(rootDir, "y"), []byte("ok"), nil); err != nil {
			t.Fatalf("root after the user: %v", err)
		}
	}
}
