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
// Eligibility: with Config.Eligible set, a candidate makes itself master
// only while it is eligible, and answers probes as Ineligible otherwise;
// probers pass over an ineligible candidate exactly as over a dead one.
// With mbatchd replicated, the one eligible candidate is the host whose
// mbatchd leads the raft group, so the master LIM follows the raft leader,
// and there is none while no replica leads. Reconsider runs a round at
// once when eligibility changes (Poke waits Retry first).
//
// Heard: LIMs tell each other their master (in probes, and a LIM that
// becomes or stops being master tells every LIM at once). A LIM that hears
// a peer claim a mastership it does not give it, or deny the mastership it
// names, runs a round at once, at most one per HintGap; the round verifies
// the claim by probing, so a false claim moves nobody.
//
// Failover bound: a surviving candidate notices a dead master at its next
// round, at most one interval (plus PROBE_TIMEOUT for a host that does not
// refuse the connection) after the failure, or sooner when its own load
// report fails. Consumers see the result through the small Elector
// interface (Master and Changed), so the mechanics can be replaced.
package election
