// Package mbd is mbatchd, the batch master: it accepts submissions and job
// control requests, keeps every job's state, schedules, and drives the
// sbatchd of each host.
//
// # State and durability
//
// The state (package state) is the fold of an event log kept by
// hashicorp/raft (single node for now: failover becomes configuration). A
// request handler validates against the current state, turns the request
// into events (api.Event) and proposes them; the proposer batches concurrent
// proposals into one log entry (group commit), raft makes it durable, and
// the FSM applies it. Only then is the request acknowledged, so nothing
// acknowledged is ever lost. Restart is snapshot + replay.
//
// # Goroutines
//
//	raft FSM        the only writer of the state
//	proposer        batches proposals into log entries
//	scheduler loop  runs a pass whenever something changed (at most every
//	                MBD_SLEEP_TIME otherwise), proposes dispatches, sends launches
//	sbd sessions    one per connected sbatchd: launches, signals, status reports
//	rpc server      one goroutine per call
//
// Volatile information (sbatchd connections, live usage, pending reasons,
// host load) lives outside the state, each piece behind its own lock.
package mbd
