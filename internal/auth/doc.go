// Package auth establishes who is on the other end of a daemon connection.
//
// Every request a daemon serves carries the identity its connection was
// authenticated as. Authentication goes through one interface,
// Authenticator; the scheme in use is Ident: the peer of a local TCP
// connection is identified by the owner of its socket, read from
// /proc/net/tcp and /proc/net/tcp6, in the spirit of LSF's RFC 1413
// identification. It needs no secrets and no setuid binaries, and it cannot be
// spoofed by a local user, but it only works for peers on the same machine
// (all hosts of a local multi-host cluster are). A credential scheme for
// peers on other machines (LSF_AUTH=eauth) plugs into the same interface.
package auth
