package state

import "github.com/basalt-lsf/basalt/api"

// jobChkpnt applies a checkpoint step: a new period, a success.
func (s *State) jobChkpnt(t int64, k *api.EvJobChkpnt) error {
	j, err := s.getW(k.JobID, k.Index)
	if err != nil {
		return err
	}
	if k.SetPeriod {
		j.ChkpntPeriod, j.ChkpntPeriodSet = k.Period, true
	}
	if k.Phase == api.ChkpntSucceeded {
		j.Chkpnts++
		j.ChkpntTime = t
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
