package sbd

import (
	"sync"
	"syscall"
	"time"

	"github.com/basalt-lsf/basalt/internal/sbd/shepherd"
)

// accounts caches the host's user accounts: a lookup reads and parses
// /etc/passwd and /etc/group, for every job. The cache holds as long as
// neither file changed (same inode, size and modification time), checked
// at most every recheck.
type accounts struct {
	lookup  func(name string) (*shepherd.Account, error)
	files   []string
	recheck time.Duration
	now     func() time.Time

	mu      sync.Mutex
	stamp   []fileStamp
	checked time.Time
	byName  map[string]*shepherd.Account
}

type fileStamp struct {
	ino, size int64
	mtime     int64
}

func newAccounts(lookup func(string) (*shepherd.Account, error), now func() time.Time) *accounts {
	return &accounts{lookup: lookup, files: []string{"/etc/passwd", "/etc/group"}, recheck: time.Second, now: now}
}

func stampOf(path string) fileStamp {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return fileStamp{ino: -1}
	}
	return fileStamp{ino: int64(st.Ino), size: st.Size, mtime: st.Mtim.Nano()}
}

// get returns name's account; lookups that fail are not cached.
func (a *accounts) get(name string) (*shepherd.Account, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if now := a.now(); a.byName == nil || now.Sub(a.checked) >= a.recheck || now.Before(a.checked) {
		a.checked = now
		stamp := make([]fileStamp, len(a.files))
		for i, f := range a.files {
			stamp[i] = stampOf(f)
		}
		if !equalStamps(stamp, a.stamp) {
			a.stamp, a.byName = stamp, map[string]*shepherd.Account{}
		}
	}
	if acct := a.byName[name]; acct != nil {
		return acct, nil
	}
	acct, err := a.lookup(name)
	if err != nil {
		return nil, err
	}
	a.byName[name] = acct
	return acct, nil
}

func equalStamps(a, b []fileStamp) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
