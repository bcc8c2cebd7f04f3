package mbd

import (
	"path/filepath"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/chkpnt"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/lsberr"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
)

// restartSpec is brestart's submission: the checkpointed job's own
// submission (command, environment, files, job name, checkpoint directory
// and period, rerun options), with the options brestart was given over
// it, restarting from checkpoint_dir/<old job ID> (RestartDir). The job
// gets a new ID, as in LSF. Only the job's owner restarts it while
// mbatchd knows it (within CLEAN_PERIOD of its end); after that, the
// submission the checkpoint saved (RestartSub, sent by brestart when the
// caller owns it) is the caller's ordinary submission.
func (s *Server) restartSpec(v *state.View, cfg *config.Config, id auth.Identity, given *api.JobSpec) (*api.JobSpec, error) {
	oldID, oldIdx, ok := chkpnt.ParseJobDir(filepath.Base(given.RestartDir))
	if !ok {
		return nil, lsberr.Errorf(lsberr.BadJobID, "%s: not a job's checkpoint directory", given.RestartDir)
	}
	var spec *api.JobSpec
	switch old := v.Job(state.Key{ID: oldID, Index: oldIdx}); {
	case old != nil:
		if old.User != id.User {
			return nil, lsberr.New(lsberr.Permission)
		}
		spec = old.Spec.Full()
	case len(given.RestartSub) > 0:
		// Cleaned: the submission the checkpoint saved, the caller's own
		// (validated as any submission of theirs).
		spec = &api.JobSpec{}
		if err := spec.UnmarshalWire(given.RestartSub); err != nil {
			return nil, lsberr.Errorf(lsberr.BadArg, "%s: the saved submission is damaged: %v", given.RestartDir, err)
		}
		spec.RestartSub = nil
	default:
		return nil, lsberr.Errorf(lsberr.NoJob, "Job <%d>: %s", oldID, lsberr.NoJob.Text())
	}
	spec.RestartDir, spec.RestartForce = given.RestartDir, given.RestartForce
	spec.ChkpntDir = filepath.Dir(given.RestartDir)
	if len(given.Queues) > 0 {
		spec.Queues = given.Queues
	}
	if len(given.AskedHosts) > 0 {
		spec.AskedHosts = given.AskedHosts
	}
	if len(given.ResReq) > 0 {
		spec.ResReq = given.ResReq
	}
	if given.BeginTime != 0 {
		spec.BeginTime = given.BeginTime
	}
	if given.Limits != nil {
		spec.Limits = given.Limits
	}
	spec.UID, spec.GID = given.UID, given.GID
	return spec, nil
}
