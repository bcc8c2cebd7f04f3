package sched

import (
	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/job"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
)

// PendJobGroupLimit: the job's group, or a group above it, has as many
// started jobs as its limit (bgadd/bgmod -L) allows.
const PendJobGroupLimit int32 = 60

// jobGroupGate holds a job while a job group it lies under (its own or any
// above it) has reached its limit of started jobs (RUN, SSUSP, USUSP; a
// parallel job counts once, as LSF counts it).
type jobGroupGate struct{}

func (jobGroupGate) Name() string { return "job-group-limit" }
func (jobGroupGate) Gate(p *pass, jc *jobCtx) []*api.PendReason {
	gp := jc.j.Spec.JobGroup
	if gp == "" {
		return nil
	}
	for _, a := range state.GroupAncestors(gp) {
		g, ok := p.in.View.JobGroup(a)
		if !ok || !g.HasLimit {
			continue
		}
		if p.groupStarted()[a] >= int(g.Limit) {
			return p.one(PendJobGroupLimit)
		}
	}
	return nil
}

// groupStarted counts the started jobs under every job group, computed
// once per pass from the snapshot (dispatches of the pass add to it).
func (p *pass) groupStarted() map[string]int {
	if p.groupRun != nil {
		return p.groupRun
	}
	p.groupRun = map[string]int{}
	seen := map[state.Key]bool{}
	v := p.in.View
	for _, h := range v.StartedHosts() {
		v.OnHost(h, func(j *state.Job) bool {
			if seen[j.Key] || !job.Started(j.State) || j.Spec.JobGroup == "" {
				return true
			}
			seen[j.Key] = true
			for _, a := range state.GroupAncestors(j.Spec.JobGroup) {
				p.groupRun[a]++
			}
			return true
		})
	}
	return p.groupRun
}

// chargeGroups counts a dispatch of this pass against its job groups.
func (p *pass) chargeGroups(j *state.Job) {
	if p.groupRun == nil || j.Spec.JobGroup == "" {
		return
	}
	for _, a := range state.GroupAncestors(j.Spec.JobGroup) {
		p.groupRun[a]++
	}
}
