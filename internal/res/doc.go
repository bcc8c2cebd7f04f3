// Package res is the remote execution server (RES, one per server host at
// LSF_RES_PORT): it runs tasks for lsrun and lsgrun as the authenticated
// user (RES.Run: argv, environment and working directory as the client
// sends them, stdin/stdout/stderr streamed, signals forwarded, a
// pseudo-terminal on request with its window size), and reads and writes
// files as that user for lsrcp and bsub -f (RES.Fetch, RES.Store).
//
// A task runs in a session of its own (Setsid): its process group gets
// the client's signals, and when the task ends, the client goes away or
// RES shuts down, every process of the session is killed, so none is left
// behind. File I/O switches one locked OS thread's file system identity to
// the user's (setfsuid, setfsgid, setgroups act per thread through the
// raw system calls) for the open only: no process per transfer, and the
// kernel checks the user's permissions.
package res
