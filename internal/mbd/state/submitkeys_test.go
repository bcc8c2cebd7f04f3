package state

import (
	"bytes"
	"testing"

	"github.com/basalt-lsf/basalt/api"
)

func keyed(key string, pos int32) func(*api.EvJobNew) {
	return func(n *api.EvJobNew) { n.SubmitKey, n.SubmitPos = key, pos }
}

// TestSubmitKeys: keys are recorded per (user, key) and position, expire
// after SubmitKeyTTL by the submissions' own times, and survive a
// snapshot; a published view does not see keys recorded after it.
func TestSubmitKeys(t *testing.T) {
	l := newLogger(t)
	l.must(submit(1, "normal", "alice", keyed("k", 0)), submit(2, "normal", "alice", keyed("k", 2)))
	before := l.s.Latest()
	l.must(submit(3, "normal", "bob", keyed("k", 0)))
	e := l.s.Latest().SubmitKey("alice", "k")
	if e == nil || len(e.Jobs) != 3 || e.Jobs[0].JobID != 1 || e.Jobs[1].JobID != 0 || e.Jobs[2].JobID != 2 || e.Jobs[2].Queue != "normal" {
		t.Fatalf("alice's key: %+v", e)
	}
	if b := l.s.Latest().SubmitKey("bob", "k"); b == nil || b.Jobs[0].JobID != 3 {
		t.Fatalf("bob's key: %+v", b)
	}
	if before.SubmitKey("bob", "k") != nil {
		t.Fatal("a view published before bob's submission sees its key")
	}

	var buf bytes.Buffer
	buf.Write(l.s.Latest().Encode())
	r := New()
	if err := r.Restore(&buf, 1); err != nil {
		t.Fatal(err)
	}
	if e := r.Latest().SubmitKey("alice", "k"); e == nil || e.Jobs[2].JobID != 2 {
		t.Fatalf("alice's key after a snapshot: %+v", e)
	}

	l.now += SubmitKeyTTL
	l.must(submit(4, "normal", "carol", keyed("k2", 0)))
	if l.s.Latest().SubmitKey("alice", "k") != nil || l.s.Latest().SubmitKey("bob", "k") != nil {
		t.Fatal("keys older than SubmitKeyTTL are still remembered")
	}
	if l.s.Latest().SubmitKey("carol", "k2") == nil {
		t.Fatal("a fresh key is forgotten")
	}
}
