package eauth

import (
	"fmt"
	"net"
	"syscall"
)

// PeerCred returns the uid and gid of the process at the other end of a
// Unix socket, from the kernel.
func PeerCred(c *net.UnixConn) (uid, gid uint32, err error) {
	rc, err := c.SyscallConn()
	if err != nil {
		return 0, 0, err
	}
	var uc *syscall.Ucred
	var serr error
	if err := rc.Control(func(fd uintptr) { uc, serr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED) }); err != nil {
		return 0, 0, err
	}
	if serr != nil {
		return 0, 0, fmt.Errorf("SO_PEERCRED: %w", serr)
	}
	return uc.Uid, uc.Gid, nil
}
