// Package jobgate is the job gate: a program of a few hundred bytes of
// machine code that the shepherd starts in place of the job file's shell.
//
// A job's process has to wait, before it runs anything of the user's, until
// the shepherd has put it into the job's cgroups and under its limits (the
// gate), and it has to see its own process ID in LS_JOBPID. Neither can be
// done by the fork itself, and /bin/sh on a job file that begins with a
// gate costs a dynamically linked shell, plus a fork for the command, per
// job: on a small VM that was a third of the CPU time of a trivial job.
//
// The gate does those two things and then executes the job's command
// directly when the shepherd found it to be a plain command (words the
// shell would take literally, the first one a program, not a builtin), or
// /bin/sh on the job file otherwise, or when the direct execution fails
// (the shell then runs the command itself and reports as it would). See
// testdata/gate_amd64.S for the program, Argv and Env for how it is
// called.
//
// The gate exists for linux/amd64; elsewhere Supported is false and the
// shepherd keeps the gate in the job file. The image is executed from a
// sealed memfd, so nothing is written on disk and every job user can run
// it.
package jobgate
