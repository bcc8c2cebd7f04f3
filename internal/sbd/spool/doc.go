// Package spool is the on-disk record sbatchd keeps of each job it holds,
// under $BASALT_STATEDIR/<host>/sbatchd/jobs/<jobid>[.<index>]/:
//
//	launch      the api.JobLaunch mbatchd sent (written by sbatchd)
//	params      sbdwire.Params for the shepherd (written by sbatchd)
//	state       the job's latest api.JobStatusReport (written by the shepherd)
//	acked       present once mbatchd acknowledged the final report
//	shepherd.log
//	job/        owned by the job's user: the job file, the script, the host
//	            file, and the output when the job has no -o file (UserDir;
//	            elsewhere when job users cannot traverse the state directory)
//
// Every file is replaced atomically (write, fsync, rename), so a reader
// never sees a torn record, whichever process dies when.
package spool
