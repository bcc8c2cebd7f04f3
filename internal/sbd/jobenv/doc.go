// Package jobenv computes, from a job's launch record, what its processes
// see: the environment LSF sets for a batch job (LSB_JOBID, LSB_HOSTS,
// LSB_MCPU_HOSTS ...), the job file sbatchd writes (LSB_JOBFILENAME) with the
// queue's job starter applied, the host file (LSB_DJOB_HOSTFILE), output
// file names with %J and %I expanded, and the candidate working directories
// (the submission directory, the same path under the execution home, /tmp).
// Everything here is a pure function of its arguments.
package jobenv
