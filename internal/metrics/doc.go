// Package metrics serves the daemons' Prometheus metrics with
// prometheus/client_golang: one collector per daemon that reads the
// daemon's state at scrape time (mbatchd's Stats over the latest state view
// and published scheduling results, sbatchd's atomic counters, the master
// LIM's table for this host), mbatchd's pass-duration and commit-latency
// histograms, build info, and the HTTP server on BASALT_HTTP_PORT. It is
// linked into the daemon binary only.
package metrics
