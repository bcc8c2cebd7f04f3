package config

import (
	"math"
	"strings"

	"github.com/basalt-lsf/basalt/internal/config/lex"
)

// LSBUsers is lsb.users: user groups (with their share trees) and per-user
// job limits. Group membership is resolved by the loader.
type LSBUsers struct {
	Path   string
	Groups []*UserGroup
	Users  []*UserLimit
}

// UserGroup is a row of the UserGroup section.
type UserGroup struct {
	Name string
	// Spec is GROUP_MEMBER as written: users and groups (defined before
	// use), or all.
	Spec []string
	// All is (all): every user.
	All bool
	// External groups ('!') get their members from egroup -u.
	External bool
	// Shares is the group's share tree (USER_SHARES); empty when its
	// members compete first come, first served.
	Shares []ShareAssignment
	Admins []string
	// Members are the group's users, recursively, sorted; empty for All.
	Members []string
	Pos     Pos
}

// UserLimit is a row of the User section.
type UserLimit struct {
	// Name is a user, a group (the group as a whole), a group with Each
	// ("group@": each member) or "default" (every user and group not
	// listed).
	Name string
	Each bool
	// MaxJobs is MAX_JOBS, the job slot limit; -1 is unlimited.
	MaxJobs int
	// JLP is the per-processor slot limit; 0 is unlimited.
	JLP float64
	// MaxPendJobs and MaxPendSlots are -1 when unlimited.
	MaxPendJobs  int
	MaxPendSlots int
	Pos          Pos
}

// Group returns the user group named name.
func (u *LSBUsers) Group(name string) *UserGroup {
	if u == nil {
		return nil
	}
	for _, g := range u.Groups {
		if g.Name == name {
			return g
		}
	}
	return nil
}

// Limit returns the User section row for name ("default" included), and
// for a group the group@ row when each is set.
func (u *LSBUsers) Limit(name string, each bool) *UserLimit {
	if u == nil {
		return nil
	}
	for _, l := range u.Users {
		if l.Name == name && l.Each == each {
			return l
		}
	}
	return nil
}

func parseLSBUsers(f *lex.File, d *Diagnostics) *LSBUsers {
	u := &LSBUsers{Path: f.Name}
	for _, sec := range f.Sections {
		switch {
		case sec.Is("UserGroup"):
			u.parseGroups(sec, d)
		case sec.Is("User"):
			u.parseUsers(sec, d)
		default:
			d.Warnf(sec.Pos, "section %s in lsb.users is not supported by Basalt; section ignored", sec.Name)
		}
	}
	return u
}

func (u *LSBUsers) parseGroups(sec *lex.Section, d *Diagnostics) {
	t := sec.Table(d)
	nameCol, memCol := t.Col("GROUP_NAME"), t.Col("GROUP_MEMBER")
	if nameCol < 0 || memCol < 0 {
		d.Warnf(sec.Pos, "section UserGroup: GROUP_NAME and GROUP_MEMBER columns are required; section ignored")
		return
	}
	sharesCol, adminCol := t.Col("USER_SHARES"), t.Col("GROUP_ADMIN")
	for _, c := range t.Columns {
		switch strings.ToUpper(c.Text) {
		case "GROUP_NAME", "GROUP_MEMBER", "USER_SHARES", "GROUP_ADMIN":
		default:
			d.Warnf(c.Pos, "section UserGroup: column %s is not supported by Basalt; ignored", c.Text)
		}
	}
	for _, r := range t.Rows {
		g := &UserGroup{Name: r.Fields[nameCol].Text, Pos: r.Pos}
		where := "UserGroup <" + g.Name + ">"
		switch {
		case !nameOK(g.Name) || g.Name == "all" || g.Name == "default" || g.Name == "others" || strings.HasSuffix(g.Name, "@"):
			d.Warnf(r.Pos, "section UserGroup: bad or reserved group name <%s>; line ignored", g.Name)
			continue
		case u.Group(g.Name) != nil:
			d.Warnf(r.Pos, "section UserGroup: group %s is defined twice; line ignored", g.Name)
			continue
		}
		mem := r.Fields[memCol]
		for _, w := range mem.Words(d) {
			switch {
			case w.Text == "!":
				g.External = true
			case w.Text == "all":
				g.All = true
			case !nameOK(w.Text):
				d.Warnf(w.Pos, "%s: bad member <%s>; ignored", where, w.Text)
			case w.Text == g.Name:
				d.Warnf(w.Pos, "%s: a group cannot be its own member; ignored", where)
			case u.Group(w.Text) == nil && isDefinedLater(t, nameCol, w.Text):
				d.Warnf(w.Pos, "%s: group <%s> is used before it is defined; ignored", where, w.Text)
			default:
				g.Spec = append(g.Spec, w.Text)
			}
		}
		if tok, ok := r.Get(sharesCol); ok {
			sv := tokVal("USER_SHARES", tok, where, d).inner()
			g.Shares, _ = sv.shares(nil)
		}
		if tok, ok := r.Get(adminCol); ok {
			for _, w := range tok.Words(d) {
				g.Admins = append(g.Admins, w.Text)
			}
		}
		u.Groups = append(u.Groups, g)
	}
}

// isDefinedLater reports whether name is a group defined in a later row.
func isDefinedLater(t *lex.Table, nameCol int, name string) bool {
	for _, r := range t.Rows {
		if r.Fields[nameCol].Text == name {
			return true
		}
	}
	return false
}

func (u *LSBUsers) parseUsers(sec *lex.Section, d *Diagnostics) {
	t := sec.Table(d)
	nameCol := t.Col("USER_NAME")
	if nameCol < 0 {
		d.Warnf(sec.Pos, "section User: no USER_NAME column; section ignored")
		return
	}
	maxCol, jlpCol, pendCol, pendSlotsCol := t.Col("MAX_JOBS"), t.Col("JL/P"), t.Col("MAX_PEND_JOBS"), t.Col("MAX_PEND_SLOTS")
	for _, c := range t.Columns {
		switch strings.ToUpper(c.Text) {
		case "USER_NAME", "MAX_JOBS", "JL/P", "MAX_PEND_JOBS", "MAX_PEND_SLOTS":
		default:
			d.Warnf(c.Pos, "section User: column %s is not supported by Basalt; ignored", c.Text)
		}
	}
	for _, r := range t.Rows {
		l := &UserLimit{Name: r.Fields[nameCol].Text, MaxJobs: -1, MaxPendJobs: -1, MaxPendSlots: -1, Pos: r.Pos}
		if strings.HasSuffix(l.Name, "@") {
			l.Each, l.Name = true, strings.TrimSuffix(l.Name, "@")
		}
		where := "User <" + r.Fields[nameCol].Text + ">"
		if !nameOK(l.Name) {
			d.Warnf(r.Pos, "section User: bad user name <%s>; line ignored", r.Fields[nameCol].Text)
			continue
		}
		if u.Limit(l.Name, l.Each) != nil {
			d.Warnf(r.Pos, "section User: %s is listed twice; line ignored", r.Fields[nameCol].Text)
			continue
		}
		if tok, ok := r.Get(maxCol); ok {
			if n, ok := tokVal("MAX_JOBS", tok, where, d).int(0, math.MaxInt32); ok {
				l.MaxJobs = n
			}
		}
		if tok, ok := r.Get(jlpCol); ok {
			if f, ok := tokVal("JL/P", tok, where, d).float(0, math.MaxInt32); ok {
				if f <= 0 {
					d.Warnf(tok.Pos, "%s: JL/P value <%s> must be positive; ignored", where, tok.Text)
				} else {
					l.JLP = f
				}
			}
		}
		if tok, ok := r.Get(pendCol); ok {
			if n, ok := tokVal("MAX_PEND_JOBS", tok, where, d).int(0, math.MaxInt32); ok {
				l.MaxPendJobs = n
			}
		}
		if tok, ok := r.Get(pendSlotsCol); ok {
			if n, ok := tokVal("MAX_PEND_SLOTS", tok, where, d).int(0, math.MaxInt32); ok {
				l.MaxPendSlots = n
			}
		}
		u.Users = append(u.Users, l)
	}
}

// ShareNode is a node of a fairshare tree: a user, a group (with its own
// share tree, or whose Members compete first come, first served), or the
// default/others catch-alls.
type ShareNode struct {
	Name   string
	Kind   ShareKind
	Shares int
	// Children is the group's share tree (lsb.users USER_SHARES).
	Children []*ShareNode
	// Members are the users of a group without a share tree.
	Members []string
}
