// Package shepherd is the per-job process that runs one LSF job from start
// to finish, independently of sbatchd: sbatchd starts it (basalt
// job-shepherd SPOOLDIR) in its own session, and it outlives sbatchd, so
// jobs keep running, are watched and limited, and have their true exit
// status recorded while sbatchd is down or restarting.
//
// The shepherd
//   - prepares the job's files in its spool directory (job file, script,
//     host file), creates the job's cgroup, computes its environment;
//   - runs the queue's PRE_EXEC then the job's -E, the job itself, eexec
//     (START and END), the job's -Ep then the queue's POST_EXEC. The job
//     itself is forked from a forker thread and held at the job gate
//     (package jobgate) until it is in its cgroups and limits, which then
//     executes a plain command directly or /bin/sh on the job file (see
//     direct.go); the rest, and a job with eexec or bsub -L, go through the
//     exec helper (basaltd job-shepherd -exec), which joins the cgroup, sets
//     limits, switches to the job user, finds the working directory, opens
//     the job's files as the job user and executes the command; the job
//     report is appended in-process, the file opened with the job user's
//     file system identity on one locked thread;
//   - is the subreaper of the job's processes, so orphans of the job (a
//     double-forked daemon) stay below it even without cgroups;
//   - samples the job's resource usage, enforces its limits (run, CPU,
//     memory, swap, processes, threads), and applies job control
//     (suspend, resume, terminate with escalation, signals, JOB_CONTROLS
//     commands) on request;
//   - keeps the job's state, an api.JobStatusReport with an increasing Seq,
//     in the spool (atomically replaced at every change) and pushes it to
//     every connected sbatchd over its abstract unix socket (SocketName);
//   - appends LSF's job report to the job's output file and exits after
//     writing the final state.
//
// A host process (basaltd job-shepherd -host, Serve) runs the shepherds of
// all the jobs of its host; jobs outlive sbatchd either way.
//
// One goroutine (Run's loop) owns all of the shepherd's state; the reaper,
// the socket readers and the helpers' result readers feed it through
// channels. Process control uses only the standard library.
package shepherd
