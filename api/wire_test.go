package api

import (
	"bytes"
	"errors"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/basalt-lsf/basalt/api/wire"
)

// allMessages lists one zero value of every message type, so the tests below
// cover each generated codec.
func allMessages() []wire.Message {
	return []wire.Message{
		&Limits{}, &FileTransfer{}, &JobSpec{}, &ExecHost{}, &Usage{}, &PendReason{}, &JobRecord{},
		&Status{}, &JobRef{}, &SubmitRequest{}, &SubmitResult{}, &SubmitReply{}, &JobsRequest{}, &JobsReply{},
		&ControlRequest{}, &ControlResult{}, &ControlReply{}, &ModifyRequest{}, &Threshold{}, &ShareAccount{},
		&KeyValue{}, &QueueInfo{}, &QueuesRequest{}, &QueuesReply{}, &LoadValue{}, &HostInfo{}, &HostsRequest{},
		&HostsReply{}, &UserInfo{}, &UsersRequest{}, &UsersReply{}, &Group{}, &GroupsRequest{}, &GroupsReply{},
		&ParamsRequest{}, &ParamsReply{}, &HistoryEvent{}, &JobHistory{}, &HistoryReply{}, &AdminRequest{},
		&AdminResult{}, &AdminReply{}, &InfoRequest{}, &InfoReply{},
		&SbdMessage{}, &MbdMessage{}, &SbdHello{}, &JobStatusReport{}, &Ack{}, &QueueExec{}, &JobLaunch{},
		&JobSignal{}, &SbdControl{}, &LogEntry{}, &Event{}, &EvJobNew{}, &EvJobStart{}, &EvJobExecute{}, &EvJobStatus{}, &EvJobSignal{}, &EvJobSwitch{}, &EvJobMove{}, &EvJobModify{}, &EvJobClean{}, &EvJobRequeue{}, &EvJobForce{}, &EvQueueCtrl{}, &EvHostCtrl{}, &EvMbdStart{}, &EvReconfig{}, &SnapRecord{}, &SnapMeta{}, &SnapPreemptCt{}, &SnapQueue{}, &SnapHost{}, &SnapEnv{}, &SnapSpec{}, &SnapArray{}, &SnapJob{}, &SbdWelcome{}, &PeekRequest{}, &PeekChunk{},
	}
}

// fill sets every field of v (a pointer to struct) to a random non-zero value.
func fill(r *rand.Rand, v reflect.Value, depth int) {
	switch v.Kind() {
	case reflect.Pointer:
		if depth > 3 {
			return
		}
		v.Set(reflect.New(v.Type().Elem()))
		fill(r, v.Elem(), depth+1)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			fill(r, v.Field(i), depth)
		}
	case reflect.String:
		v.SetString(randString(r))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int32, reflect.Int64:
		x := r.Int63n(1<<40) - 1<<39 // negative values too
		if x == 0 {
			x = -1
		}
		if v.Kind() == reflect.Int32 {
			x = int64(int32(x))
			if x == 0 {
				x = 7
			}
		}
		v.SetInt(x)
	case reflect.Uint32, reflect.Uint64:
		x := r.Uint64()
		if v.Kind() == reflect.Uint32 {
			x = uint64(uint32(x))
		}
		if x == 0 {
			x = 9
		}
		v.SetUint(x)
	case reflect.Float64:
		v.SetFloat(r.NormFloat64()*1e6 + 0.5)
	case reflect.Slice:
		n := 1 + r.Intn(3)
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := 0; i < n; i++ {
			if v.Type().Elem().Kind() == reflect.Uint8 {
				s.Index(i).SetUint(uint64(r.Intn(256)))
				continue
			}
			fill(r, s.Index(i), depth)
		}
		v.Set(s)
	}
}

func randString(r *rand.Rand) string {
	const chars = "abcXYZ 09_-/\"\n\x00é"
	n := 1 + r.Intn(12)
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(string([]rune(chars)[r.Intn(len([]rune(chars)))]))
	}
	return b.String()
}

func TestRoundTripEveryMessage(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, proto := range allMessages() {
		typ := reflect.TypeOf(proto).Elem()
		t.Run(typ.Name(), func(t *testing.T) {
			for i := 0; i < 50; i++ {
				in := reflect.New(typ)
				fill(r, in.Elem(), 0)
				m := in.Interface().(wire.Message)
				b := wire.Marshal(m)
				if len(b) != m.SizeWire() {
					t.Fatalf("SizeWire = %d, encoded %d bytes", m.SizeWire(), len(b))
				}
				out := reflect.New(typ).Interface().(wire.Message)
				if err := out.UnmarshalWire(b); err != nil {
					t.Fatalf("unmarshal: %v", err)
				}
				if !reflect.DeepEqual(m, out) {
					t.Fatalf("round trip changed the message:\n in  %+v\n out %+v", m, out)
				}
			}
		})
	}
}

func TestZeroMessageEncodesEmpty(t *testing.T) {
	for _, m := range allMessages() {
		if b := wire.Marshal(m); len(b) != 0 {
			t.Errorf("%T: zero message encodes to %d bytes", m, len(b))
		}
	}
	var nilSpec *JobSpec
	if nilSpec.SizeWire() != 0 || len(nilSpec.AppendWire(nil)) != 0 {
		t.Error("nil message must encode to nothing")
	}
}

func TestUnknownFieldsSkipped(t *testing.T) {
	in := &JobRef{JobID: 42, Index: 3}
	b := wire.Marshal(in)
	// Fields a newer version might add: varint, fixed64, bytes, fixed32.
	b = wire.AppendTag(b, 100, wire.VarintType)
	b = wire.AppendVarint(b, 1<<40)
	b = wire.AppendTag(b, 101, wire.Fixed64Type)
	b = wire.AppendFixed64(b, 5)
	b = wire.AppendTag(b, 102, wire.BytesType)
	b = wire.AppendString(b, "future")
	b = wire.AppendTag(b, 103, wire.Fixed32Type)
	b = append(b, 1, 2, 3, 4)
	var out JobRef
	if err := out.UnmarshalWire(b); err != nil {
		t.Fatal(err)
	}
	if out != *in {
		t.Fatalf("got %+v, want %+v", out, *in)
	}
}

func TestPackedAndUnpackedRepeated(t *testing.T) {
	// A peer may send repeated scalars unpacked; both forms decode.
	var b []byte
	for _, v := range []int32{5, -1, 7} {
		b = wire.AppendTag(b, 11, wire.VarintType)
		b = wire.AppendVarint(b, uint64(int64(v)))
	}
	var u Usage
	if err := u.UnmarshalWire(b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(u.PIDs, []int32{5, -1, 7}) {
		t.Fatalf("PIDs = %v", u.PIDs)
	}
}

func TestMalformedInputErrors(t *testing.T) {
	spec := wire.Marshal(&JobSpec{Command: "sleep 10", Queues: []string{"normal"}})
	tests := []struct {
		name string
		msg  wire.Message
		in   []byte
		want string
	}{
		{"truncated tag", &JobRef{}, []byte{0x80}, "wire: JobRef: at byte 0: truncated input"},
		{"field zero", &JobRef{}, []byte{0x00, 0x01}, "wire: JobRef: at byte 0: invalid field number"},
		{"wrong wire type", &JobRef{}, []byte{0x0a, 0x00}, "wire: JobRef: field 1 at byte 0: unexpected wire type 2"},
		{"truncated varint", &JobRef{}, []byte{0x08, 0xff}, "wire: JobRef: field 1 at byte 1: truncated input"},
		{"overlong varint", &JobRef{}, append([]byte{0x08}, bytes.Repeat([]byte{0xff}, 11)...), "wire: JobRef: field 1 at byte 1: varint overflows 64 bits"},
		{"length beyond input", &JobSpec{}, []byte{0x0a, 0x05, 'a'}, "wire: JobSpec: field 1 at byte 1: length exceeds input"},
		{"bad nested message", &SubmitRequest{}, []byte{0x0a, 0x02, 0x0a, 0x05}, "wire: SubmitRequest: field 1 at byte 1: wire: JobSpec: field 1 at byte 1: length exceeds input"},
		{"truncated double", &Threshold{}, []byte{0x11, 1, 2}, "wire: Threshold: field 2 at byte 1: truncated input"},
		{"unknown wire type", &JobRef{}, []byte{0x1b}, "wire: JobRef: field 3 at byte 1: unsupported wire type"},
		{"truncated spec", &JobSpec{}, spec[:len(spec)-1], "wire: JobSpec: field 4 at byte 11: length exceeds input"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.msg.UnmarshalWire(tc.in)
			if err == nil {
				t.Fatal("no error")
			}
			if err.Error() != tc.want {
				t.Fatalf("error = %q\n want %q", err, tc.want)
			}
			var we *wire.Error
			if !errors.As(err, &we) {
				t.Fatalf("error %T is not a *wire.Error", err)
			}
		})
	}
}

// FuzzUnmarshal: decoding arbitrary bytes never panics, and whatever decodes
// re-encodes to a canonical form that decodes to the same message.
func FuzzUnmarshal(f *testing.F) {
	r := rand.New(rand.NewSource(2))
	for _, m := range []wire.Message{&JobRecord{}, &SbdMessage{}, &MbdMessage{}, &ControlRequest{}} {
		v := reflect.New(reflect.TypeOf(m).Elem())
		fill(r, v.Elem(), 0)
		f.Add(wire.Marshal(v.Interface().(wire.Message)))
	}
	f.Add([]byte{0x08, 0x96, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, m := range []wire.Message{&JobRecord{}, &MbdMessage{}, &SbdMessage{}, &QueueInfo{}} {
			if err := m.UnmarshalWire(b); err != nil {
				continue
			}
			c := wire.Marshal(m)
			m2 := reflect.New(reflect.TypeOf(m).Elem()).Interface().(wire.Message)
			if err := m2.UnmarshalWire(c); err != nil {
				t.Fatalf("%T: canonical re-encoding does not decode: %v", m, err)
			}
			if !bytes.Equal(wire.Marshal(m2), c) {
				t.Fatalf("%T: encoding is not canonical", m)
			}
		}
	})
}

func sampleRecord() *JobRecord {
	return &JobRecord{
		JobID: 123456, User: "alice", State: StateRun, Queue: "normal", FromHost: "host1",
		ExecHosts: []*ExecHost{{Host: "host2", Slots: 4}}, JobName: "align sample_42.fq",
		SubmitTime: 1795000000, StartTime: 1795000010, NumSlots: 4,
		Spec: &JobSpec{Command: "bwa mem ref.fa sample_42.fq > out.sam", Queues: []string{"normal"},
			ResReq: []string{"select[mem>4000] rusage[mem=4000] span[hosts=1]"}, OutFile: "out.%J", SubCwd: "/home/alice/proj",
			Limits: &Limits{Run: 3600, Mem: 8 << 20}, Project: "genomics"},
		Usage: &Usage{CPUTime: 12.5, Mem: 120000, Swap: 300000, NThreads: 4, PGID: 4242, PIDs: []int32{4242, 4243, 4244}},
	}
}

func BenchmarkMarshalJobRecord(b *testing.B) {
	rec := sampleRecord()
	buf := make([]byte, 0, 1024)
	b.ReportAllocs()
	for b.Loop() {
		buf = rec.AppendWire(buf[:0])
	}
	b.SetBytes(int64(len(buf)))
}

func BenchmarkUnmarshalJobRecord(b *testing.B) {
	enc := wire.Marshal(sampleRecord())
	var rec JobRecord
	b.ReportAllocs()
	b.SetBytes(int64(len(enc)))
	for b.Loop() {
		if err := rec.UnmarshalWire(enc); err != nil {
			b.Fatal(err)
		}
	}
}
