package sbd

import (
	"context"
	"sync/atomic"
)

// Counters count what sbatchd did since it started, for its metrics. The
// daemon's goroutines add with atomics; a scrape reads them without
// waiting for anything.
type Counters struct {
	// JobsStarted are the jobs whose shepherd started; JobStartFailures
	// the launches that failed (the job goes back to mbatchd).
	JobsStarted, JobStartFailures atomic.Uint64
	// ShepherdErrors are shepherds that could not be started or reached,
	// and jobs lost with their shepherd.
	ShepherdErrors atomic.Uint64
	// CgroupErrors are job cgroups that could not be removed or opened.
	CgroupErrors atomic.Uint64
}

// Counters returns the daemon's counters (safe from any goroutine).
func (d *Daemon) Counters() *Counters { return &d.ctr }

// Jobs is the number of jobs sbatchd follows on this host, asked of its
// main loop; false when the daemon has stopped or ctx ended first.
func (d *Daemon) Jobs(ctx context.Context) (int, bool) {
	var n atomic.Int64
	ok := d.query(ctx, func() { n.Store(int64(len(d.jobs))) })
	return int(n.Load()), ok
}
