package api

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/basalt-lsf/basalt/api/wire"
)

func TestUnknownFields(t *testing.T) {
	known := (&LogEntry{Events: []*Event{{Time: 5, User: "u", JobNew: &EvJobNew{JobID: 3, Spec: &JobSpec{Command: "sleep 1"}}}}}).AppendWire(nil)
	// A newer version's event: kind 899, and a field 900 inside EvJobNew's
	// JobSpec, and a field 30 of the entry itself.
	ev := (&Event{Time: 6}).AppendWire(nil)
	ev = wire.AppendTag(ev, 899, wire.BytesType)
	ev = wire.AppendBytes(ev, []byte{8, 1})
	spec := (&JobSpec{Command: "x"}).AppendWire(nil)
	spec = wire.AppendTag(spec, 900, wire.VarintType)
	spec = wire.AppendVarint(spec, 7)
	jn := wire.AppendTag(nil, 2, wire.BytesType)
	jn = wire.AppendBytes(jn, spec)
	ev2 := wire.AppendTag(nil, 10, wire.BytesType)
	ev2 = wire.AppendBytes(ev2, jn)
	newer := append([]byte(nil), known...)
	newer = wire.AppendTag(newer, 1, wire.BytesType)
	newer = wire.AppendBytes(newer, ev)
	newer = wire.AppendTag(newer, 1, wire.BytesType)
	newer = wire.AppendBytes(newer, ev2)
	newer = wire.AppendTag(newer, 30, wire.Fixed64Type)
	newer = append(newer, 1, 2, 3, 4, 5, 6, 7, 8)

	tests := []struct {
		name string
		b    []byte
		want []string
	}{
		{"known", known, nil},
		{"empty", nil, nil},
		{"newer", newer, []string{"Event.899", "JobSpec.900", "LogEntry.30"}},
	}
	for _, tc := range tests {
		var got []string
		err := UnknownFields("LogEntry", tc.b, func(m string, n int) { got = append(got, fmt.Sprintf("%s.%d", m, n)) })
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %q %v, want %q", tc.name, got, err, tc.want)
		}
		var e LogEntry
		if err := e.UnmarshalWire(tc.b); err != nil {
			t.Errorf("%s: the codec refuses what UnknownFields walks: %v", tc.name, err)
		}
	}
	if err := UnknownFields("LogEntry", known[:len(known)-1], func(string, int) {}); err == nil {
		t.Error("truncated entry: no error")
	}
	if err := UnknownFields("NoSuch", known, func(string, int) {}); err == nil {
		t.Error("unknown message: no error")
	}
}

func BenchmarkUnknownFields(b *testing.B) {
	e := goldenEntry(eventKinds()[0])
	data := e.AppendWire(nil)
	b.Run("walk", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if err := UnknownFields("LogEntry", data, func(string, int) { b.Fatal("unknown field") }); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("unmarshal", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			var e LogEntry
			if err := e.UnmarshalWire(data); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// FuzzUnknownFields: no input makes the walk panic, and whatever the
// codec decodes, the walk walks.
func FuzzUnknownFields(f *testing.F) {
	f.Add((&LogEntry{Events: []*Event{{Time: 1, JobNew: &EvJobNew{JobID: 1, Spec: &JobSpec{Command: "x"}}}}}).AppendWire(nil))
	f.Add([]byte{0x0a, 0x03, 0xd2, 0x05, 0x00})
	f.Fuzz(func(t *testing.T, b []byte) {
		err := UnknownFields("LogEntry", b, func(string, int) {})
		var e LogEntry
		if e.UnmarshalWire(b) == nil && err != nil {
			t.Fatalf("the codec decodes what the walk refuses: %v", err)
		}
	})
}
