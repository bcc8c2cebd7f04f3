// Package lim is the Load Information Manager: the daemon every host runs
// to measure its load (package load), run its elims (package melim), take
// part in master election (package election) and report to the master LIM;
// and, on the master, the cluster's load and configuration picture that
// the ls* commands, mbatchd and sbatchd read (package limclient).
//
// # Service
//
// A LIM listens on its host's address at LSF_LIM_PORT and serves:
//
//	LIM.Ping     its view of the master (election probes, lsid, limclient)
//	LIM.Report   a LIM's load report (master only): load indices, elim
//	             values, static resources, lock; the reply tells the
//	             reporter which elim resources it must run (LSF_RESOURCES)
//	LIM.Cluster  the cluster picture (master only): every host's status,
//	             load, static resources and configuration, shared
//	             resources, lsf.shared's resources, types and models
//	LIM.Control  lsadmin limlock, limunlock, limshutdown, limrestart,
//	             reconfig on this LIM
//	LIM.Watch    a stream of PingReply, one per change of master
//
// # Timing
//
// LIM samples its load every 5 s and reports to the master every
// EXINTERVAL (15 s by default, lsf.cluster Parameters). The master marks a
// host unavail when it has not reported for HOST_INACTIVITY_LIMIT ×
// EXINTERVAL, or at once when its LIM says it is leaving. Election rounds
// run every EXINTERVAL and at once when a report to the master fails.
//
// # Replicated mbatchd
//
// With BASALT_MASTER_REPLICAS > 1 the master LIM follows the raft leader:
// the LIM of each replica host asks its own mbatchd (MBatchd.Leader, one
// connection, every 250 ms) whether it leads, and is eligible for master
// only while it does (election.Config.Eligible); a candidate without a
// replica never is. A change runs an election round at once; a LIM whose
// report the old master refuses, naming another master, looks at once.
// While no replica leads, no LIM is master.
//
// # State
//
// One goroutine (the loop) owns a LIM's mutable state: the latest sample,
// the lock, the elim manager and, on the master, the cluster table. RPC
// handlers and timers hand it functions to run (do). Times come from a
// clock.Clock.
package lim
