package state

import (
	"cmp"
	"slices"
	"strings"

	"github.com/basalt-lsf/basalt/api"
)

// Submission keys (api.SubmitRequest.Key) make submissions idempotent: a
// request sent again with the same key after its answer was lost gets the
// jobs the first one created. The state remembers the keys of recent
// requests, from the log (EvJobNew.SubmitKey) and snapshots, so a retry
// finds them after a master restart too.

// SubmitKeyTTL is how long a key is remembered (by the submissions' own
// times), and MaxSubmitKeys how many at most.
const (
	SubmitKeyTTL  = 3600 * 1e9 // ns
	MaxSubmitKeys = 65536
)

// SubmitKey is what a request with a key created.
type SubmitKey struct {
	Time int64 // Unix ns of the submission
	// Jobs holds, per request position, the job created there (JobID 0
	// where none was).
	Jobs []*api.SubmitResult
}

type keyRef struct {
	k    nameKey // (user, key)
	time int64
}

// SubmitKey returns what user's request with key created, or nil.
func (v *View) SubmitKey(user, key string) *SubmitKey {
	e, _ := v.s.subKeys.get(nameKey{user, key})
	return e
}

// recordKey notes the job a keyed request created at position pos.
func (s *State) recordKey(user string, t int64, n *api.EvJobNew) {
	pos := int(max(n.SubmitPos, 0))
	if pos > 1<<16 {
		return // not a position a request can have
	}
	k := nameKey{user, n.SubmitKey}
	old, _ := s.subKeys.get(k)
	e := &SubmitKey{Time: t}
	if old != nil {
		e.Time = old.Time
		e.Jobs = slices.Clone(old.Jobs)
	} else {
		s.keyOrder = append(s.keyOrder, keyRef{k, t})
	}
	for len(e.Jobs) <= pos {
		e.Jobs = append(e.Jobs, &api.SubmitResult{})
	}
	e.Jobs[pos] = &api.SubmitResult{JobID: n.JobID, Queue: n.Queue, DefaultQueue: n.DefaultQueue}
	s.subKeys.set(s.gen, k, e)
	s.expireKeys(t)
}

// expireKeys forgets keys older than SubmitKeyTTL before now, and the
// oldest past MaxSubmitKeys.
func (s *State) expireKeys(now int64) {
	drop := 0
	for drop < len(s.keyOrder) && (len(s.keyOrder)-drop > MaxSubmitKeys || s.keyOrder[drop].time < now-SubmitKeyTTL) {
		s.subKeys.del(s.gen, s.keyOrder[drop].k)
		drop++
	}
	if drop > 0 {
		s.keyOrder = slices.Delete(s.keyOrder, 0, drop)
	}
}

// snapKeys lists the remembered keys, oldest first.
func (t *tables) snapKeys() []*api.SnapSubmitKey {
	var out []*api.SnapSubmitKey
	t.subKeys.each(func(k nameKey, e *SubmitKey) bool {
		out = append(out, &api.SnapSubmitKey{User: k.user, Key: k.name, Time: e.Time, Jobs: e.Jobs})
		return true
	})
	slices.SortFunc(out, func(a, b *api.SnapSubmitKey) int {
		return cmp.Or(cmp.Compare(a.Time, b.Time), strings.Compare(a.User, b.User), strings.Compare(a.Key, b.Key))
	})
	return out
}

// restoreKeys puts a snapshot's keys back, in their order.
func (s *State) restoreKeys(keys []*api.SnapSubmitKey) {
	for _, sk := range keys {
		k := nameKey{sk.User, sk.Key}
		if _, dup := s.subKeys.get(k); dup {
			continue
		}
		s.subKeys.set(s.gen, k, &SubmitKey{Time: sk.Time, Jobs: sk.Jobs})
		s.keyOrder = append(s.keyOrder, keyRef{k, sk.Time})
	}
}
