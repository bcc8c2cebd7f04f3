package state

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	"github.com/basalt-lsf/basalt/api"
)

func groupEv(op api.JobGroupOp, path, owner string, limit int32) *api.Event {
	return &api.Event{User: owner, JobGroup: &api.EvJobGroup{Op: op, Path: path, Owner: owner, HasLimit: limit >= 0, Limit: max(limit, 0)}}
}

func (l *logger) groups() []string {
	var out []string
	l.s.View(func(v *View) {
		for _, g := range v.JobGroups() {
			lim := "-"
			if g.HasLimit {
				lim = fmt.Sprint(g.Limit)
			}
			out = append(out, g.Path+" "+g.Owner+" "+lim)
		}
	})
	return out
}

// TestJobGroups: bgadd creates a group with its missing ancestors, a job
// sent to a group that does not exist creates it, bgmod changes the limit,
// bgdel removes the group with its subgroups, and all of it survives a
// snapshot.
func TestJobGroups(t *testing.T) {
	l := newLogger(t)
	l.must(groupEv(api.JobGroupAdd, "/a/b", "alice", 3))
	l.must(submit(1, "normal", "bob", func(n *api.EvJobNew) { n.Spec.JobGroup = "/x/y" }))
	want := []string{"/a alice -", "/a/b alice 3", "/x bob -", "/x/y bob -"}
	if got := l.groups(); !reflect.DeepEqual(got, want) {
		t.Fatalf("groups %q, want %q", got, want)
	}
	l.must(groupEv(api.JobGroupModify, "/a/b", "alice", -1), groupEv(api.JobGroupModify, "/a", "alice", 5))
	l.must(groupEv(api.JobGroupDelete, "/x", "", -1))
	want = []string{"/a alice 5", "/a/b alice -"}
	if got := l.groups(); !reflect.DeepEqual(got, want) {
		t.Fatalf("after bgmod and bgdel: %q, want %q", got, want)
	}
	for _, e := range []*api.Event{
		groupEv(api.JobGroupModify, "/nope", "alice", 1),
		groupEv(api.JobGroupDelete, "/nope", "alice", 1),
		groupEv(api.JobGroupAdd, "relative", "alice", 1),
		groupEv(api.JobGroupAdd, "/", "alice", 1),
		groupEv(api.JobGroupAdd, "/a/../b", "alice", 1),
	} {
		if errs := l.apply(e); errs[0] == nil {
			t.Errorf("%+v applied, want an error", e.JobGroup)
		}
	}
	snap, idx := l.s.Snapshot()
	s2 := New()
	if err := s2.Restore(bytes.NewReader(snap), idx); err != nil {
		t.Fatal(err)
	}
	r := &logger{t: t, s: s2, idx: idx, now: l.now}
	if got := r.groups(); !reflect.DeepEqual(got, want) {
		t.Fatalf("restored groups %q, want %q", got, want)
	}
}

func TestCleanGroupPath(t *testing.T) {
	for in, want := range map[string]string{"/a": "/a", "/a/": "/a", "//a//b": "/a/b", "/": "/", "a": "", "": "", "/a/./b": "", "/a/../b": "", "/a b": ""} {
		got, ok := CleanGroupPath(in)
		if ok != (want != "") || got != want {
			t.Errorf("CleanGroupPath(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	if got := GroupAncestors("/a/b/c"); !reflect.DeepEqual(got, []string{"/a", "/a/b", "/a/b/c"}) {
		t.Errorf("GroupAncestors = %q", got)
	}
}
