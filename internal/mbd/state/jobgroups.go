package state

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/basalt-lsf/basalt/api"
)

// JobGroup is a job group (bgadd, or created by the first job submitted to
// it): a path in a tree under "/", an owner, and an optional limit on the
// started jobs under it (its subgroups' included).
type JobGroup struct {
	Path     string
	Owner    string
	HasLimit bool
	Limit    int32
	Time     int64 // Unix nanoseconds of its creation
}

// CleanGroupPath is path as a job group's name ("/a/b": absolute, no
// trailing slash, no empty or dot components); ok is false for a path that
// is not one.
func CleanGroupPath(p string) (string, bool) {
	if !strings.HasPrefix(p, "/") || strings.ContainsAny(p, " \t\n\x00") {
		return "", false
	}
	for _, part := range strings.Split(p, "/") {
		if part == "." || part == ".." {
			return "", false
		}
	}
	return path.Clean(p), true
}

// GroupAncestors lists the groups a path lies under, itself last ("/a/b":
// "/a", "/a/b"); the root "/" is not listed.
func GroupAncestors(p string) []string {
	var out []string
	for i := 1; i < len(p); i++ {
		if p[i] == '/' {
			out = append(out, p[:i])
		}
	}
	if p != "/" && p != "" {
		out = append(out, p)
	}
	return out
}

// ensureGroup creates p and its missing ancestors, owned by owner.
func (s *State) ensureGroup(p, owner string, t int64) {
	for _, a := range GroupAncestors(p) {
		if _, ok := s.jgroups.m[a]; !ok {
			s.jgroups.w(s.gen)[a] = JobGroup{Path: a, Owner: owner, Time: t}
		}
	}
}

func (s *State) jobGroup(t int64, ev *api.Event, e *api.EvJobGroup) error {
	p, ok := CleanGroupPath(e.Path)
	if !ok || p == "/" {
		return fmt.Errorf("job group %q: not a group path", e.Path)
	}
	switch e.Op {
	case api.JobGroupAdd:
		owner := e.Owner
		if owner == "" {
			owner = ev.User
		}
		s.ensureGroup(p, owner, t)
		if e.HasLimit {
			g := s.jgroups.m[p]
			g.HasLimit, g.Limit = true, e.Limit
			s.jgroups.w(s.gen)[p] = g
		}
	case api.JobGroupModify:
		g, ok := s.jgroups.m[p]
		if !ok {
			return fmt.Errorf("job group %s: no such group", p)
		}
		g.HasLimit, g.Limit = e.HasLimit, e.Limit
		if e.SetOwner {
			g.Owner = e.Owner
		}
		s.jgroups.w(s.gen)[p] = g
	case api.JobGroupDelete:
		if _, ok := s.jgroups.m[p]; !ok {
			return fmt.Errorf("job group %s: no such group", p)
		}
		m := s.jgroups.w(s.gen)
		for k := range m {
			if k == p || strings.HasPrefix(k, p+"/") {
				delete(m, k)
			}
		}
	default:
		return fmt.Errorf("job group: unknown operation %d", e.Op)
	}
	return nil
}

// JobGroup returns the group at p.
func (v *View) JobGroup(p string) (JobGroup, bool) {
	g, ok := v.s.jgroups.m[p]
	return g, ok
}

// JobGroups lists every job group in path order (a group before its
// subgroups).
func (v *View) JobGroups() []JobGroup {
	out := make([]JobGroup, 0, len(v.s.jgroups.m))
	for _, g := range v.s.jgroups.m {
		out = append(out, g)
	}
	slices.SortFunc(out, func(a, b JobGroup) int { return strings.Compare(a.Path, b.Path) })
	return out
}

func (t *tables) snapGroups() []*api.SnapJobGroup {
	var out []*api.SnapJobGroup
	for _, name := range sortedKeys(t.jgroups.m) {
		g := t.jgroups.m[name]
		out = append(out, &api.SnapJobGroup{Path: g.Path, Owner: g.Owner, HasLimit: g.HasLimit, Limit: g.Limit, Time: g.Time})
	}
	return out
}

func (s *State) restoreGroups(gs []*api.SnapJobGroup) {
	for _, g := range gs {
		s.jgroups.w(s.gen)[g.Path] = JobGroup{Path: g.Path, Owner: g.Owner, HasLimit: g.HasLimit, Limit: g.Limit, Time: g.Time}
	}
}
