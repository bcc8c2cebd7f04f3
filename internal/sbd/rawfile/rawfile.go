package rawfile

import (
	"io/fs"
	"strconv"
	"sync/atomic"
	"syscall"
)

func pathErr(op, path string, err error) error { return &fs.PathError{Op: op, Path: path, Err: err} }

// Open opens path with flag (O_CLOEXEC is added) and perm, retrying on
// EINTR.
func Open(path string, flag int, perm uint32) (int, error) {
	for {
		fd, err := syscall.Open(path, flag|syscall.O_CLOEXEC, perm)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return -1, pathErr("open", path, err)
		}
		return fd, nil
	}
}

// Close closes fd.
func Close(fd int) error { return syscall.Close(fd) }

// ReadFile reads the whole file at path.
func ReadFile(path string) ([]byte, error) {
	fd, err := Open(path, syscall.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	buf := make([]byte, 0, 512)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, pathErr("read", path, err)
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}

// WriteAll writes data to fd.
func WriteAll(fd int, data []byte) error {
	for len(data) > 0 {
		n, err := syscall.Write(fd, data)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		data = data[n:]
	}
	return nil
}

// WriteFile opens path with flag (O_WRONLY is added) and perm and writes
// data; the file is closed, and a close error reported.
func WriteFile(path string, data []byte, flag int, perm uint32) error {
	fd, err := Open(path, syscall.O_WRONLY|flag, perm)
	if err != nil {
		return err
	}
	err = WriteAll(fd, data)
	if cerr := syscall.Close(fd); err == nil {
		err = cerr
	}
	if err != nil {
		return pathErr("write", path, err)
	}
	return nil
}

var tmpSeq atomic.Uint64

// Replace replaces path with data atomically: a new file (perm) next to it
// is written, synced when sync is set, and renamed over it.
func Replace(path string, data []byte, perm uint32, sync bool) error {
	pid := strconv.Itoa(syscall.Getpid())
	dir, base := split(path)
	for {
		tmp := dir + "." + base + "." + pid + "." + strconv.FormatUint(tmpSeq.Add(1), 10)
		fd, err := Open(tmp, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL, perm)
		if err != nil {
			if pe, ok := err.(*fs.PathError); ok && pe.Err == syscall.EEXIST {
				continue // left by a crashed process of the same PID
			}
			return err
		}
		err = WriteAll(fd, data)
		if err == nil && sync {
			err = syscall.Fsync(fd)
		}
		if cerr := syscall.Close(fd); err == nil {
			err = cerr
		}
		if err == nil {
			err = syscall.Rename(tmp, path)
		}
		if err != nil {
			syscall.Unlink(tmp)
			return pathErr("replace", path, err)
		}
		return nil
	}
}

// split cuts path into its directory (with the trailing slash, "" for
// none) and base name.
func split(path string) (dir, base string) {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i] == '/' {
			return path[:i+1], path[i+1:]
		}
	}
	return "", path
}
