// Package rawfile reads and writes small files (cgroup and /proc files,
// spool records, job files) with plain system calls. An os.File registers
// every descriptor with the runtime's poller, which costs two to five
// system calls more per file (fcntl, epoll_ctl), more than the I/O itself
// for the few hundred bytes these files hold; sbatchd's shepherds open
// dozens of them per job.
//
// Errors are *fs.PathError wrapping the errno, as package os returns them
// (errors.Is(err, fs.ErrNotExist) works).
package rawfile
