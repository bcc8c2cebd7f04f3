// Package chkpnt is LSF's checkpoint and restart method framework, as the
// echkpnt and erestart programs of LSF_SERVERDIR implement it.
//
// A checkpointable job (bsub -k "dir [period] [method=name]", the queue's
// CHKPNT, the application profile's CHKPNT_DIR/CHKPNT_PERIOD/CHKPNT_METHOD)
// keeps its checkpoint files in dir/<job ID> (LSB_CHKPNT_DIR). sbatchd
// checkpoints it by running LSF_SERVERDIR/echkpnt as the job user:
//
//	echkpnt [-c] [-f] [-k | -s] [-d checkpoint_dir] [-x] process_group_ID
//
// echkpnt runs echkpnt.<method> (LSB_ECHKPNT_METHOD, else "default") from
// LSB_ECHKPNT_METHOD_DIR, else LSF_SERVERDIR, with the same arguments; its
// exit status is the checkpoint's outcome (0 succeeded). A restarted job
// runs erestart in the job's place:
//
//	erestart [-c] [-f] checkpoint_dir
//
// which runs erestart.<method>; that program may write
// "LSB_RESTART_CMD=command" into checkpoint_dir/.restart_cmd, and erestart
// then executes that command, or else the job's own command
// (LSB_ERESTART_USRCMD), with LSB_RESTART=Y. With LSB_ECHKPNT_KEEP_OUTPUT=y
// the methods' standard output and error are kept in echkpnt.out/.err and
// erestart.out/.err of the checkpoint directory; otherwise they are
// discarded, as LSF does.
//
// Two methods are built in, used when no file of their name is found:
//
//   - "default", application-level checkpointing: echkpnt removes
//     chkpnt.done from the checkpoint directory, sends the job's process
//     group SIGUSR1 (LSB_ECHKPNT_SIGNAL names another) and waits for the
//     job to save its own state there and create chkpnt.done (at most
//     BASALT_ECHKPNT_TIMEOUT seconds, default 60); erestart runs the job's
//     command again with LSB_RESTART=Y, and the job resumes from what it
//     saved.
//   - "criu": criu dump of the job's process tree (--leave-running: the
//     shepherd kills the job after a checkpoint with -k) and criu restore.
//     It needs criu and a kernel where `criu check` passes (CRIUCheck).
//
// Programs of a site (echkpnt.<name>, erestart.<name>) take precedence over
// the built-in methods of their name.
package chkpnt
