// Package sim replays a batch workload through mbatchd's unmodified
// scheduler (internal/mbd/sched) and state machine (internal/mbd/state)
// under a virtual clock, with simulated hosts: no process, no network.
//
// A workload is a list of jobs (ReadSWF reads the Standard Workload Format
// of the Parallel Workloads Archive, gzip or plain). Run folds them into a
// state.State as mbatchd would: each job arrives at its submit time as an
// EvJobNew, every scheduling pass is Scheduler.Schedule over a snapshot of
// the state, each dispatch is applied as an EvJobStart, and a job ends
// after its recorded run time (or at its run limit, killed as sbatchd would
// kill it) with an EvJobStatus. Preemptions and resumptions are carried out
// on the simulated hosts (a suspended job's remaining time waits for its
// resumption). Time moves from one event to the next (arrival, end, the
// plan's NextWake), so a month of a cluster takes seconds when little
// happens and the run is deterministic: the same inputs give the same
// records, byte for byte.
//
// Results are per-job records (Record) and a Summary (utilization, waits,
// bounded slowdown with tau = 10 s), written as SWF, CSV, text or JSON;
// Compare puts two runs of one workload side by side.
package sim
