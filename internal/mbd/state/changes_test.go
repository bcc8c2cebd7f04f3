package state

import (
	"fmt"
	"math/rand"
	"sort"
	"testing"

	"github.com/basalt-lsf/basalt/api"
)

// TestStartedChanges: the changes between two views are exactly the
// records one lists as started and the other does not, whatever happened
// between them (starts, ends, suspensions, records changed, many entries
// or none).
func TestStartedChanges(t *testing.T) {
	l := newLogger(t)
	rng := rand.New(rand.NewSource(1))
	started := func(v *View) map[*Job]bool {
		m := map[*Job]bool{}
		v.Started(func(j *Job) bool { m[j] = true; return true })
		return m
	}
	keys := func(m map[*Job]bool) []string {
		var out []string
		for j := range m {
			out = append(out, fmt.Sprintf("%v@%p", j.Key, j))
		}
		sort.Strings(out)
		return out
	}
	next := int64(1)
	prev := l.s.Latest()
	for step := range 300 {
		for range rng.Intn(4) {
			var running, pending []Key
			l.s.Latest().Jobs(func(j *Job) bool {
				switch j.State {
				case api.StatePend:
					pending = append(pending, j.Key)
				case api.StateRun, api.StateSSusp:
					running = append(running, j.Key)
				}
				return true
			})
			switch r := rng.Intn(10); {
			case r < 3 || len(pending) == 0:
				// Jobs 64 apart land in other shards of the index.
				l.must(submit(next, "normal", "alice"), submit(next+64*int64(1+rng.Intn(8)), "normal", "bob"))
				next += 1000
			case r < 6:
				k := pending[rng.Intn(len(pending))]
				l.must(start(k.ID, 0, fmt.Sprintf("host%d", rng.Intn(5)), fmt.Sprintf("host%d", 5+rng.Intn(5))))
			case len(running) > 0 && r < 8:
				k := running[rng.Intn(len(running))]
				l.must(status(k.ID, 0, api.StateDone))
			case len(running) > 0:
				k := running[rng.Intn(len(running))]
				st := api.StateSSusp
				if l.job(k.ID, 0).State == api.StateSSusp {
					st = api.StateRun
				}
				l.must(status(k.ID, 0, st))
			}
		}
		cur := l.s.Latest()
		was, is := started(prev), started(cur)
		wantGone, wantCame := map[*Job]bool{}, map[*Job]bool{}
		for j := range was {
			if !is[j] {
				wantGone[j] = true
			}
		}
		for j := range is {
			if !was[j] {
				wantCame[j] = true
			}
		}
		gone, came := map[*Job]bool{}, map[*Job]bool{}
		cur.StartedChanges(prev, func(j *Job) {
			if gone[j] {
				t.Fatalf("step %d: %v gone twice", step, j.Key)
			}
			gone[j] = true
		}, func(j *Job) {
			if came[j] {
				t.Fatalf("step %d: %v came twice", step, j.Key)
			}
			came[j] = true
		})
		if fmt.Sprint(keys(gone)) != fmt.Sprint(keys(wantGone)) || fmt.Sprint(keys(came)) != fmt.Sprint(keys(wantCame)) {
			t.Fatalf("step %d:\ngone %v\nwant %v\ncame %v\nwant %v", step, keys(gone), keys(wantGone), keys(came), keys(wantCame))
		}
		prev = cur
	}
	if next < 10000 {
		t.Fatalf("only %d submissions", next/1000)
	}
}
