package daemon

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// TestInheritedDescriptorsStayHome: a descriptor the daemon inherited
// without close-on-exec reaches a process it starts until
// closeOnExecFrom runs, and not after.
func TestInheritedDescriptorsStayHome(t *testing.T) {
	path := filepath.Join(t.TempDir(), "root-only")
	fd, err := syscall.Open(path, syscall.O_CREAT|syscall.O_WRONLY, 0o600) // no O_CLOEXEC: as inherited
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	child := func() bool {
		err := exec.Command("/bin/sh", "-c", "test -e /proc/self/fd/"+strconv.Itoa(fd)).Run()
		return err == nil
	}
	if !child() {
		t.Fatalf("fd %d did not reach the child before: the test shows nothing", fd)
	}
	if err := closeOnExecFrom(3); err != nil {
		t.Fatal(err)
	}
	if child() {
		t.Fatalf("fd %d still reaches a child process", fd)
	}
	// The daemon itself keeps it.
	if _, err := syscall.Write(fd, []byte("x")); err != nil {
		t.Fatalf("the daemon lost its own descriptor: %v", err)
	}
}
