package shepherd

import (
	"fmt"
	"os/user"
	"strconv"
)

// Account is a user account of the execution host.
type Account struct {
	User   string
	UID    int32
	GID    int32
	Groups []int32 // supplementary groups
	Home   string
}

// LookupAccount finds a user by name in the host's account database.
func LookupAccount(name string) (*Account, error) {
	u, err := user.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("user %s: %w", name, err)
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("user %s: non-numeric uid %q or gid %q", name, u.Uid, u.Gid)
	}
	a := &Account{User: u.Username, UID: int32(uid), GID: int32(gid), Home: u.HomeDir}
	gids, err := u.GroupIds()
	if err != nil {
		return nil, fmt.Errorf("user %s: groups: %w", name, err)
	}
	for _, g := range gids {
		if n, err := strconv.Atoi(g); err == nil {
			a.Groups = append(a.Groups, int32(n))
		}
	}
	return a, nil
}
