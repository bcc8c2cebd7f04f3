package rawfile

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The system calls here are made without telling the Go scheduler
// (RawSyscall): they are on local files (cgroupfs, /proc, the spool) and
// return in microseconds. A call the scheduler is told about and that
// lasts more than 20 us lets the runtime's monitor hand its P to another
// thread and start polling every 20 us again; in a process making dozens
// of such calls per job, the monitor and the thread hand-offs cost more
// CPU than the calls.

const (
	_AT_FDCWD     = -100
	_AT_REMOVEDIR = 0x200
)

func errnoErr(e syscall.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

func openat(dirfd int, path string, flags int, perm uint32) (int, error) {
	p, err := syscall.BytePtrFromString(path)
	if err != nil {
		return -1, err
	}
	for {
		r, _, e := syscall.RawSyscall6(syscall.SYS_OPENAT, uintptr(dirfd), uintptr(unsafe.Pointer(p)), uintptr(flags), uintptr(perm), 0, 0)
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return -1, e
		}
		return int(r), nil
	}
}

func read(fd int, b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	for {
		r, _, e := syscall.RawSyscall(syscall.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
		if e == syscall.EINTR {
			continue
		}
		return int(r), errnoErr(e)
	}
}

func write(fd int, b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	for {
		r, _, e := syscall.RawSyscall(syscall.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
		if e == syscall.EINTR {
			continue
		}
		return int(r), errnoErr(e)
	}
}

func closeFD(fd int) error {
	_, _, e := syscall.RawSyscall(syscall.SYS_CLOSE, uintptr(fd), 0, 0)
	return errnoErr(e)
}

func pathCall(trap uintptr, dirfd int, path string, arg uintptr) error {
	p, err := syscall.BytePtrFromString(path)
	if err != nil {
		return err
	}
	for {
		_, _, e := syscall.RawSyscall(trap, uintptr(dirfd), uintptr(unsafe.Pointer(p)), arg)
		if e == syscall.EINTR {
			continue
		}
		return errnoErr(e)
	}
}

func unlinkat(dirfd int, name string, flags int) error {
	return pathCall(syscall.SYS_UNLINKAT, dirfd, name, uintptr(flags))
}

func mkdirat(dirfd int, name string, perm uint32) error {
	return pathCall(syscall.SYS_MKDIRAT, dirfd, name, uintptr(perm))
}

func rename(from, to string) error { return renameat2(from, to, 0) }

// renameat2 is renameat2(2) with flags; plain renameat when flags is 0.
func renameat2(from, to string, flags uint) error {
	f, err := syscall.BytePtrFromString(from)
	if err != nil {
		return err
	}
	t, err := syscall.BytePtrFromString(to)
	if err != nil {
		return err
	}
	for {
		cwd := _AT_FDCWD
		var e syscall.Errno
		if flags == 0 {
			_, _, e = syscall.RawSyscall6(syscall.SYS_RENAMEAT, uintptr(cwd), uintptr(unsafe.Pointer(f)), uintptr(cwd), uintptr(unsafe.Pointer(t)), 0, 0)
		} else {
			_, _, e = syscall.RawSyscall6(unix.SYS_RENAMEAT2, uintptr(cwd), uintptr(unsafe.Pointer(f)), uintptr(cwd), uintptr(unsafe.Pointer(t)), uintptr(flags), 0)
		}
		if e == syscall.EINTR {
			continue
		}
		return errnoErr(e)
	}
}

func getdents(fd int, b []byte) (int, error) {
	for {
		r, _, e := syscall.RawSyscall(syscall.SYS_GETDENTS64, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
		if e == syscall.EINTR {
			continue
		}
		return int(r), errnoErr(e)
	}
}

func fstat(fd int, st *syscall.Stat_t) error {
	_, _, e := syscall.RawSyscall(syscall.SYS_FSTAT, uintptr(fd), uintptr(unsafe.Pointer(st)), 0)
	return errnoErr(e)
}

func ftruncate(fd int, size int64) error {
	_, _, e := syscall.RawSyscall(syscall.SYS_FTRUNCATE, uintptr(fd), uintptr(size), 0)
	return errnoErr(e)
}

func fchmod(fd int, mode uint32) error {
	_, _, e := syscall.RawSyscall(syscall.SYS_FCHMOD, uintptr(fd), uintptr(mode), 0)
	return errnoErr(e)
}
