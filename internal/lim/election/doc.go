// Package election chooses the master LIM the way LSF does: the master is
// the first available host of the candidate list (LSF_MASTER_LIST, or the
// server hosts in lsf.cluster Host section order). When it fails, the next
// available candidate takes over; when it comes back, the cluster returns
// to it.
//
// Each LIM runs an Election. Every EXINTERVAL (and at once when Poke is
// called, e.g. after a failed load report) it probes the candidates before
// it in the list: the first that answers is the master, or is about to
// become it, unless it names another master that confirms. A
// candidate that finds no earlier candidate alive is master itself. A host
// that is not a candidate asks every candidate in order the same way.
//
// Failover bound: a surviving candidate notices a dead master at its next
// round, at most one interval (plus PROBE_TIMEOUT for a host that does not
// refuse the connection) after the failure, or sooner when its own load
// report fails. Consumers see the result through the small Elector
// interface (Master and Changed), so the mechanics can be replaced.
package election
