// Package testutil holds helpers for tests that wait on what other
// goroutines or processes do.
//
// A test that waits for an event it can receive (a channel, a reply)
// receives it. A test whose code under test takes a clock.Clock drives a
// clock.Fake; one whose waiting is on real timers inside the process runs
// in a testing/synctest bubble. What is left is state held by another
// process (a daemon, a job), which has no event to wait on: Eventually
// polls for it, with a deadline, instead of sleeping a fixed time.
package testutil
