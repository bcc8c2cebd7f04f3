// Package clock abstracts time so that daemon logic (mbd, sched, sbd, lim)
// never reads the wall clock directly. Production code takes a Clock and is
// given Real(); tests pass a *Fake and advance it explicitly, or run under
// testing/synctest with Real().
package clock
