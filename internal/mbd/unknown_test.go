package mbd

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/hashicorp/raft"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/api/wire"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
)

type warnLog struct {
	mu    sync.Mutex
	lines []string
}

func (w *warnLog) Warn(msg string, args ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lines = append(w.lines, fmt.Sprint(append([]any{msg}, args...)...))
}

// newerEntry is a log entry as a newer mbatchd could write it: a job
// submission whose EvJobNew carries a field 500, then an event of kind 77.
func newerEntry(id int64) []byte {
	inner := (&api.EvJobNew{JobID: id, Queue: "normal", Spec: &api.JobSpec{Command: "true"}}).AppendWire(nil)
	inner = wire.AppendTag(inner, 500, wire.VarintType)
	inner = wire.AppendVarint(inner, 1)
	ev := (&api.Event{Time: 1e18, User: "alice"}).AppendWire(nil)
	ev = wire.AppendTag(ev, 10, wire.BytesType)
	ev = wire.AppendBytes(ev, inner)
	kind77 := (&api.Event{Time: 1e18}).AppendWire(nil)
	kind77 = wire.AppendTag(kind77, 77, wire.BytesType)
	kind77 = wire.AppendBytes(kind77, []byte{8, 42})
	var b []byte
	b = wire.AppendTag(b, 1, wire.BytesType)
	b = wire.AppendBytes(b, ev)
	b = wire.AppendTag(b, 1, wire.BytesType)
	b = wire.AppendBytes(b, kind77)
	return b
}

// TestUnknownLogFields: the FSM applies what it knows of a newer version's
// entry, counts each unknown field and event kind, and warns once per kind.
func TestUnknownLogFields(t *testing.T) {
	st := state.New()
	w := &warnLog{}
	u := &unknownLog{}
	f := &fsm{st: st, log: w, unknown: u}
	for i := uint64(1); i <= 2; i++ {
		res := f.Apply(&raft.Log{Type: raft.LogCommand, Index: i, Data: newerEntry(int64(i))}).(applyResult)
		if res.err != nil || len(res.errs) != 2 || res.errs[0] != nil || !errors.Is(res.errs[1], state.ErrNoEvent) {
			t.Fatalf("entry %d: %+v", i, res)
		}
	}
	st.View(func(v *state.View) {
		if v.Job(state.Key{ID: 1}) == nil || v.Job(state.Key{ID: 2}) == nil {
			t.Error("the known events of the entries were not applied")
		}
	})
	if got, want := u.Counts(), map[string]uint64{"EvJobNew.500": 2, "Event.77": 2}; !reflect.DeepEqual(got, want) {
		t.Errorf("counts %v, want %v", got, want)
	}
	if len(w.lines) != 2 {
		t.Fatalf("warnings %q, want one per unknown kind", w.lines)
	}
	// A known entry adds nothing.
	known := (&api.LogEntry{Events: []*api.Event{{Time: 1e18, JobNew: &api.EvJobNew{JobID: 3, Queue: "normal", Spec: &api.JobSpec{Command: "true"}}}}}).AppendWire(nil)
	f.Apply(&raft.Log{Type: raft.LogCommand, Index: 3, Data: known})
	if got := u.Counts(); got["EvJobNew.500"] != 2 || len(got) != 2 || len(w.lines) != 2 {
		t.Errorf("after a known entry: counts %v, warnings %d", got, len(w.lines))
	}
}

// BenchmarkUnknownScan: what counting unknown fields adds to decoding an
// entry of 100 submissions (the FSM decodes every entry; its scan is the
// extra).
func BenchmarkUnknownScan(b *testing.B) {
	e := &api.LogEntry{}
	for i := int64(1); i <= 100; i++ {
		e.Events = append(e.Events, &api.Event{Time: 1e18, User: "alice", UID: 1001, JobNew: &api.EvJobNew{JobID: i, Queue: "normal",
			JobName: "job", Project: "default", NumProcs: 1, MaxProcs: 1, Order: i << 20,
			Spec: &api.JobSpec{Command: "sleep 1", Cwd: "/home/alice", Env: []string{"PATH=/bin:/usr/bin", "HOME=/home/alice", "USER=alice"},
				OutFile: "out.%J"}}})
	}
	data := e.AppendWire(nil)
	u := &unknownLog{}
	b.Run("decode", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			var e api.LogEntry
			if err := e.UnmarshalWire(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("scan", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			u.scan(1, data, nil)
		}
		if len(u.Counts()) != 0 {
			b.Fatal("unknown fields in a known entry")
		}
	})
}
