package eventlog

import (
	"fmt"
	"strings"

	"github.com/basalt-lsf/basalt/api"
)

// Record types of checkpointing and migration (lsbatch.h EVENT_*).
const (
	TypeChkpnt    = "CHKPNT"     // 12
	TypeMig       = "MIG"        // 13
	TypeJobSigAct = "JOB_SIGACT" // 22
)

// JOB_SIGACT actStatus values (lsbatch.h ACT_*).
const (
	ActStart   = 1
	ActPreempt = 2
	ActDone    = 3
	ActFail    = 4
)

// Submission options of a job brestart submitted (lsbatch.h SUB_RESTART,
// SUB_RESTART_FORCE), in JOB_NEW's options.
const (
	SubRestartForce = 0x1000
	SubRestart      = 0x2000
)

// Checkpoint flags (lsbatch.h LSB_CHKPNT_*).
const (
	ChkpntKill  = 0x1
	ChkpntForce = 0x2
	ChkpntMig   = 0x8
)

// JobSigAct is JOB_SIGACT: a job control action sbatchd carries out (here
// the CHKPNT action), started, then done or failed.
type JobSigAct struct {
	JobID        int64
	Period       int64 // checkpoint period, seconds
	PID          int64 // the action's process (echkpnt)
	JStatus      int64
	Reasons      int64
	Flags        int64
	ActStatus    int64
	SignalSymbol string
	Idx          int64
}

// Chkpnt is CHKPNT: a checkpoint's outcome.
type Chkpnt struct {
	JobID  int64
	Period int64
	PID    int64
	OK     int64 // 1 succeeded
	Flags  int64
	Idx    int64
}

// Mig is MIG: a migration request.
type Mig struct {
	JobID      int64
	AskedHosts []string
	UserID     int64
	Idx        int64
	UserName   string
}

// JOB_SIGACT. OL writeJobSigAct.
func (l *JobSigAct) fields(c coder) {
	c.int("jobId", &l.JobID)
	c.int("period", &l.Period)
	c.int("pid", &l.PID)
	c.int("jStatus", &l.JStatus)
	c.int("reasons", &l.Reasons)
	c.int("flags", &l.Flags)
	c.int("actStatus", &l.ActStatus)
	c.str("signalSymbol", &l.SignalSymbol)
	c.int("idx", &l.Idx)
}

// CHKPNT. OL writeChkpnt.
func (l *Chkpnt) fields(c coder) {
	c.int("jobId", &l.JobID)
	c.int("period", &l.Period)
	c.int("pid", &l.PID)
	c.int("ok", &l.OK)
	c.int("flags", &l.Flags)
	c.int("idx", &l.Idx)
}

// MIG. OL writeMig.
func (l *Mig) fields(c coder) {
	c.int("jobId", &l.JobID)
	c.strs("numAskedHosts", &l.AskedHosts)
	c.int("userId", &l.UserID)
	c.int("idx", &l.Idx)
	c.str("userName", &l.UserName)
}

// renderChkpnt renders a checkpoint step: JOB_SIGACT, and CHKPNT with its
// outcome.
func renderChkpnt(k *api.EvJobChkpnt, job *Job, rec func(string, Log) *Record) []*Record {
	var flags int64
	if k.Kill {
		flags |= ChkpntKill
	}
	if k.Migrate {
		flags |= ChkpntMig
	}
	st := int64(k.JobState)
	if st == 0 && job != nil {
		st = int64(job.State)
	}
	act := int64(ActStart)
	switch k.Phase {
	case api.ChkpntSucceeded:
		act = ActDone
	case api.ChkpntFailed:
		act = ActFail
	case api.ChkpntInitiated:
	default:
		return nil // a period change alone
	}
	out := []*Record{rec(TypeJobSigAct, &JobSigAct{JobID: k.JobID, Period: k.Period, PID: int64(k.ActPID), JStatus: st,
		Flags: flags, ActStatus: act, SignalSymbol: "CHKPNT", Idx: int64(k.Index)})}
	if act != ActStart {
		ok := int64(0)
		if act == ActDone {
			ok = 1
		}
		out = append(out, rec(TypeChkpnt, &Chkpnt{JobID: k.JobID, Period: k.Period, PID: int64(k.ActPID), OK: ok, Flags: flags, Idx: int64(k.Index)}))
	}
	return out
}

// sigActText is bhist's line for a JOB_SIGACT of the CHKPNT action.
func sigActText(l *JobSigAct) string {
	what := "Checkpoint"
	if l.Flags&ChkpntMig != 0 {
		what = "Migration checkpoint"
	}
	switch l.ActStatus {
	case ActStart:
		return fmt.Sprintf("%s initiated (actpid %d);", what, l.PID)
	case ActDone:
		return fmt.Sprintf("%s succeeded (actpid %d);", what, l.PID)
	case ActFail:
		return fmt.Sprintf("%s failed (actpid %d);", what, l.PID)
	}
	return fmt.Sprintf("Action <%s> status %d (actpid %d);", l.SignalSymbol, l.ActStatus, l.PID)
}

// migText is bhist's line for a MIG record.
func migText(l *Mig) string {
	s := fmt.Sprintf("Migration requested by user or administrator <%s>", l.UserName)
	if len(l.AskedHosts) > 0 {
		s += "; Specified Hosts <" + strings.Join(l.AskedHosts, ">, <") + ">"
	}
	return s + ";"
}
