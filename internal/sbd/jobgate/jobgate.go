package jobgate

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"github.com/basalt-lsf/basalt/internal/sbd/rawfile"
)

//go:generate go run gen.go

// PIDPlaceholder is the value Env gives LS_JOBPID and LSB_JOBPIDS: room
// for any process ID, which the gate writes over it.
const PIDPlaceholder = "0000000000"

// ExitRefused is the gate's status when it is not released ("go\n" on
// descriptor 3): the shepherd died or gave up before the job ran.
const ExitRefused = 125

// Supported says whether this platform has a gate.
func Supported() bool { return len(code) > 0 }

// Argv is the gate's argument vector: it executes path with words as
// argv (words[0] the command as typed) when path is not empty, else, or
// when that fails, shell on jobFile.
func Argv(shell, jobFile, path string, words []string) []string {
	argv := []string{shell, jobFile}
	if path != "" && len(words) > 0 {
		argv = append(argv, path)
		argv = append(argv, words...)
	}
	return argv
}

// Env returns env with LS_JOBPID and LSB_JOBPIDS set to PIDPlaceholder
// (any earlier values replaced), for the gate to fill.
func Env(env []string) []string {
	out := make([]string, 0, len(env)+2)
	for _, kv := range env {
		if strings.HasPrefix(kv, "LS_JOBPID=") || strings.HasPrefix(kv, "LSB_JOBPIDS=") {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "LS_JOBPID="+PIDPlaceholder, "LSB_JOBPIDS="+PIDPlaceholder)
}

// Gate is the gate's image in a sealed memfd, executable by any user as
// Path for as long as the Gate is open.
type Gate struct {
	fd   int
	Path string
}

// minFD keeps the memfd clear of the descriptors a fork sets up for the
// job (0 to 3, the gate's), which would cover it in the child.
const minFD = 10

// Open puts the gate's image into a sealed memfd.
func Open() (*Gate, error) {
	if !Supported() {
		return nil, errors.ErrUnsupported
	}
	name, _ := syscall.BytePtrFromString("basalt-jobgate")
	const mfdCloexec, mfdAllowSealing = 0x1, 0x2
	r, _, e := syscall.Syscall(sysMemfdCreate, uintptr(unsafe.Pointer(name)), mfdCloexec|mfdAllowSealing, 0)
	if e != 0 {
		return nil, fmt.Errorf("job gate: memfd_create: %w", e)
	}
	wfd := int(r)
	defer syscall.Close(wfd)
	if err := rawfile.WriteAll(wfd, Image()); err != nil {
		return nil, fmt.Errorf("job gate: write: %w", err)
	}
	const fAddSeals = 1033
	const sealAll = 0x1 | 0x2 | 0x4 | 0x8 // F_SEAL_SEAL, SHRINK, GROW, WRITE
	if _, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(wfd), fAddSeals, sealAll); e != 0 {
		return nil, fmt.Errorf("job gate: seal: %w", e)
	}
	// Executed through a read-only descriptor: a writable one open on the
	// file would make execve fail with ETXTBSY.
	rfd, err := syscall.Open("/proc/self/fd/"+strconv.Itoa(wfd), syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("job gate: reopen: %w", err)
	}
	fd, err := dupAbove(rfd, minFD)
	syscall.Close(rfd)
	if err != nil {
		return nil, fmt.Errorf("job gate: %w", err)
	}
	return &Gate{fd: fd, Path: "/proc/self/fd/" + strconv.Itoa(fd)}, nil
}

// Check runs the gate once, released at once, on an empty job file: it
// must execute (from the memfd) and end with status 0. The caller must not
// be reaping every child meanwhile.
func (g *Gate) Check() error {
	null, err := os.Open(os.DevNull)
	if err != nil {
		return err
	}
	defer null.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		return err
	}
	defer pw.Close()
	p, err := os.StartProcess(g.Path, Argv("/bin/sh", os.DevNull, "", nil), &os.ProcAttr{
		Dir: "/", Env: []string{}, Files: []*os.File{null, null, null, pr}})
	pr.Close()
	if err != nil {
		return fmt.Errorf("job gate: %w", err)
	}
	_, werr := pw.WriteString("go\n")
	st, err := p.Wait()
	switch {
	case err != nil:
		return fmt.Errorf("job gate: %w", err)
	case werr != nil:
		return fmt.Errorf("job gate: release: %w", werr)
	case !st.Success():
		return fmt.Errorf("job gate: the check ended with %v", st)
	}
	return nil
}

// Close releases the memfd.
func (g *Gate) Close() error { return syscall.Close(g.fd) }

func dupAbove(fd, min int) (int, error) {
	r, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_DUPFD_CLOEXEC, uintptr(min))
	if e != 0 {
		return -1, fmt.Errorf("dup: %w", e)
	}
	return int(r), nil
}

// Assemble assembles a gate source with GNU as and returns the bytes of
// its .text (go generate and the tests use it; as and objcopy must be
// installed). tmp holds the intermediate files.
func Assemble(src, tmp string) ([]byte, error) {
	dir, err := os.MkdirTemp(tmp, "jobgate")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	obj, bin := filepath.Join(dir, "gate.o"), filepath.Join(dir, "gate.bin")
	for _, argv := range [][]string{{"as", "-o", obj, src}, {"objcopy", "-O", "binary", "-j", ".text", obj, bin}} {
		var stderr bytes.Buffer
		c := exec.Command(argv[0], argv[1:]...)
		c.Stderr = &stderr
		if err := c.Run(); err != nil {
			return nil, fmt.Errorf("%s: %w: %s", argv[0], err, strings.TrimSpace(stderr.String()))
		}
	}
	return os.ReadFile(bin)
}
