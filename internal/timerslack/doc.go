// Package timerslack sets the timer slack of Basalt's busy daemons
// (mbatchd, sbatchd and the shepherd host) and gives job processes back the
// slack the daemon was started with.
//
// Why: the Go runtime's monitor thread (sysmon) sleeps 20 us at a time for
// as long as the process keeps working, doubling the sleep only after 50
// quiet rounds, and starts over each time the process wakes from idle. A
// daemon that wakes for every job start and end therefore sleeps and wakes
// tens of times per job, and on a virtual machine each of these short
// sleeps costs about 30 us of CPU. In the 4-host throughput benchmark
// (2,000 /bin/true jobs) a 1 ms slack took the machine from 43 to 17
// sleeps, from 128 to 75 context switches and from 15.6 to 12.2 ms of CPU
// per job.
// A timer slack only lets the kernel fire a thread's timers later, by at
// most the slack: the daemons' own timeouts are milliseconds or more, and
// the network poller already counts in milliseconds.
//
// The slack is a property of each thread, inherited by the threads and
// processes it creates and kept across execve; the monitor thread exists
// before any of Basalt's code runs. So a daemon raises the slack of its
// first thread and executes itself again (Raise): every thread of the new
// image, the monitor's included, starts with it. The slack it had before
// is kept in the environment (EnvJob) for the processes it starts for jobs
// (SetThread on the thread that forks them), so that a job's timers are as
// precise as they would be outside the batch system.
package timerslack
