package config

import "slices"

// Who may act on a job, as LSF defines it: the job's owner, the
// administrators of its queue (that queue only), the GROUP_ADMIN of an
// lsb.users user group that holds the owner, and the cluster
// administrators (root is checked by the callers, who know the uid).

// IsClusterAdmin reports whether user is a cluster administrator
// (lsf.cluster ClusterAdmins; root when none is named).
func (c *Config) IsClusterAdmin(user string) bool {
	for _, a := range c.Admins() {
		if a == user {
			return true
		}
	}
	return false
}

// IsQueueAdmin reports whether user administers queue (its
// ADMINISTRATORS, users or user groups) or the cluster.
func (c *Config) IsQueueAdmin(user, queue string) bool {
	if c.IsClusterAdmin(user) {
		return true
	}
	if q := c.Queue(queue); q != nil {
		for _, a := range q.Admins {
			if c.names(a, user) {
				return true
			}
		}
	}
	return false
}

// IsGroupAdminOf reports whether user is the GROUP_ADMIN of a user group
// that holds owner.
func (c *Config) IsGroupAdminOf(user, owner string) bool {
	if c.Users == nil {
		return false
	}
	for _, g := range c.Users.Groups {
		if !(g.All || slices.Contains(g.Members, owner)) {
			continue
		}
		for _, a := range g.Admins {
			if c.names(a, user) {
				return true
			}
		}
	}
	return false
}

// MayControl reports whether user (not root) may see the details of and
// control a job of owner in queue.
func (c *Config) MayControl(user, owner, queue string) bool {
	return user == owner || c.IsQueueAdmin(user, queue) || c.IsGroupAdminOf(user, owner)
}

// names reports whether an administrator entry (a user or a user group)
// names user.
func (c *Config) names(entry, user string) bool {
	if entry == user {
		return true
	}
	g := c.UserGroup(entry)
	return g != nil && (g.All || slices.Contains(g.Members, user))
}
