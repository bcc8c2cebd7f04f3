// Package daemon holds the entry points of Basalt's daemons: lim, sbatchd,
// mbatchd and the job shepherd (the host's shepherd process and the per-job
// exec helper). Its commands register with internal/cli's registry when the
// package is linked, which only the daemon binary (cmd/basaltd) and tests
// do: the command binary (cmd/basalt) never links a daemon, raft or the
// libraries daemons use, so that every bsub and bjobs starts fast.
package daemon
