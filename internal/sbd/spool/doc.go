// Package spool is the on-disk record sbatchd keeps of each job it holds,
// under $BASALT_STATEDIR/<host>/sbatchd/jobs/<jobid>[.<index>]/:
//
//	launch      the api.JobLaunch mbatchd sent (written by sbatchd)
//	params      sbdwire.Params for the shepherd (sbatchd gives them to the
//	            shepherd host directly; written only when a re-adopted
//	            job's spool is rebuilt, and by tests of a lone shepherd)
//	state       the job's final api.JobStatusReport (written by the
//	            shepherd; by sbatchd for a job it reports lost), with a
//	            CRC-32C; state.next is the previous one, kept for the next
//	            write (see Dir.WriteState)
//	acked       written by earlier versions once mbatchd acknowledged the
//	            final report; the spool is now retired at once instead
//	shepherd.log  the exec helper's diagnostics, when a helper ran
//	job/        owned by the job's user: the job file, the script, the host
//	            file, and the output when the job has no -o file (UserDir;
//	            elsewhere when job users cannot traverse the state directory)
//
// The launch and the parameters are replaced atomically (write, rename);
// the state is written to state.next and exchanged with state. So a reader
// never sees a torn record, whichever process dies when; none is synced to
// disk (the loss of the machine loses its jobs anyway, see Dir.WriteState).
// A directory leaves the job keys atomically, by a rename: to
// <key>.gone to be removed (Root.Sweep finishes removals a crash
// interrupted), or to free.<n>, kept by a Pool for a later job.
package spool
