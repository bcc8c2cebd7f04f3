// Package procfs reads the process information sbatchd and the job shepherd
// need from /proc: a process's stat line (parent, process group, session,
// CPU times, threads, memory, start time), the process table with its parent
// links, and the aggregate usage of a set of processes (LSF's PIM).
package procfs
