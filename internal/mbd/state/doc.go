// Package state is mbatchd's in-memory state: every job, array, and the
// administrative state of queues and hosts. It is the fold of the event log:
// Apply is its only writer, called by the raft FSM goroutine in log order,
// and a restart is Restore(snapshot) followed by Apply of the log's tail.
//
// Readers run inside View, under a read lock, and must not keep pointers to
// jobs after View returns or modify what they see. The scheduler reads the
// state the same way: it is a pure function of what it sees in one View.
//
// Memory is kept to the job's own data: a spec is shared by the elements of
// an array, and identical job environments (workflow managers submit
// thousands of jobs from one shell) are stored once.
package state
