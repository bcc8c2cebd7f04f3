package sbdwire

import (
	"reflect"
	"testing"

	"github.com/basalt-lsf/basalt/api/wire"
)

func TestRoundTrip(t *testing.T) {
	msgs := []struct {
		in, out wire.Message
	}{
		{&Params{Host: "h1", UID: 1001, Groups: []int32{5, -1}, ExecArgv: []string{"/bin/basalt", "job-shepherd"},
			TerminateInterval: 10e9, JobCPULimit: 2, MemLimitEnforce: true, EexecInput: []byte("x\x00y")}, &Params{}},
		{&Command{Op: OpTerminate, Signal: 9, TermReason: "TERM_OWNER", Requeue: true, Seq: 1 << 40}, &Command{}},
		{&Ack{Seq: 3, Err: "no such job"}, &Ack{}},
		{&ExecSpec{Argv: []string{"/bin/sh", "job"}, Dirs: []string{"/a", "/tmp"}, Umask: 0o22, SetMask: true,
			Rlimits: []*Rlimit{{Resource: 1, Cur: 1<<63 + 5, Max: ^uint64(0)}}, Stdout: &FileSpec{Path: "o", Append: true, DirName: "1.out"},
			StderrToStdout: true, Nice: -5}, &ExecSpec{}},
		{&ExecResult{Dir: "/tmp", OpenErrors: []string{"a", "b"}, Errno: 2, Step: "exec"}, &ExecResult{}},
	}
	for _, m := range msgs {
		b := wire.Marshal(m.in)
		if err := m.out.UnmarshalWire(b); err != nil {
			t.Fatalf("%T: %v", m.in, err)
		}
		if !reflect.DeepEqual(m.in, m.out) {
			t.Errorf("%T round trip:\n got %+v\nwant %+v", m.in, m.out, m.in)
		}
	}
}

func FuzzUnmarshal(f *testing.F) {
	f.Add(wire.Marshal(&ExecSpec{Argv: []string{"a"}, Stdin: &FileSpec{Path: "i", Read: true}}))
	f.Add(wire.Marshal(&Command{Op: 1, Seq: 2}))
	f.Add([]byte{0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, m := range []wire.Message{&Params{}, &Command{}, &Ack{}, &ExecSpec{}, &ExecResult{}} {
			if m.UnmarshalWire(b) == nil {
				// What decodes must re-encode and decode to the same value.
				again := reflect.New(reflect.TypeOf(m).Elem()).Interface().(wire.Message)
				if err := again.UnmarshalWire(wire.Marshal(m)); err != nil {
					t.Fatalf("%T: re-decoding: %v", m, err)
				}
			}
		}
	})
}
