package res

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// openAs opens path with the file system identity of acct (nil: RES's
// own). A goroutine locks its OS thread, switches that thread's
// supplementary groups, fsgid and fsuid (raw system calls: per thread),
// opens the file and switches back; if switching back fails the goroutine
// ends with the thread locked and the runtime discards the thread. This is
// the shepherd's openAs (internal/sbd/shepherd/creds.go), which is not
// exported.
func openAs(path string, flags int, perm os.FileMode, acct *account) (*os.File, error) {
	if acct == nil {
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
		if err := setThreadCred(int(acct.UID), int(acct.GID), acct.Groups); err != nil {
			if setThreadCred(euid, egid, orig) == nil {
				runtime.UnlockOSThread()
			}
			ch <- result{err: err}
			return
		}
		f, err := os.OpenFile(path, flags, perm)
		if setThreadCred(euid, egid, orig) != nil {
			ch <- result{f, err}
			return
		}
		runtime.UnlockOSThread()
		ch <- result{f, err}
	}()
	r := <-ch
	return r.f, r.err
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
