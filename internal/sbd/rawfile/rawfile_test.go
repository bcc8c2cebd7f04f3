package rawfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		size int
	}{{"empty", 0}, {"small", 10}, {"exact buffer", 512}, {"grows", 5000}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, tt.name)
			want := strings.Repeat("x", tt.size)
			os.WriteFile(p, []byte(want), 0o600)
			got, err := ReadFile(p)
			if err != nil || string(got) != want {
				t.Errorf("ReadFile = %d bytes, %v; want %d", len(got), err, tt.size)
			}
		})
	}
	// A /proc file, whose size stat does not give.
	if b, err := ReadFile("/proc/self/stat"); err != nil || len(b) == 0 {
		t.Errorf("/proc/self/stat: %q, %v", b, err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want ErrNotExist", err)
	}
	var pe *fs.PathError
	if _, err := ReadFile(dir); !errors.As(err, &pe) || pe.Op != "read" || pe.Err != syscall.EISDIR {
		t.Errorf("directory: %v, want a read PathError with EISDIR", err)
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := WriteFile(p, []byte("one"), syscall.O_CREAT|syscall.O_EXCL, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("two"), syscall.O_CREAT|syscall.O_EXCL, 0o640); !errors.Is(err, fs.ErrExist) {
		t.Errorf("O_EXCL over an existing file: %v", err)
	}
	if err := WriteFile(p, []byte("+"), syscall.O_APPEND, 0); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	st, _ := os.Stat(p)
	if string(b) != "one+" || st.Mode().Perm() != 0o640&^umask() {
		t.Errorf("file %q mode %v", b, st.Mode())
	}
	if err := WriteFile(filepath.Join(dir, "no", "such"), nil, syscall.O_CREAT, 0o600); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing directory: %v", err)
	}
	if err := WriteFile("/dev/full", []byte("x"), 0, 0); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("/dev/full: %v, want ENOSPC", err)
	}
}

func umask() os.FileMode {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return os.FileMode(m)
}

func TestReplace(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "state")
	for i, data := range []string{"first", "second, longer", "3"} {
		if err := Replace(p, []byte(data), 0o600, i == 2); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(p); string(b) != data {
			t.Errorf("after replace %d: %q", i, b)
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("%d entries left, want 1", len(ents))
	}
	if err := Replace(filepath.Join(dir, "missing", "x"), nil, 0o600, false); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing directory: %v", err)
	}
	// A relative path (no directory part).
	wd, _ := os.Getwd()
	os.Chdir(dir)
	defer os.Chdir(wd)
	if err := Replace("rel", []byte("r"), 0o600, false); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "rel")); string(b) != "r" {
		t.Errorf("relative replace: %q", b)
	}
}

// BenchmarkReadFile compares a small file read with os.ReadFile.
func BenchmarkReadFile(b *testing.B) {
	p := filepath.Join(b.TempDir(), "f")
	os.WriteFile(p, []byte("12345\n"), 0o600)
	b.Run("rawfile", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			ReadFile(p)
		}
	})
	b.Run("os", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			os.ReadFile(p)
		}
	})
}

// TestRemoveAll: trees of files, directories, links (removed, never
// followed) and entries beyond one getdents buffer go; a missing path is
// fine; an unremovable entry is reported.
func TestRemoveAll(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(dir, "outside")
	os.Mkdir(outside, 0o755)
	os.WriteFile(filepath.Join(outside, "keep"), nil, 0o600)

	tree := filepath.Join(dir, "tree")
	os.MkdirAll(filepath.Join(tree, "a", "b", "c"), 0o755)
	for i := 0; i < 300; i++ { // more than one 4 KB getdents buffer
		os.WriteFile(filepath.Join(tree, "a", fmt.Sprintf("file-with-a-long-name-%03d", i)), nil, 0o600)
	}
	os.WriteFile(filepath.Join(tree, "a", "b", "c", "deep"), []byte("x"), 0o600)
	os.Symlink(outside, filepath.Join(tree, "link-to-dir"))
	os.Mkdir(filepath.Join(tree, "empty"), 0o700)
	if err := RemoveAll(tree); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(tree); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("tree still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "keep")); err != nil {
		t.Errorf("a link's target was removed: %v", err)
	}
	if err := RemoveAll(tree); err != nil {
		t.Errorf("missing path: %v", err)
	}
	f := filepath.Join(dir, "plain")
	os.WriteFile(f, nil, 0o600)
	if err := RemoveAll(f); err != nil {
		t.Errorf("plain file: %v", err)
	}
	if os.Geteuid() != 0 {
		// A directory its owner cannot write: its entries cannot go.
		locked := filepath.Join(dir, "locked")
		os.MkdirAll(filepath.Join(locked, "sub"), 0o755)
		os.Chmod(locked, 0o555)
		defer os.Chmod(locked, 0o755)
		if err := RemoveAll(locked); !errors.Is(err, syscall.EACCES) {
			t.Errorf("unwritable directory: %v, want EACCES", err)
		}
	}
}

func TestAppendBlocking(t *testing.T) {
	p := filepath.Join(t.TempDir(), "out")
	for _, s := range []string{"one\n", "two\n"} {
		if err := AppendBlocking(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if b, _ := os.ReadFile(p); string(b) != "one\ntwo\n" {
		t.Errorf("content %q", b)
	}
	if err := AppendBlocking("/dev/full", []byte("x"), 0o644); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("/dev/full: %v, want ENOSPC", err)
	}
	if err := AppendBlocking(filepath.Join(p, "not-a-dir"), nil, 0o644); !errors.Is(err, syscall.ENOTDIR) {
		t.Errorf("under a file: %v, want ENOTDIR", err)
	}
}

func TestRemoveEntries(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(dir, "outside")
	os.Mkdir(outside, 0o755)
	os.WriteFile(filepath.Join(outside, "f"), nil, 0o600)
	d := filepath.Join(dir, "d")
	os.MkdirAll(filepath.Join(d, "sub", "deep"), 0o755)
	os.MkdirAll(filepath.Join(d, "kept-dir", "x"), 0o755)
	for _, n := range []string{"kept", "gone", "sub/deep/f"} {
		os.WriteFile(filepath.Join(d, n), nil, 0o600)
	}
	os.Symlink(outside, filepath.Join(d, "link"))
	keep := func(n string) bool { return strings.HasPrefix(n, "kept") }
	if err := RemoveEntries(d, keep); err != nil {
		t.Fatal(err)
	}
	var names []string
	ents, _ := os.ReadDir(d)
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "kept kept-dir" {
		t.Errorf("left %v", names)
	}
	if _, err := os.Stat(filepath.Join(d, "kept-dir", "x")); err != nil {
		t.Errorf("a kept directory was emptied: %v", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "f")); err != nil {
		t.Errorf("a link was followed: %v", err)
	}
	if err := RemoveEntries(filepath.Join(dir, "missing"), keep); err != nil {
		t.Errorf("missing directory: %v", err)
	}
}

// TestExchange: both names stay, swapped; without a target, a rename.
func TestExchange(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.WriteFile(a, []byte("A"), 0o600)
	if err := Exchange(a, b); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(a); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("renamed: a is %v", err)
	}
	os.WriteFile(a, []byte("new"), 0o600)
	if err := Exchange(a, b); err != nil {
		t.Fatal(err)
	}
	ga, _ := os.ReadFile(a)
	gb, _ := os.ReadFile(b)
	if string(ga) != "A" || string(gb) != "new" {
		t.Errorf("after the exchange a=%q b=%q", ga, gb)
	}
	if err := Exchange(filepath.Join(dir, "missing"), b); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing source: %v", err)
	}
}

// TestOverwrite: the content is replaced in the same file, longer or
// shorter; O_CREAT makes a missing file, without it a missing file is an
// error.
func TestOverwrite(t *testing.T) {
	f := filepath.Join(t.TempDir(), "f")
	if err := Overwrite(f, []byte("x"), 0, 0o600); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file without O_CREAT: %v", err)
	}
	var first os.FileInfo
	for i, content := range []string{"a long first content", "short", "", "longer than short"} {
		if err := Overwrite(f, []byte(content), syscall.O_CREAT, 0o600); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(f)
		if err != nil || string(b) != content {
			t.Errorf("after writing %q: %q, %v", content, b, err)
		}
		fi, _ := os.Stat(f)
		if i == 0 {
			first = fi
		} else if !os.SameFile(first, fi) {
			t.Errorf("after writing %q: another file", content)
		}
	}
}

// TestRewrite: only a regular file of the owner's with one link is
// written, in place; a link, a second name, a directory, a FIFO (opened
// without blocking) and another owner's file are left as they are.
func TestRewrite(t *testing.T) {
	dir := t.TempDir()
	uid, gid := uint32(os.Getuid()), uint32(os.Getgid())
	f := filepath.Join(dir, "f")
	os.WriteFile(f, []byte("a longer old content"), 0o644)
	before, _ := os.Stat(f)
	if err := Rewrite(f, []byte("new"), uid, gid, 0o700); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(f)
	if b, _ := os.ReadFile(f); string(b) != "new" || err != nil || after.Mode().Perm() != 0o700 || !os.SameFile(before, after) {
		t.Errorf("rewritten: %q, %v, %v", b, after.Mode(), err)
	}

	target := filepath.Join(dir, "target")
	os.WriteFile(target, []byte("target"), 0o600)
	os.Symlink(target, filepath.Join(dir, "link"))
	os.Link(target, filepath.Join(dir, "second"))
	os.Mkdir(filepath.Join(dir, "dir"), 0o700)
	syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600)
	for _, n := range []string{"link", "second", "dir", "fifo", "missing"} {
		if err := Rewrite(filepath.Join(dir, n), []byte("x"), uid, gid, 0o600); err == nil {
			t.Errorf("%s rewritten", n)
		}
	}
	if err := Rewrite(f, []byte("x"), uid+1, gid, 0o600); !errors.Is(err, ErrNotOwned) {
		t.Errorf("another owner's file: %v", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "target" {
		t.Errorf("target written: %q", b)
	}
	if b, _ := os.ReadFile(f); string(b) != "new" {
		t.Errorf("another owner's file written: %q", b)
	}
}
