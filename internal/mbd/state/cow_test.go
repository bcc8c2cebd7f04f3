package state

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/basalt-lsf/basalt/api"
	"pgregory.net/rapid"
)

// render writes everything a reader can see of t in a canonical form; with
// stamps, the pending lists' versions too (they differ between states that
// applied the same entries with and without snapshots in between). A list
// or host index entry that is not the record the jobs map holds shows as
// STALE.
func render(t *tables, stamps bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "last %d order %d finished %d start %d applied %d jobs %d\n", t.lastJobID, t.lastOrder, t.finished,
		t.masterStart, t.applied, t.jobs.n)
	var keys []Key
	t.jobs.each(func(k Key, _ *Job) bool {
		keys = append(keys, k)
		return true
	})
	sortKeys(keys)
	for _, k := range keys {
		j, _ := t.jobs.get(k)
		fmt.Fprintf(&b, "job %v listed=%v idx=%d spec=%x snap=%x", k, j.listed, j.StateIndex, j.Spec.Full().AppendWire(nil),
			snapJob(j, 0).AppendWire(nil))
		if j.Array != nil {
			fmt.Fprintf(&b, " array=%d/%s/%d/%v", j.Array.ID, j.Array.Spec, j.Array.Limit, j.Array.Indices)
		}
		b.WriteByte('\n')
	}
	var arrays []int64
	t.arrays.each(func(id int64, _ *Array) bool {
		arrays = append(arrays, id)
		return true
	})
	slices.Sort(arrays)
	for _, id := range arrays {
		a, _ := t.arrays.get(id)
		fmt.Fprintf(&b, "array %d %s %d %v\n", a.ID, a.Spec, a.Limit, a.Indices)
	}
	for _, q := range sortedKeys(t.pending.m) {
		p := t.pending.m[q]
		fmt.Fprintf(&b, "pending %s:", q)
		if stamps {
			fmt.Fprintf(&b, " v%d", p.version)
		}
		p.each(func(j *Job) bool {
			fmt.Fprintf(&b, " %v", j.Key)
			if cur, _ := t.jobs.get(j.Key); cur != j {
				b.WriteString("STALE")
			}
			return true
		})
		b.WriteByte('\n')
	}
	var hosts []string
	t.onHost.each(func(h string, _ *hostJobs) bool {
		hosts = append(hosts, h)
		return true
	})
	slices.Sort(hosts)
	for _, h := range hosts {
		ks, _ := t.onHost.get(h)
		var on []Key
		for k, j := range ks.jobs {
			on = append(on, k)
			if cur, _ := t.jobs.get(k); cur != j {
				fmt.Fprintf(&b, "host %s: %v STALE\n", h, k)
			}
		}
		sortKeys(on)
		fmt.Fprintf(&b, "host %s: %v\n", h, on)
	}
	var names []nameKey
	t.byName.each(func(k nameKey, _ *nameList) bool {
		names = append(names, k)
		return true
	})
	slices.SortFunc(names, func(a, b nameKey) int { return strings.Compare(a.user+"\x00"+a.name, b.user+"\x00"+b.name) })
	for _, k := range names {
		l, _ := t.byName.get(k)
		fmt.Fprintf(&b, "name %s/%s: %v\n", k.user, k.name, l.keys)
	}
	var sts []api.JobState
	for st := range t.counts.m {
		sts = append(sts, st)
	}
	slices.Sort(sts)
	for _, st := range sts {
		fmt.Fprintf(&b, "count %d: %d\n", st, t.counts.m[st])
	}
	for _, q := range sortedKeys(t.queues.m) {
		fmt.Fprintf(&b, "queue %s %+v\n", q, t.queues.m[q])
	}
	for _, h := range sortedKeys(t.hosts.m) {
		fmt.Fprintf(&b, "hoststate %s %+v\n", h, t.hosts.m[h])
	}
	return b.String()
}

// eventGen draws plausible events over a small world: most refer to jobs
// that exist, some to jobs that do not or in states that refuse them.
type eventGen struct {
	next int64
}

var (
	genQueues = []string{"normal", "short", "long"}
	genHosts  = []string{"host1", "host2", "host3", "host4"}
	genUsers  = []string{"alice", "bob"}
)

func (g *eventGen) draw(t *rapid.T) *api.Event {
	id := int64(1)
	if g.next > 1 {
		id = rapid.Int64Range(1, g.next).Draw(t, "id")
	}
	var idx int32
	if rapid.IntRange(0, 3).Draw(t, "element") == 0 {
		idx = int32(rapid.IntRange(1, 3).Draw(t, "idx"))
	}
	switch k := rapid.IntRange(0, 16).Draw(t, "kind"); {
	case k < 4 || g.next == 0:
		g.next++
		n := &api.EvJobNew{JobID: g.next, Queue: rapid.SampledFrom(genQueues).Draw(t, "queue"),
			Order:        (g.next + rapid.Int64Range(-3, 3).Draw(t, "jitter")) << 20,
			UserPriority: int32(rapid.IntRange(0, 2).Draw(t, "prio")),
			Hold:         rapid.IntRange(0, 9).Draw(t, "hold") == 0,
			JobName:      rapid.SampledFrom([]string{"", "align", "sort"}).Draw(t, "name"),
			Spec: &api.JobSpec{Command: fmt.Sprintf("step %d", g.next),
				Env: []string{"PATH=/bin", "V=" + rapid.SampledFrom([]string{"a", "b"}).Draw(t, "env")}}}
		if rapid.IntRange(0, 4).Draw(t, "array") == 0 {
			n.ArrayIndices, n.ArraySpec = []int32{1, 2, 3}, "1-3"
		}
		return &api.Event{User: rapid.SampledFrom(genUsers).Draw(t, "user"), UID: 1000, JobNew: n}
	case k < 6:
		e := &api.EvJobStart{JobID: id, Index: idx, Forced: rapid.Bool().Draw(t, "forced")}
		for _, h := range rapid.SliceOfNDistinct(rapid.SampledFrom(genHosts), 1, 2, rapid.ID[string]).Draw(t, "hosts") {
			e.ExecHosts = append(e.ExecHosts, &api.ExecHost{Host: h, Slots: 1})
		}
		return &api.Event{JobStart: e}
	case k < 7:
		return &api.Event{JobExecute: &api.EvJobExecute{JobID: id, Index: idx, PID: int32(id), PGID: int32(id), ExecUser: "alice"}}
	case k < 9:
		st := rapid.SampledFrom([]api.JobState{api.StateDone, api.StateExit, api.StateSSusp, api.StateUSusp, api.StateRun,
			api.StatePend, api.StatePSusp, api.StateUnkwn, api.StateZombi}).Draw(t, "state")
		e := &api.EvJobStatus{JobID: id, Index: idx, State: st, PendReason: 5}
		if st == api.StatePend && rapid.Bool().Draw(t, "exclude") {
			e.ExcludeHost = rapid.SampledFrom(genHosts).Draw(t, "excluded")
		}
		if st == api.StateDone {
			e.Usage = &api.Usage{CPUTime: 1.5}
		}
		return &api.Event{JobStatus: e}
	case k < 10:
		return &api.Event{JobRequeue: &api.EvJobRequeue{JobID: id, Index: idx, Hold: rapid.Bool().Draw(t, "hold")}}
	case k < 11:
		return &api.Event{JobClean: &api.EvJobClean{JobID: id, Index: idx}}
	case k < 12:
		return &api.Event{JobMove: &api.EvJobMove{JobID: id, Index: idx, Position: int32(rapid.IntRange(1, 5).Draw(t, "pos")),
			Bottom: rapid.Bool().Draw(t, "bottom")}}
	case k < 13:
		return &api.Event{JobSwitch: &api.EvJobSwitch{JobID: id, Index: idx, Queue: rapid.SampledFrom(genQueues).Draw(t, "to")}}
	case k < 14:
		return &api.Event{JobSignal: &api.EvJobSignal{JobID: id, Index: idx, Action: int32(rapid.IntRange(1, 3).Draw(t, "action")),
			Signal: "KILL"}}
	case k < 15:
		e := &api.EvJobModify{JobID: id, Index: idx}
		if rapid.Bool().Draw(t, "limit") {
			e.SetArrayLimit, e.ArrayLimit = true, int32(rapid.IntRange(0, 3).Draw(t, "arrayLimit"))
		}
		if rapid.IntRange(0, 3).Draw(t, "spec") > 0 {
			e.Spec = &api.JobSpec{Command: "modified", UserPriority: int32(rapid.IntRange(0, 2).Draw(t, "newPrio")),
				MinProcs: int32(rapid.IntRange(0, 2).Draw(t, "procs"))}
			e.Spec.MaxProcs = e.Spec.MinProcs
			e.JobName = rapid.SampledFrom([]string{"", "align", "renamed"}).Draw(t, "newName")
			e.Queue = rapid.SampledFrom([]string{"", "normal", "long"}).Draw(t, "newQueue")
			e.PendingOnly = rapid.Bool().Draw(t, "pendingOnly")
		}
		return &api.Event{JobModify: e}
	case k < 16:
		return &api.Event{QueueCtrl: &api.EvQueueCtrl{Queue: rapid.SampledFrom(genQueues).Draw(t, "ctlQueue"),
			Op: int32(rapid.IntRange(api.QueueOpen, api.QueueInactivate).Draw(t, "qop"))}}
	default:
		return &api.Event{HostCtrl: &api.EvHostCtrl{Host: rapid.SampledFrom(genHosts).Draw(t, "ctlHost"),
			Op: int32(rapid.IntRange(api.HostOpen, api.HostClose).Draw(t, "hop")), Message: "maintenance"}}
	}
}

// TestSnapshotsAgainstReferenceFold applies random entries to a state whose
// views are taken at random points and to a reference that no view ever
// sees (so it writes everything in place). After every entry both render
// alike; every view taken renders, at the end, exactly as it did when it
// was taken; and both states encode the same raft snapshot.
func TestSnapshotsAgainstReferenceFold(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		cow, ref := New(), New()
		var g eventGen
		type kept struct {
			v    *View
			text string
		}
		var views []kept
		now := int64(1_800_000_000) * sec
		steps := rapid.IntRange(1, 120).Draw(rt, "entries")
		for i := 1; i <= steps; i++ {
			var evs []*api.Event
			for n := rapid.IntRange(1, 3).Draw(rt, "events"); n > 0; n-- {
				now += sec
				e := g.draw(rt)
				e.Time = now
				evs = append(evs, e)
			}
			errsCow := cow.Apply(uint64(i), &api.LogEntry{Events: evs})
			errsRef := ref.Apply(uint64(i), &api.LogEntry{Events: evs})
			if fmt.Sprint(errsCow) != fmt.Sprint(errsRef) {
				rt.Fatalf("entry %d: errors %v, reference %v", i, errsCow, errsRef)
			}
			if got, want := render(&cow.tables, false), render(&ref.tables, false); got != want {
				rt.Fatalf("entry %d: state\n%s\nreference\n%s", i, got, want)
			}
			if rapid.IntRange(0, 2).Draw(rt, "view") == 0 {
				v := cow.Latest()
				text := render(v.s, true)
				if strings.Contains(text, "STALE") {
					rt.Fatalf("entry %d: a view holds stale records:\n%s", i, text)
				}
				views = append(views, kept{v, text})
			}
		}
		for i, k := range views {
			if got := render(k.v.s, true); got != k.text {
				rt.Fatalf("view %d changed after it was taken:\nthen\n%s\nnow\n%s", i, k.text, got)
			}
		}
		a, _ := cow.Snapshot()
		b, _ := ref.Snapshot()
		if !bytes.Equal(a, b) {
			rt.Fatal("the snapshots of the state and of the reference differ")
		}
	})
}

// TestViewIsolation: a view taken before an entry never sees it; one taken
// after does; records read from the old view keep their values.
func TestViewIsolation(t *testing.T) {
	l := newLogger(t)
	l.must(submit(1, "normal", "alice"), submit(2, "normal", "alice", func(n *api.EvJobNew) { n.ArrayIndices = []int32{1, 2} }),
		submit(3, "normal", "bob"), start(3, 0, "host1"))
	before := l.s.Latest()
	j1 := before.Job(Key{1, 0})
	text := render(before.s, true)
	stamp := before.PendingStamp("normal")
	l.must(start(1, 0, "host2"), submit(4, "short", "bob"), status(3, 0, api.StateDone),
		&api.Event{JobModify: &api.EvJobModify{JobID: 2, SetArrayLimit: true, ArrayLimit: 1}},
		&api.Event{JobMove: &api.EvJobMove{JobID: 2, Index: 2, Position: 1}},
		&api.Event{QueueCtrl: &api.EvQueueCtrl{Queue: "normal", Op: api.QueueClose}},
		&api.Event{HostCtrl: &api.EvHostCtrl{Host: "host1", Op: api.HostClose}})
	l.must(&api.Event{JobClean: &api.EvJobClean{JobID: 3}})
	if got := render(before.s, true); got != text {
		t.Fatalf("the view changed:\nthen\n%s\nnow\n%s", text, got)
	}
	if j1.State != api.StatePend || before.Job(Key{1, 0}) != j1 || !before.Listed(j1) || before.Position(j1) != 1 ||
		before.PendingStamp("normal") != stamp || before.Job(Key{3, 0}) == nil || before.QueueState("normal").Closed ||
		before.Array(2).Limit != 0 || before.Job(Key{2, 1}).Array.Limit != 0 || before.Job(Key{4, 0}) != nil {
		t.Fatal("the view taken before the entries sees them")
	}
	after := l.s.Latest()
	j1now := after.Job(Key{1, 0})
	if j1now == j1 || j1now.State != api.StateRun || after.Listed(j1) || after.Position(j1) != 0 ||
		after.PendingStamp("normal") == stamp || after.Job(Key{3, 0}) != nil || !after.QueueState("normal").Closed ||
		after.Array(2).Limit != 1 || after.Job(Key{2, 1}).Array.Limit != 1 || after.Job(Key{4, 0}) == nil ||
		!after.HostState("host1").Closed || after.Position(after.Job(Key{2, 2})) != 1 {
		t.Fatal("the view taken after the entries does not see them")
	}
	if strings.Contains(render(after.s, true), "STALE") {
		t.Fatal("the new view holds stale records")
	}
	// Without entries in between, readers share one snapshot.
	if l.s.Latest().s != after.s {
		t.Fatal("a view without a change in between is a new snapshot")
	}
}

// TestConcurrentReaders applies entries while readers walk views (run with
// -race: the applier must never write what a published view can reach),
// and checks that each view stays as it was while the applier goes on.
func TestConcurrentReaders(t *testing.T) {
	s := New()
	var wg sync.WaitGroup
	done := make(chan struct{})
	for r := 0; r < 3; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				v := s.Latest()
				first := render(v.s, true)
				n := 0
				for _, q := range v.PendingQueues() {
					v.Pending(q, func(j *Job) bool { n += int(j.Slots()) + v.Position(j)*0; return true })
				}
				v.Jobs(func(j *Job) bool { n += len(v.ByName(j.User, j.Name)); return true })
				for _, h := range v.StartedHosts() {
					v.OnHost(h, func(j *Job) bool { n += int(j.RunCount); return true })
				}
				if _, _, err := snapshotOf(s); err != nil {
					t.Error(err)
					return
				}
				if again := render(v.s, true); again != first {
					t.Error("a view changed while it was read")
					return
				}
			}
		}()
	}
	rapid.Check(t, func(rt *rapid.T) {
		var g eventGen
		g.next = s.Latest().LastJobID()
		for i := 0; i < 50; i++ {
			e := g.draw(rt)
			e.Time = int64(1_800_000_000+i) * sec
			s.Apply(uint64(i), &api.LogEntry{Events: []*api.Event{e}})
		}
	})
	close(done)
	wg.Wait()
}

// snapshotOf encodes s and restores the encoding into a new state.
func snapshotOf(s *State) (*State, []byte, error) {
	b, idx := s.Snapshot()
	r := New()
	return r, b, r.Restore(bytes.NewReader(b), idx)
}

// TestLongListsAgainstReferenceFold is the fold test at a size where
// pending lists span many chunks: insertions in the middle (user
// priorities, orders out of sequence) split chunks, removals and moves
// mark entries dead and compact, and views are taken every few entries.
func TestLongListsAgainstReferenceFold(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	cow, ref := New(), New()
	var views []*View
	var texts []string
	now := int64(1_800_000_000) * sec
	var next int64
	for i := 1; i <= 6000; i++ {
		now += sec
		var e *api.Event
		id := 1 + r.Int63n(next+1)
		switch k := r.Intn(10); {
		case k < 6 || next == 0:
			next++
			e = &api.Event{User: "alice", UID: 1000, JobNew: &api.EvJobNew{JobID: next, Queue: "normal",
				Order: (next + r.Int63n(200) - 100) << 20, UserPriority: int32(r.Intn(4)),
				Spec: &api.JobSpec{Command: "x"}}}
		case k < 7:
			e = &api.Event{JobStart: &api.EvJobStart{JobID: id, ExecHosts: []*api.ExecHost{{Host: "host1", Slots: 1}}}}
		case k < 8:
			e = &api.Event{JobStatus: &api.EvJobStatus{JobID: id, State: api.StatePend}}
		case k < 9:
			e = &api.Event{JobMove: &api.EvJobMove{JobID: id, Position: int32(1 + r.Intn(3000)), Bottom: r.Intn(2) == 0}}
		default:
			e = &api.Event{JobModify: &api.EvJobModify{JobID: id, Spec: &api.JobSpec{Command: "y", UserPriority: int32(r.Intn(4))}}}
		}
		e.Time = now
		cow.Apply(uint64(i), &api.LogEntry{Events: []*api.Event{e}})
		ref.Apply(uint64(i), &api.LogEntry{Events: []*api.Event{e}})
		if r.Intn(5) == 0 {
			v := cow.Latest()
			if i%500 == 0 {
				views, texts = append(views, v), append(texts, render(v.s, true))
			}
		}
		if i%1000 == 0 {
			if got, want := render(&cow.tables, false), render(&ref.tables, false); got != want {
				t.Fatalf("entry %d: the state differs from the reference", i)
			}
			checkInvariants(t, cow)
		}
	}
	// Several chunks, some split in the middle.
	p := cow.pending.m["normal"]
	split := false
	for _, c := range p.chunks[:len(p.chunks)-1] {
		split = split || len(c.es) != chunkMax
	}
	if len(p.chunks) < 4 || !split {
		t.Fatalf("the list has %d chunks, none split: the test does not exercise chunks", len(p.chunks))
	}
	for i, v := range views {
		if render(v.s, true) != texts[i] {
			t.Fatalf("view %d changed after it was taken", i)
		}
	}
}

var benchStateJobs = flag.Int("state.jobs", 100000, "pending jobs of BenchmarkApplyAfterSnapshot")

// BenchmarkApplyAfterSnapshot is what copy-on-write costs the applier:
// entries of one submission (submit) or one dispatch of a pending job
// (start) applied to a state of -state.jobs pending jobs in one queue,
// with a snapshot taken before every entry (each entry pays its copies:
// the worst case) or never.
func BenchmarkApplyAfterSnapshot(b *testing.B) {
	s := New()
	var next int64
	var idx uint64
	apply := func(evs ...*api.Event) {
		idx++
		s.Apply(idx, &api.LogEntry{Events: evs})
	}
	newJob := func() *api.Event {
		next++
		return &api.Event{User: "alice", UID: 1000, Time: next * sec, JobNew: &api.EvJobNew{JobID: next, Queue: "normal",
			Order: next << 20, Spec: &api.JobSpec{Command: "x", Env: []string{"PATH=/bin"}}}}
	}
	for next < int64(*benchStateJobs) {
		var evs []*api.Event
		for k := 0; k < 10000 && next < int64(*benchStateJobs); k++ {
			evs = append(evs, newJob())
		}
		apply(evs...)
	}
	started := int64(0)
	for _, op := range []string{"submit", "start"} {
		for _, snap := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/snapshot=%v", op, snap), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if snap {
						s.Latest()
					}
					if op == "submit" {
						apply(newJob())
						continue
					}
					started++
					apply(&api.Event{Time: next * sec, JobStart: &api.EvJobStart{JobID: started,
						ExecHosts: []*api.ExecHost{{Host: fmt.Sprintf("host%d", started%1000), Slots: 1}}}})
				}
			})
		}
	}
}
