package mbd

import (
	"context"
	"strings"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/auth"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/job"
	"github.com/basalt-lsf/basalt/internal/lsberr"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
)

// jobGroup handles bgadd, bgmod and bgdel. Anyone may create a group (and
// owns it); a group is modified or deleted by root, a cluster
// administrator, its owner or the owner of a group above it.
func (s *Server) jobGroup(ctx context.Context, id auth.Identity, req *api.JobGroupRequest) (*api.Status, error) {
	cfg := s.cfg.Current()
	p, ok := state.CleanGroupPath(req.Path)
	if !ok {
		return status(lsberr.Errorf(lsberr.BadArg, "%s: Bad job group name", req.Path)), nil
	}
	if p == "/" {
		return status(lsberr.Errorf(lsberr.BadArg, "The root job group cannot be changed")), nil
	}
	if req.HasLimit && req.Limit < 0 {
		return status(lsberr.Errorf(lsberr.BadArg, "%d: The job group limit must be between 0 and 2147483647", req.Limit)), nil
	}
	var ev *api.EvJobGroup
	var refused error
	s.st.View(func(v *state.View) {
		g, exists := v.JobGroup(p)
		switch req.Op {
		case api.JobGroupAdd:
			if exists {
				refused = lsberr.Errorf(lsberr.BadArg, "Job group <%s> already exists", p)
				return
			}
			if req.HasLimit {
				if err := limitFits(v, p, req.Limit); err != nil {
					refused = err
					return
				}
			}
			ev = &api.EvJobGroup{Op: api.JobGroupAdd, Path: p, Owner: id.User, HasLimit: req.HasLimit, Limit: req.Limit}
		case api.JobGroupModify, api.JobGroupDelete:
			if !exists {
				refused = lsberr.Errorf(lsberr.BadArg, "Job group <%s> does not exist", p)
				return
			}
			if !s.mayManageGroup(v, cfg, id, p) {
				refused = lsberr.New(lsberr.Permission)
				return
			}
			if req.Op == api.JobGroupDelete {
				if n := unfinishedIn(v, p); n > 0 {
					refused = lsberr.Errorf(lsberr.BadArg, "Job group <%s> has %d unfinished job(s); it cannot be deleted", p, n)
					return
				}
				ev = &api.EvJobGroup{Op: api.JobGroupDelete, Path: p}
				return
			}
			ev = &api.EvJobGroup{Op: api.JobGroupModify, Path: p, HasLimit: g.HasLimit, Limit: g.Limit, Owner: g.Owner}
			switch {
			case req.ClearLimit:
				ev.HasLimit, ev.Limit = false, 0
			case req.HasLimit:
				if err := limitFits(v, p, req.Limit); err != nil {
					refused = err
					return
				}
				ev.HasLimit, ev.Limit = true, req.Limit
			}
			if req.Owner != "" {
				ev.Owner, ev.SetOwner = req.Owner, true
			}
		default:
			refused = lsberr.Errorf(lsberr.BadArg, "job group: unknown operation %d", req.Op)
		}
	})
	if refused != nil {
		return status(refused), nil
	}
	if err := s.propose(ctx, &api.Event{User: id.User, UID: int32(id.UID), JobGroup: ev}); err != nil {
		return nil, err
	}
	s.poke()
	return &api.Status{}, nil
}

func status(err error) *api.Status { return lsbStatus(err) }

// mayManageGroup: root, a cluster administrator, the group's owner or the
// owner of a group above it.
func (s *Server) mayManageGroup(v *state.View, cfg *config.Config, id auth.Identity, p string) bool {
	if s.isAdmin(id, cfg) {
		return true
	}
	for _, a := range state.GroupAncestors(p) {
		if g, ok := v.JobGroup(a); ok && g.Owner == id.User {
			return true
		}
	}
	return false
}

// limitFits checks LSF's rule for a group's limit: no more than any group
// above it allows, no less than any group below it has.
func limitFits(v *state.View, p string, limit int32) error {
	anc := state.GroupAncestors(p)
	for _, a := range anc[:len(anc)-1] {
		if g, ok := v.JobGroup(a); ok && g.HasLimit && limit > g.Limit {
			return lsberr.Errorf(lsberr.BadArg, "The job group limit %d exceeds the limit %d of its parent job group <%s>", limit, g.Limit, a)
		}
	}
	for _, g := range v.JobGroups() {
		if strings.HasPrefix(g.Path, p+"/") && g.HasLimit && g.Limit > limit {
			return lsberr.Errorf(lsberr.BadArg, "The job group limit %d is less than the limit %d of its child job group <%s>", limit, g.Limit, g.Path)
		}
	}
	return nil
}

// inGroup reports whether a job's group path lies at or under p.
func inGroup(jobGroup, p string) bool {
	return jobGroup == p || strings.HasPrefix(jobGroup, p+"/")
}

func unfinishedIn(v *state.View, p string) int {
	n := 0
	v.Jobs(func(j *state.Job) bool {
		if !job.Finished(j.State) && inGroup(j.Spec.JobGroup, p) {
			n++
		}
		return true
	})
	return n
}

// jobGroups answers bjgroup: every group (or, with a path, that group and
// its subgroups; with a trailing slash, that group alone) with its counts,
// subgroups included, of jobs (or of slots, -N).
func (s *Server) jobGroups(ctx context.Context, id auth.Identity, req *api.JobGroupsRequest) (*api.JobGroupsReply, error) {
	reply := &api.JobGroupsReply{}
	only := strings.HasSuffix(req.Path, "/") && req.Path != "/"
	want := ""
	if req.Path != "" {
		p, ok := state.CleanGroupPath(req.Path)
		if !ok {
			return nil, lsberr.Errorf(lsberr.BadArg, "%s: Bad job group name", req.Path)
		}
		want = p
	}
	s.st.View(func(v *state.View) {
		byPath := map[string]*api.JobGroupInfo{}
		for _, g := range v.JobGroups() {
			if want != "" && want != "/" && !(g.Path == want || !only && strings.HasPrefix(g.Path, want+"/")) {
				continue
			}
			info := &api.JobGroupInfo{Path: g.Path, Owner: g.Owner, HasLimit: g.HasLimit, Limit: g.Limit}
			byPath[g.Path] = info
			reply.Groups = append(reply.Groups, info)
		}
		if len(byPath) == 0 {
			return
		}
		v.Jobs(func(j *state.Job) bool {
			gp := j.Spec.JobGroup
			if gp == "" {
				return true
			}
			if c, ok := state.CleanGroupPath(gp); ok {
				gp = c
			}
			n := int32(1)
			if req.Slots {
				n = j.Slots()
			}
			for _, a := range state.GroupAncestors(gp) {
				info := byPath[a]
				if info == nil {
					continue
				}
				info.NJobs += n
				switch j.State {
				case api.StatePend, api.StatePSusp:
					info.Pend += n
				case api.StateRun:
					info.Run += n
				case api.StateSSusp:
					info.SSusp += n
				case api.StateUSusp:
					info.USusp += n
				case api.StateDone, api.StateExit:
					info.Finish += n
				}
				if job.Started(j.State) {
					info.Started++
				}
			}
			return true
		})
	})
	return reply, nil
}

// defaultJobGroup expands DEFAULT_JOBGROUP's variables; a variable with no
// value leaves its path component out.
func defaultJobGroup(tmpl, user, project, app, ugroup string) string {
	var parts []string
	for _, c := range strings.Split(tmpl, "/") {
		c = strings.NewReplacer("%u", user, "%p", project, "%a", app, "%g", ugroup).Replace(c)
		if c != "" {
			parts = append(parts, c)
		}
	}
	return "/" + strings.Join(parts, "/")
}
