// Package cluster runs a local multi-host Basalt cluster on one machine:
// host i is the set of daemons (lim, sbatchd, and mbatchd on the master)
// bound to its own loopback address 127.0.1.i, with its own directories, all
// from the embedded default configuration. The basalt cluster and basalt dev
// commands and the script tests use it.
//
// A cluster directory holds conf/ (LSF_ENVDIR), work/ (LSB_SHAREDIR), log/,
// bin/ (links to the binary under every command name) and cluster.pids (the
// daemons started, for Down).
package cluster
