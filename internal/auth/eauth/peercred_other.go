//go:build !linux

package eauth

import (
	"errors"
	"net"
)

// PeerCred is Linux's SO_PEERCRED: elsewhere the signing agent is not
// served (commands there use a setuid eauth -c).
func PeerCred(c *net.UnixConn) (uid, gid uint32, err error) {
	return 0, 0, errors.New("peer credentials of a Unix socket need Linux")
}
