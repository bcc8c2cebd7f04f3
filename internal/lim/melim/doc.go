// Package melim is LSF's master ELIM: it runs the site's external load
// information managers (LSF_SERVERDIR/elim.*), reads their load update
// strings, checks them, merges them (the latest value of a resource wins)
// and hands the merged values to LIM.
//
// Each elim runs with LSF_RESOURCES (the resources LIM expects from this
// host), LSF_MASTER (Y on the master host, N elsewhere) and
// ELIM_ABORT_VALUE in its environment and ELIMARGS on its command line.
// An elim that exits is restarted, at most once every 90 seconds (of the
// Manager's clock.Clock), unless it exited with ELIM_ABORT_VALUE or has
// used up LSF_ELIM_RESTARTS. With LSF_ELIM_BLOCKTIME an elim that leaves a
// partial line for longer than that is logged and restarted; with
// LSF_ELIM_DEBUG every update is logged. One failing elim never affects
// the others: each has its own reader, and the Manager's goroutine owns all
// state.
//
// ParseUpdate parses one load update string: "N name1 value1 ... nameN
// valueN", e.g. "3 tmp2 47.5 nio 344.0 licenses 5".
package melim
