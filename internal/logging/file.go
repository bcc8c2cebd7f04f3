package logging

import (
	"fmt"
	"os"
	"sync"
	"syscall"
)

// File is a log file that can be reopened at the same path (after
// logrotate renamed it). Each Write goes whole to one file.
type File struct {
	path   string
	perm   os.FileMode
	stderr bool // dup each new file onto fd 2 as well

	mu sync.Mutex
	f  *os.File
}

// OpenFile opens (creating with perm, appending) the log file at path.
func OpenFile(path string, perm os.FileMode) (*File, error) {
	f, err := openLog(path, perm)
	if err != nil {
		return nil, err
	}
	return &File{path: path, perm: perm, f: f}, nil
}

// OpenStderrFile is OpenFile for a process whose standard error is its
// log (a shepherd host: runtime panics and its helpers' messages go
// there): the file is also on fd 2, now and after every Reopen.
func OpenStderrFile(path string, perm os.FileMode) (*File, error) {
	lf, err := OpenFile(path, perm)
	if err != nil {
		return nil, err
	}
	lf.stderr = true
	if err := syscall.Dup3(int(lf.f.Fd()), 2, 0); err != nil {
		lf.f.Close()
		return nil, fmt.Errorf("log %s on standard error: %w", path, err)
	}
	return lf, nil
}

func openLog(path string, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, perm)
	if err != nil {
		return nil, fmt.Errorf("log file: %w", err)
	}
	return f, nil
}

// Path is the file's path.
func (lf *File) Path() string { return lf.path }

// Fd is the current file's descriptor (for a child's standard error);
// valid until the next Reopen or Close.
func (lf *File) Fd() uintptr {
	lf.mu.Lock()
	defer lf.mu.Unlock()
	return lf.f.Fd()
}

// Write writes p to the current file.
func (lf *File) Write(p []byte) (int, error) {
	lf.mu.Lock()
	defer lf.mu.Unlock()
	if lf.f == nil {
		return 0, os.ErrClosed
	}
	return lf.f.Write(p)
}

// Reopen opens the path anew and makes it the file written to; the old
// file is closed once no write is on it. On error the old file stays.
func (lf *File) Reopen() error {
	nf, err := openLog(lf.path, lf.perm)
	if err != nil {
		return err
	}
	lf.mu.Lock()
	old := lf.f
	if old == nil {
		lf.mu.Unlock()
		nf.Close()
		return os.ErrClosed
	}
	if lf.stderr {
		if err := syscall.Dup3(int(nf.Fd()), 2, 0); err != nil {
			lf.mu.Unlock()
			nf.Close()
			return fmt.Errorf("log %s on standard error: %w", lf.path, err)
		}
	}
	lf.f = nf
	lf.mu.Unlock()
	return old.Close()
}

// Close closes the file; later writes fail.
func (lf *File) Close() error {
	lf.mu.Lock()
	defer lf.mu.Unlock()
	if lf.f == nil {
		return nil
	}
	err := lf.f.Close()
	lf.f = nil
	return err
}
