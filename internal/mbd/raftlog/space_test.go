package raftlog

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/hashicorp/raft"
)

// TestNoSpaceCutBack: an append whose write finds no space leaves nothing
// of its batch in the segment (a reopened log ends before it), does not
// fail the store, gives the reserve back, and the same indexes append once
// there is space.
func TestNoSpaceCutBack(t *testing.T) {
	dir := t.TempDir()
	inject := true
	s := openT(t, dir, Options{ReserveSize: 64 << 10, crash: func(step string) error {
		if step == "append:write" && inject {
			return syscall.ENOSPC
		}
		return nil
	}})
	inject = false
	mustStore(t, s, batch(1, 5, 1, 100))
	if _, err := os.Stat(filepath.Join(dir, reserveName)); err != nil {
		t.Fatalf("no reserve after Open: %v", err)
	}
	inject = true
	if err := s.StoreLogs(batch(6, 3, 1, 100)); !errors.Is(err, ErrNoSpace) {
		t.Fatalf("StoreLogs on a full disk: %v, want ErrNoSpace", err)
	}
	if !s.NoSpace() {
		t.Fatal("NoSpace false after a write found no space")
	}
	if _, err := os.Stat(filepath.Join(dir, reserveName)); !os.IsNotExist(err) {
		t.Fatalf("reserve still held on a full disk: %v", err)
	}
	checkRange(t, s, 1, 5, term1, 100)
	// Raft's term goes to disk whatever happens.
	if err := s.SetUint64([]byte("CurrentTerm"), 2); err != nil {
		t.Fatalf("SetUint64 with no space for the log: %v", err)
	}
	inject = false
	if !s.Recover() || s.NoSpace() {
		t.Fatal("Recover found no space on a disk that has it")
	}
	mustStore(t, s, batch(6, 3, 1, 100))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	r := openT(t, dir, Options{})
	defer r.Close()
	checkRange(t, r, 1, 8, term1, 100)
	if v, _ := r.GetUint64([]byte("CurrentTerm")); v != 2 {
		t.Fatalf("CurrentTerm = %d after reopening, want 2", v)
	}
}

// TestFullFileSystem runs the store on a real, small file system (tmpfs)
// and fills it: appends fail with ErrNoSpace and leave no partial record,
// the term is still saved (raft panics when it cannot), and once space is
// freed the store takes its reserve back and appends again.
func TestFullFileSystem(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=8m"); err != nil {
		t.Skipf("mount tmpfs: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	logDir := filepath.Join(dir, "log")
	s := openT(t, logDir, Options{ReserveSize: 128 << 10})
	defer s.Close()
	filler := filepath.Join(dir, "filler")
	fill(t, filler)
	next := uint64(1)
	var err error
	for ; next < 10000; next++ {
		if err = s.StoreLogs(batch(next, 1, 1, 4000)); err != nil {
			break
		}
	}
	if !errors.Is(err, ErrNoSpace) || !s.NoSpace() {
		t.Fatalf("appending on a full file system: %v (NoSpace %v), want ErrNoSpace", err, s.NoSpace())
	}
	last := next - 1
	for term := uint64(2); term < 50; term++ {
		if err := s.SetUint64([]byte("CurrentTerm"), term); err != nil {
			t.Fatalf("saving term %d on a full file system: %v", term, err)
		}
	}
	fill(t, filler+"2") // whatever the reserve gave back
	if s.Recover() {
		t.Fatal("Recover claims space on a full file system")
	}
	os.Remove(filler)
	os.Remove(filler + "2")
	if !s.Recover() {
		t.Fatal("Recover found no space after the filler was removed")
	}
	mustStore(t, s, batch(next, 3, 1, 4000))
	s.Close()
	r := openT(t, logDir, Options{ReserveSize: 128 << 10})
	defer r.Close()
	if r.Repaired() != nil {
		t.Fatalf("reopening found damage: %+v", r.Repaired())
	}
	checkRange(t, r, 1, last+3, term1, 4000)
	if v, _ := r.GetUint64([]byte("CurrentTerm")); v != 49 {
		t.Fatalf("CurrentTerm = %d, want 49", v)
	}
}

// TestFullFileSystemKeepsReserve: once an append found no space, appends
// of commands (a follower's raft retries the leader's entries) are refused
// without touching the space the reserve gave back, which stays for
// raft's term and a new leader's no-op entry; once space returns, appends
// go on without anyone calling Recover (a follower has no proposer to).
// Before, the follower's retries used the reserve up and raft panicked
// at the next term ("failed to save current term").
func TestFullFileSystemKeepsReserve(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=8m"); err != nil {
		t.Skipf("mount tmpfs: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	const reserve = 256 << 10
	s := openT(t, filepath.Join(dir, "log"), Options{ReserveSize: reserve})
	defer s.Close()
	filler := filepath.Join(dir, "filler")
	fill(t, filler)
	next := uint64(1)
	for ; next < 10000; next++ {
		if err := s.StoreLogs(batch(next, 1, 1, 1000)); err != nil {
			if !errors.Is(err, ErrNoSpace) {
				t.Fatal(err)
			}
			break
		}
	}
	var st syscall.Statfs_t
	freeBytes := func() int64 {
		if err := syscall.Statfs(dir, &st); err != nil {
			t.Fatal(err)
		}
		return int64(st.Bavail) * st.Bsize
	}
	if f := freeBytes(); f < reserve {
		t.Fatalf("%d bytes free after the reserve was given back, want at least %d", f, reserve)
	}
	for i := 0; i < 500; i++ {
		if err := s.StoreLogs(batch(next, 1, 1, 1000)); !errors.Is(err, ErrNoSpace) {
			t.Fatalf("append %d of a command on a full file system: %v, want ErrNoSpace", i, err)
		}
	}
	if f := freeBytes(); f < reserve {
		t.Fatalf("refused appends used the reserve: %d bytes free, want at least %d", f, reserve)
	}
	for term := uint64(2); term < 50; term++ {
		if err := s.SetUint64([]byte("CurrentTerm"), term); err != nil {
			t.Fatalf("saving term %d: %v", term, err)
		}
	}
	noop := &raft.Log{Index: next, Term: 49, Type: raft.LogNoop}
	if err := s.StoreLogs([]*raft.Log{noop}); err != nil {
		t.Fatalf("a new leader's no-op entry on a full file system: %v", err)
	}
	next++
	os.Remove(filler)
	mustStore(t, s, batch(next, 3, 49, 1000))
	if s.NoSpace() {
		t.Fatal("NoSpace still set after appends went on")
	}
}

// fill writes path until the file system is full.
func fill(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		if isNoSpace(err) {
			return
		}
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			if isNoSpace(err) {
				return
			}
			t.Fatal(err)
		}
	}
}
