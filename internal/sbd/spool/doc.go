// Package spool is the on-disk record sbatchd keeps of each job it holds,
// under $BASALT_STATEDIR/<host>/sbatchd/jobs/<jobid>[.<index>]/:
//
//	launch      the api.JobLaunch mbatchd sent (written by sbatchd)
//	params      sbdwire.Params for the shepherd (sbatchd gives them to the
//	            shepherd host directly; written only when a re-adopted
//	            job's spool is rebuilt, and by tests of a lone shepherd)
//	state       the job's final api.JobStatusReport (written by the
//	            shepherd; by sbatchd for a job it reports lost)
//	acked       written by earlier versions once mbatchd acknowledged the
//	            final report; the spool is now removed at once instead
//	shepherd.log  the exec helper's diagnostics, when a helper ran
//	job/        owned by the job's user: the job file, the script, the host
//	            file, and the output when the job has no -o file (UserDir;
//	            elsewhere when job users cannot traverse the state directory)
//
// Every file is replaced atomically (write, rename), so a reader never sees
// a torn record, whichever process dies when; none is synced to disk (the
// loss of the machine loses its jobs anyway, see Dir.WriteState). A
// directory is removed by renaming it out of the job keys first
// (<key>.gone), so it disappears atomically; Root.Sweep finishes removals a
// crash interrupted.
package spool
