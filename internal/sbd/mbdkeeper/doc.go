// Package mbdkeeper places the batch master where the LIMs elected the
// master host, as LSF does: the sbatchd of the master host starts mbatchd
// (Keeper), and an mbatchd that learns another host is master exits
// (Follower), so that after a failover of the master LIM the batch master
// moves to the new master and, when the first candidate returns, back.
//
// Only one mbatchd can hold the cluster's state at a time (the event log's
// directory lock, see raftlog.ErrLocked), so the two halves need not agree
// exactly: an mbatchd started while the old one still runs fails, and the
// keeper tries again. Both wait a grace period before acting on a change,
// so that a brief disagreement between LIMs during an election moves
// nothing. Whatever replaces the election (the HA issue) only has to
// produce the same stream of master events.
package mbdkeeper
