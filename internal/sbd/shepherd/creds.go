package shepherd

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// cred is an account whose permissions a file is opened with.
type cred struct {
	uid, gid int
	groups   []int32
}

// OpenAs opens path with the file system identity of uid, gid and groups,
// as openAs does (RES opens users' files this way).
func OpenAs(path string, flags int, perm os.FileMode, uid, gid int, groups []int32) (*os.File, error) {
	return openAs(path, flags, perm, &cred{uid: uid, gid: gid, groups: groups})
}

// openAs opens path with the file system permissions of c (nil: the
// shepherd's own), without a process: a goroutine locks its OS thread,
// switches that thread's file system identity (setgroups, setfsgid and
// setfsuid act per thread through the raw system calls), opens the file and
// switches back. If switching back fails the goroutine ends with the
// thread locked, and the runtime discards the thread.
func openAs(path string, flags int, perm os.FileMode, c *cred) (*os.File, error) {
	if c == nil {
		return os.OpenFile(path, flags, perm)
	}
	type result struct {
		f   *os.File
		err error
	}
	ch := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		orig, err := getgroups()
		if err != nil {
			runtime.UnlockOSThread()
			ch <- result{err: err}
			return
		}
		euid, egid := os.Geteuid(), os.Getegid()
		if err := setThreadCred(c.uid, c.gid, c.groups); err != nil {
			if setThreadCred(euid, egid, orig) == nil {
				runtime.UnlockOSThread()
			}
			ch <- result{err: err}
			return
		}
		f, err := os.OpenFile(path, flags, perm)
		if setThreadCred(euid, egid, orig) != nil {
			// Keep the thread locked: it is destroyed with this goroutine.
			ch <- result{f, err}
			return
		}
		runtime.UnlockOSThread()
		ch <- result{f, err}
	}()
	r := <-ch
	return r.f, r.err
}

// threadAs gives the calling goroutine's (locked) OS thread the file
// system identity of uid, gid and groups; restore switches it back.
func threadAs(uid, gid int, groups []int32) (restore func() error, err error) {
	orig, err := getgroups()
	if err != nil {
		return func() error { return nil }, err
	}
	euid, egid := os.Geteuid(), os.Getegid()
	restore = func() error { return setThreadCred(euid, egid, orig) }
	return restore, setThreadCred(uid, gid, groups)
}

func getgroups() ([]int32, error) {
	gs, err := syscall.Getgroups()
	if err != nil {
		return nil, err
	}
	out := make([]int32, len(gs))
	for i, g := range gs {
		out[i] = int32(g)
	}
	return out, nil
}

// setThreadCred sets the calling thread's supplementary groups and file
// system uid and gid.
func setThreadCred(uid, gid int, groups []int32) error {
	gids := make([]uint32, len(groups))
	for i, g := range groups {
		gids[i] = uint32(g)
	}
	var p unsafe.Pointer
	if len(gids) > 0 {
		p = unsafe.Pointer(&gids[0])
	}
	if _, _, e := syscall.RawSyscall(syscall.SYS_SETGROUPS, uintptr(len(gids)), uintptr(p), 0); e != 0 {
		return fmt.Errorf("setgroups: %w", e)
	}
	syscall.RawSyscall(syscall.SYS_SETFSGID, uintptr(gid), 0, 0)
	if cur, _, _ := syscall.RawSyscall(syscall.SYS_SETFSGID, uintptr(gid), 0, 0); int(cur) != gid {
		return fmt.Errorf("setfsgid(%d) refused", gid)
	}
	syscall.RawSyscall(syscall.SYS_SETFSUID, uintptr(uid), 0, 0)
	if cur, _, _ := syscall.RawSyscall(syscall.SYS_SETFSUID, uintptr(uid), 0, 0); int(cur) != uid {
		return fmt.Errorf("setfsuid(%d) refused", uid)
	}
	return nil
}
