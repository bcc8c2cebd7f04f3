package state

import (
	"errors"
	"fmt"

	"github.com/basalt-lsf/basalt/api"
)

// Checkpoint request flags (Job.ChkpntReqFlags).
const (
	ChkpntReqKill    int32 = 1 // bchkpnt -k: the job is killed after a success
	ChkpntReqMigrate int32 = 2 // bmig: the run ends requeued after a success
	ChkpntReqForce   int32 = 4 // echkpnt -f
)

// Checkpoint request errors.
var (
	ErrChkpntBusy = errors.New("Job is already being checkpointed")
	ErrNoChkpnt   = errors.New("not the job's checkpoint in progress")
)

// jobChkpnt applies a checkpoint step: a request, a new period, a
// request's outcome. A request's steps apply only while it is the job's
// pending one, so that an outcome reported twice (to two masters, or
// again in a later report) is recorded once.
func (s *State) jobChkpnt(t int64, ev *api.Event, k *api.EvJobChkpnt) error {
	j, err := s.getW(k.JobID, k.Index)
	if err != nil {
		return err
	}
	switch {
	case k.Requested:
		if j.ChkpntReq != 0 {
			return fmt.Errorf("job %s: %w", j.Key, ErrChkpntBusy)
		}
		if k.ReqSeq != j.ChkpntReqs+1 {
			return fmt.Errorf("job %s: checkpoint request %d, next is %d: %w", j.Key, k.ReqSeq, j.ChkpntReqs+1, ErrStale)
		}
		var f int32
		if k.Kill {
			f |= ChkpntReqKill
		}
		if k.Migrate {
			f |= ChkpntReqMigrate
		}
		if k.Force {
			f |= ChkpntReqForce
		}
		j.ChkpntReq, j.ChkpntReqs, j.ChkpntReqFlags = k.ReqSeq, k.ReqSeq, f
		j.ChkpntReqState, j.ChkpntReqUser = k.JobState, s.strs.get(ev.User)
		return nil
	case k.ReqSeq != 0 && k.ReqSeq != j.ChkpntReq:
		return fmt.Errorf("job %s: checkpoint request %d: %w", j.Key, k.ReqSeq, ErrNoChkpnt)
	}
	if k.SetPeriod {
		j.ChkpntPeriod, j.ChkpntPeriodSet = k.Period, true
	}
	switch k.Phase {
	case api.ChkpntSucceeded:
		j.Chkpnts++
		j.ChkpntTime = t
		fallthrough
	case api.ChkpntFailed:
		if k.ReqSeq != 0 {
			j.ChkpntReq = 0
		}
	}
	return nil
}

// jobMig records a migration request's hosts, where the job's next run
// goes.
func (s *State) jobMig(m *api.EvJobMig) error {
	j, err := s.getW(m.JobID, m.Index)
	if err != nil {
		return err
	}
	j.MigHosts = append([]string(nil), m.Hosts...)
	return nil
}
