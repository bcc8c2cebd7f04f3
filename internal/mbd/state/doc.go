// Package state is mbatchd's in-memory state: every job, array, and the
// administrative state of queues and hosts. It is the fold of the event log:
// Apply is its only writer, called by the raft FSM goroutine in log order,
// and a restart is Restore(snapshot) followed by Apply of the log's tail.
//
// # Readers see immutable snapshots
//
// Readers (the scheduling pass, bjobs and every other read path, the raft
// snapshot's encoder) never lock against the applier and never see it work:
// View and Latest give an immutable snapshot of the state as of the last
// entry applied, and entries apply meanwhile to new versions of what they
// change, as Nomad schedules from go-memdb's MVCC snapshots. A reader may
// keep a snapshot (and the jobs it read from it) as long as it likes; it
// must not modify them. The scheduler is a pure function of one snapshot.
//
// The state is copy-on-write, in pieces small enough that a write copies
// little:
//
//   - the jobs (and arrays, the host index, the names index) are hash maps in
//     4096 shards behind a 64×64 tree (cowMap): about 250 jobs a shard at a
//     million jobs;
//   - a job's record is copied on its first change after a snapshot, and
//     the copy put where the old one was: in its shard, in its pending
//     list's entry, in its hosts' sets;
//   - a queue's pending list is in chunks of 512 entries behind a chunk
//     index; a job leaving it marks its entry dead (entries hold the sort
//     key, so the list is found by binary search) and the list is rebuilt
//     when the dead are the majority; appending past what a snapshot sees
//     of a chunk shares its array;
//   - small maps (pending lists by queue, queue and host administrative
//     states, the counts per job state) are copied whole.
//
// Every writable object carries the generation it was made in. Taking a
// snapshot after entries applied publishes the applier's tables (a struct
// of map roots and scalars, about 2 KB) through an atomic pointer and starts
// a new generation, so that everything the snapshot reaches becomes
// read-only: the applier writes in place only what it made in the current
// generation and copies anything older first. A reader waits at most for the
// entry being applied (publication shares its mutex); without entries in
// between, readers share one snapshot and take no lock at all.
//
// Costs: nothing per job at rest (a 416-byte record and a 24-byte pending
// entry, as before: the record's back pointer to its list became its
// generation); after each snapshot, the applier's first write to a shard
// copies it and a 64-pointer node (about 8 KB at a million jobs), to a
// pending list its chunk index (16 KB for a million jobs in one queue) and
// the chunk written (12 KB; not for an append), and each job changed is
// copied (416 bytes). Measured (BenchmarkApplyAfterSnapshot, a million
// pending jobs in one queue, a snapshot before every entry, garbage
// collection included): an entry of one submission costs 68 µs and 34 KB
// instead of 2.1 µs and 1.7 KB, one of a dispatch 67 µs and 50 KB instead
// of 2.1 µs and 0.9 KB. A snapshot is taken only by a reader, and only
// after entries applied, so this is paid at most once per entry, and
// entries are batches (group commit). A two-level chunk index would save
// half of a submission's; not done. Garbage is what the applier replaced
// while a snapshot held the old version; the scheduler's cache of its last
// pass's lists holds old records until its next pass.
//
// Memory is kept to the job's own data: a spec is shared by the elements of
// an array, and identical job environments (workflow managers submit
// thousands of jobs from one shell) are stored once.
package state
