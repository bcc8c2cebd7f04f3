package rawfile

import (
	"errors"
	"io/fs"
	"os"
	"strconv"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

func pathErr(op, path string, err error) error { return &fs.PathError{Op: op, Path: path, Err: err} }

// Open opens path with flag (O_CLOEXEC is added) and perm. For local
// files only (see sys.go); a file that may be on a network file system is
// opened with syscall.Open.
func Open(path string, flag int, perm uint32) (int, error) {
	fd, err := openat(_AT_FDCWD, path, flag|syscall.O_CLOEXEC, perm)
	if err != nil {
		return -1, pathErr("open", path, err)
	}
	return fd, nil
}

// Close closes fd.
func Close(fd int) error { return closeFD(fd) }

// Mkdir creates directory path.
func Mkdir(path string, perm uint32) error {
	if err := mkdirat(_AT_FDCWD, path, perm); err != nil {
		return pathErr("mkdir", path, err)
	}
	return nil
}

// Rmdir removes the empty directory path (a cgroup without processes).
func Rmdir(path string) error {
	if err := unlinkat(_AT_FDCWD, path, _AT_REMOVEDIR); err != nil {
		return pathErr("rmdir", path, err)
	}
	return nil
}

// ReadFile reads the whole file at path.
func ReadFile(path string) ([]byte, error) {
	fd, err := Open(path, syscall.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer closeFD(fd)
	buf := make([]byte, 0, 512)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := read(fd, buf[len(buf):cap(buf)])
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
		n, err := write(fd, data)
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
	return withFile("write", path, syscall.O_WRONLY|flag, perm, func(fd int) error { return WriteAll(fd, data) })
}

// withFile opens path with flag (and perm) and calls fn on it; the file is
// closed, a close error reported, and fn's error named after op and path.
func withFile(op, path string, flag int, perm uint32, fn func(fd int) error) error {
	fd, err := Open(path, flag, perm)
	if err != nil {
		return err
	}
	err = fn(fd)
	if cerr := closeFD(fd); err == nil {
		err = cerr
	}
	if err != nil {
		return pathErr(op, path, err)
	}
	return nil
}

// Overwrite opens path with flag (O_WRONLY is added; O_CREAT to make it)
// and perm, and writes data over its content, which is then cut to
// data's length. Unlike O_TRUNC, the file is never emptied first: on ext4
// a file emptied and written again is written to the disk when it is
// closed (auto_da_alloc, made for programs that replace files so), and on
// a virtual machine starting that I/O costs more than the rest.
func Overwrite(path string, data []byte, flag int, perm uint32) error {
	return withFile("overwrite", path, syscall.O_WRONLY|flag, perm, func(fd int) error { return overwrite(fd, data) })
}

// overwrite writes data at the start of the file open at fd (its offset
// 0) and cuts the file after it.
func overwrite(fd int, data []byte) error {
	if err := WriteAll(fd, data); err != nil {
		return err
	}
	return ftruncate(fd, int64(len(data)))
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
			err = syscall.Fsync(fd) // may wait for the disk: the scheduler is told
		}
		if cerr := closeFD(fd); err == nil {
			err = cerr
		}
		if err == nil {
			err = rename(tmp, path)
		}
		if err != nil {
			unlinkat(_AT_FDCWD, tmp, 0)
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

// RemoveAll removes path and, when it is a directory, everything below it,
// with plain system calls (os.RemoveAll opens each directory as an
// os.File). A missing path is not an error. Symbolic links are removed,
// never followed.
func RemoveAll(path string) error {
	err := unlinkat(_AT_FDCWD, path, 0)
	if err == nil || err == syscall.ENOENT {
		return nil
	}
	if err != syscall.EISDIR && err != syscall.EPERM {
		return pathErr("unlink", path, err)
	}
	if err := removeDirAt(_AT_FDCWD, path, 0); err != nil {
		return pathErr("removeall", path, err)
	}
	return nil
}

// RemoveEntries removes what directory path holds, except the entries
// keep accepts, as RemoveAll would remove each.
func RemoveEntries(path string, keep func(name string) bool) error {
	if err := emptyDirAt(_AT_FDCWD, path, 0, keep); err != nil {
		return pathErr("removeentries", path, err)
	}
	return nil
}

// Rename renames from to to (rename(2)).
func Rename(from, to string) error {
	if err := rename(from, to); err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	return nil
}

// Exchange moves from to to, as Rename does, except that to's file, when
// there is one, becomes from's instead of being deleted: both names stay,
// swapped atomically (renameat2 with RENAME_EXCHANGE). It renames when to
// does not exist or the file system cannot exchange.
func Exchange(from, to string) error {
	err := renameat2(from, to, unix.RENAME_EXCHANGE)
	if err == syscall.ENOENT || err == syscall.EINVAL {
		err = rename(from, to)
	}
	if err != nil {
		return &os.LinkError{Op: "exchange", Old: from, New: to, Err: err}
	}
	return nil
}

// ErrNotOwned is Rewrite's answer for a path that is not a regular file of
// the given owner with a single link.
var ErrNotOwned = errors.New("not a regular file of its owner's with one link")

// Rewrite replaces the content of the existing file at path with data,
// and sets its mode, only when it is a regular file (not a symbolic link:
// the last element is not followed) owned by uid, with one link; otherwise
// it changes nothing and returns ErrNotOwned. Its group becomes gid. Made
// for a file in a directory its owner can write: whatever the owner put
// there, Rewrite writes nothing the owner could not have written itself.
func Rewrite(path string, data []byte, uid, gid, mode uint32) error {
	return withFile("rewrite", path, syscall.O_WRONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0,
		func(fd int) error { return rewriteFD(fd, data, uid, gid, mode) })
}

func rewriteFD(fd int, data []byte, uid, gid, mode uint32) error {
	var st syscall.Stat_t
	if err := fstat(fd, &st); err != nil {
		return err
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG || st.Uid != uid || st.Nlink != 1 {
		return ErrNotOwned
	}
	if err := overwrite(fd, data); err != nil {
		return err
	}
	if st.Gid != gid {
		if err := syscall.Fchown(fd, int(uid), int(gid)); err != nil {
			return err
		}
	}
	if st.Mode&0o7777 != mode {
		return fchmod(fd, mode)
	}
	return nil
}

// maxDepth bounds the recursion of RemoveAll.
const maxDepth = 64

// removeDirAt removes directory name (relative to dirfd) and its content;
// entries the listing missed while it was changing are looked for again.
func removeDirAt(dirfd int, name string, depth int) error {
	if depth > maxDepth {
		return syscall.ELOOP
	}
	for try := 0; ; try++ {
		err := emptyDirAt(dirfd, name, depth, nil)
		if err == nil {
			err = unlinkat(dirfd, name, _AT_REMOVEDIR)
		}
		if err == syscall.ENOTEMPTY && try < 3 {
			continue
		}
		if err == syscall.ENOENT {
			return nil
		}
		return err
	}
}

// emptyDirAt removes what directory name (relative to dirfd) holds, but
// the entries keep accepts (keep may be nil).
func emptyDirAt(dirfd int, name string, depth int, keep func(string) bool) error {
	fd, err := openat(dirfd, name, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		if err == syscall.ENOENT {
			return nil
		}
		return err
	}
	buf := make([]byte, 4096)
	var firstErr error
	for {
		n, err := getdents(fd, buf)
		if err != nil {
			closeFD(fd)
			return err
		}
		if n <= 0 {
			break
		}
		var names []string
		_, _, names = syscall.ParseDirent(buf[:n], -1, names)
		for _, e := range names {
			if keep != nil && keep(e) {
				continue
			}
			err := unlinkat(fd, e, 0)
			if err == syscall.EISDIR || err == syscall.EPERM {
				err = removeDirAt(fd, e, depth+1)
			}
			if err != nil && err != syscall.ENOENT && firstErr == nil {
				firstErr = err
			}
		}
	}
	closeFD(fd)
	return firstErr
}

// OpenBlocking is Open for a file that may be on a network file system
// (a job's output): the scheduler is told the call may block.
func OpenBlocking(path string, flag int, perm uint32) (int, error) {
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

// AppendBlocking appends data to path (created with perm), a file that
// may be on a network file system.
func AppendBlocking(path string, data []byte, perm uint32) error {
	fd, err := OpenBlocking(path, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_APPEND, perm)
	if err != nil {
		return err
	}
	for len(data) > 0 {
		n, werr := syscall.Write(fd, data)
		if werr == syscall.EINTR {
			continue
		}
		if werr != nil {
			err = werr
			break
		}
		data = data[n:]
	}
	if cerr := syscall.Close(fd); err == nil {
		err = cerr
	}
	if err != nil {
		return pathErr("write", path, err)
	}
	return nil
}
