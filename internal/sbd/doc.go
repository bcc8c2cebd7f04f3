// Package sbd is sbatchd, the execution daemon of LSF Batch on every
// server host: it keeps a session with mbatchd, starts the jobs mbatchd
// dispatches, forwards their state, applies job control, suspends and
// resumes jobs for load and run windows, and survives its own restarts and
// mbatchd's.
//
// # Processes
//
// Each job runs under its own shepherd process (package shepherd), started
// by sbatchd in a new session and owning the job from pre-execution to the
// job report; sbatchd talks to it over an abstract unix socket named after
// the job (shepherd.SocketName), so a restarted sbatchd, even one that lost
// its state directory, finds every live job again. The shepherd keeps the
// job's state in the job's spool directory (package spool), so the true
// final status of a job that ended while sbatchd was down is known.
//
// # The session with mbatchd
//
// sbatchd dials mbatchd (Config.Master) and opens "MBatchd.SbdSession":
//
//  1. it sends SbdHello listing a report for every job it holds, finished
//     ones whose final report mbatchd has not acknowledged included;
//  2. mbatchd answers SbdWelcome with the jobs it believes run here that the
//     hello did not mention: sbatchd re-adopts those whose shepherd or
//     cgroup is alive and reports the others lost (EXIT, TERM_UNKNOWN,
//     final), never starting them again;
//  3. JobLaunch starts a job (Ack with the shepherd's PID, or a Status with
//     the reason it could not start); JobSignal controls one (Ack, with
//     LSBE_NO_JOB or LSBE_JOB_FINISH when it cannot); a numbered checkpoint
//     request (ActChkpnt with ChkpntReq) is acknowledged once echkpnt has
//     started, and its outcome rides in the job's reports (ChkpntReq,
//     ChkpntPhase, ChkpntPID, ChkpntErr) until the run's final one;
//  4. sbatchd sends JobStatusReports: every state change at once, usage at
//     most every SBD_SLEEP_TIME and only when CPU time, memory or swap moved
//     by more than 10% or processes appeared; the final report (Final) of a
//     run is kept, on disk, until mbatchd acknowledges its Seq.
//
// Report sequence numbers are allocated host-wide (strictly increasing,
// persisted, floored by the clock), so they increase for every job and an
// Ack{Seq} names exactly one final report. When the session breaks, jobs
// keep running and sbatchd reconnects with exponential backoff.
//
// # Concurrency
//
// One goroutine (the loop in Daemon.Run) owns the job table and the
// session; the session reader and writer, one watcher per shepherd
// connection and the RPC handlers talk to it through channels.
package sbd
