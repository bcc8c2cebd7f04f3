package sbd

import (
	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/sbd/sbdwire"
)

// LSBENotChkpntable is LSBE_NOT_CHKPNTABLE.
const LSBENotChkpntable = 10

// chkpntCommand makes a checkpoint request (bchkpnt, bmig, a periodic
// checkpoint) the shepherd's command: it runs LSF_SERVERDIR/echkpnt as the
// job user and answers when echkpnt has ended, with its PID (a numbered
// request, ChkpntReq: once echkpnt has started; the outcome comes in the
// job's status reports, chkpntChanged). It returns
// the Ack status to send at once when the job cannot be checkpointed here.
func chkpntCommand(j *job, s *api.JobSignal, c *sbdwire.Command) *api.Status {
	if j.orphan != nil {
		return &api.Status{Code: LSBESbatchd, Message: "the job's shepherd is gone: it cannot be checkpointed"}
	}
	if j.launch == nil || j.launch.Spec == nil || j.launch.Spec.ChkpntDir == "" {
		return &api.Status{Code: LSBENotChkpntable, Message: "Job is not checkpointable"}
	}
	c.Op, c.ChkpntKill, c.ChkpntForce = sbdwire.OpChkpnt, s.ChkpntKill || s.ChkpntRequeue, s.ChkpntForce
	c.Requeue, c.ChkpntReq = s.ChkpntRequeue, s.ChkpntReq
	if c.TermReason == "" {
		c.TermReason = "TERM_CHKPNT"
	}
	return nil
}

// chkpntChanged reports whether a status has a checkpoint outcome that
// mbatchd has not been sent yet.
func chkpntChanged(j *job, st *api.JobStatusReport) bool {
	return st.ChkpntReq != j.sentChkpnt && (st.ChkpntPhase == api.ChkpntSucceeded || st.ChkpntPhase == api.ChkpntFailed)
}
