// Package eauth is Basalt's own LSF_AUTH=eauth: credentials sealed with the
// cluster key (LSF_EAUTH_KEY in lsf.sudoers) that name a user or a daemon,
// the host it runs on and the daemon the credential is for.
//
// Who seals: a process that can read the key (root: every daemon, root's
// commands, a setuid-root eauth -c) seals directly; an ordinary user's
// command asks the signing agent of its host's LIM over a Unix socket, and
// the agent takes the uid and gid from the kernel (SO_PEERCRED). A daemon
// verifies a credential in-process (Verifier): the HMAC under the current
// or the not yet expired old key, a time to live of at most five minutes,
// at most five minutes of clock skew, that it is meant for this daemon on
// this host, and that its nonce was not seen before (ReplayCache, a file
// that survives a restart). A site's own eauth program is run as LSF runs
// it instead: eauth -c on the client, one long-lived eauth -s per daemon.
//
// The package uses only the standard library: the command binary links its
// client side.
package eauth
