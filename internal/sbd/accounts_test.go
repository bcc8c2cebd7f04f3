package sbd

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/internal/sbd/shepherd"
)

// TestAccountsCache: lookups are cached while the account files are
// unchanged, checked at most every recheck; a change of either file
// empties the cache; failures are never cached.
func TestAccountsCache(t *testing.T) {
	dir := t.TempDir()
	passwd, group := filepath.Join(dir, "passwd"), filepath.Join(dir, "group")
	os.WriteFile(passwd, []byte("a\n"), 0o644)
	os.WriteFile(group, []byte("g\n"), 0o644)
	now := time.Unix(1000, 0)
	calls := map[string]int{}
	uid := int32(100)
	a := newAccounts(func(name string) (*shepherd.Account, error) {
		calls[name]++
		if name == "nobody-here" {
			return nil, errors.New("unknown user")
		}
		return &shepherd.Account{User: name, UID: uid}, nil
	}, func() time.Time { return now })
	a.files = []string{passwd, group}
	steps := []struct {
		what    string
		advance time.Duration
		change  string // file rewritten before the lookup
		name    string
		wantUID int32
		wantErr bool
		calls   int // lookups of name so far
	}{
		{"first lookup", 0, "", "alice", 100, false, 1},
		{"cached", 0, "", "alice", 100, false, 1},
		{"cached after the recheck, files unchanged", 2 * time.Second, "", "alice", 100, false, 1},
		{"failure", 0, "", "nobody-here", 0, true, 1},
		{"failures are not cached", 0, "", "nobody-here", 0, true, 2},
		{"change seen only at the recheck", 0, passwd, "alice", 100, false, 1},
		{"passwd changed", 2 * time.Second, "", "alice", 200, false, 2},
		{"group changed", 2 * time.Second, group, "alice", 200, false, 3},
	}
	for _, s := range steps {
		now = now.Add(s.advance)
		if s.change != "" {
			b, _ := os.ReadFile(s.change)
			os.WriteFile(s.change, append(b, 'x'), 0o644)
			uid = 200
		}
		acct, err := a.get(s.name)
		if (err != nil) != s.wantErr || err == nil && acct.UID != s.wantUID || calls[s.name] != s.calls {
			t.Errorf("%s: %+v, %v after %d lookups; want uid %d, error %v, %d lookups", s.what, acct, err, calls[s.name], s.wantUID, s.wantErr, s.calls)
		}
	}
}
