package raftlog

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/raft"
)

func TestRecordRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		log  raft.Log
	}{
		{"empty", raft.Log{Index: 1, Term: 1}},
		{"data", raft.Log{Index: 7, Term: 3, Type: raft.LogCommand, Data: []byte("hello")}},
		{"extensions only", raft.Log{Index: 8, Term: 3, Type: raft.LogNoop, Extensions: []byte{1, 2, 3}}},
		{"both", raft.Log{Index: 1 << 40, Term: 1 << 33, Type: raft.LogConfiguration, Data: []byte("d"), Extensions: []byte("e")}},
		{"appended at", raft.Log{Index: 9, Term: 1, Data: []byte("x"), AppendedAt: time.Unix(1712345678, 123456789)}},
		{"unknown type", raft.Log{Index: 10, Term: 1, Type: 200}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, flags := range []uint8{0, flagBatchStart} {
				b := appendRecord([]byte("prefix"), &tt.log, flags)[len("prefix"):]
				if len(b) != encodedSize(&tt.log) {
					t.Fatalf("encoded %d bytes, encodedSize says %d", len(b), encodedSize(&tt.log))
				}
				r, n, err := decodeRecord(append(b, 0xAA, 0xBB), 1<<20)
				if err != nil {
					t.Fatalf("decode: %v", err)
				}
				if n != len(b) || r.flags != flags {
					t.Fatalf("n=%d flags=%#x, want %d %#x", n, r.flags, len(b), flags)
				}
				var got raft.Log
				r.toLog(&got)
				if !sameLog(&got, &tt.log) {
					t.Fatalf("round trip = %+v, want %+v", got, tt.log)
				}
			}
		})
	}
}

// TestDecodeRecordErrors is the record decoder's error table: each case
// damages a valid record and expects the error at a given offset.
func TestDecodeRecordErrors(t *testing.T) {
	valid := appendRecord(nil, &raft.Log{Index: 5, Term: 2, Data: []byte("payload"), Extensions: []byte("ext")}, flagBatchStart)
	// edit returns a copy of valid changed by f, with the CRC recomputed
	// when fixCRC is set (so the check under test is not the CRC).
	edit := func(fixCRC bool, f func(b []byte) []byte) []byte {
		b := f(append([]byte(nil), valid...))
		if fixCRC && len(b) >= minRecordSize {
			binary.LittleEndian.PutUint32(b[4:], recordCRC(b))
		}
		return b
	}
	tests := []struct {
		name   string
		in     []byte
		max    int
		offset int64
		short  bool
		reason string
	}{
		{"empty", nil, 1 << 20, 0, true, "record header cut short: 0 of 8 bytes"},
		{"header cut", valid[:5], 1 << 20, 5, true, "record header cut short: 5 of 8 bytes"},
		{"payload cut", valid[:len(valid)-1], 1 << 20, int64(len(valid) - 1), true, "record cut short"},
		{"prefix only", valid[:8], 1 << 20, 8, true, "record cut short: 8 of 50 bytes"},
		{"length below minimum", edit(false, func(b []byte) []byte { binary.LittleEndian.PutUint32(b, 31); return b }),
			1 << 20, 0, false, "record length 31 is below the minimum 32"},
		{"length zero", make([]byte, 64), 1 << 20, 0, false, "record length 0 is below the minimum 32"},
		{"length above maximum", valid, 49, 0, false, "record length 50 exceeds the maximum 49"},
		{"huge length", edit(false, func(b []byte) []byte { binary.LittleEndian.PutUint32(b, 0xFFFFFFFF); return b }),
			1 << 20, 0, false, "exceeds the maximum"},
		{"crc", edit(false, func(b []byte) []byte { b[45] ^= 1; return b }), 1 << 20, 4, false, "checksum mismatch"},
		{"crc field", edit(false, func(b []byte) []byte { b[4] ^= 0x80; return b }), 1 << 20, 4, false, "checksum mismatch"},
		{"length changed", edit(false, func(b []byte) []byte { b[0]--; return b[:len(b)-1] }), 1 << 20, 4, false, "checksum mismatch"},
		{"data length", edit(true, func(b []byte) []byte { binary.LittleEndian.PutUint32(b[32:], 11); return b }),
			1 << 20, 32, false, "data length 11 exceeds the record's 10 payload bytes"},
		{"unknown flag", edit(true, func(b []byte) []byte { b[37] |= 0x80; return b }), 1 << 20, 37, false, "unknown flags 0x81"},
		{"reserved", edit(true, func(b []byte) []byte { b[39] = 1; return b }), 1 << 20, 38, false, "reserved bytes are not zero"},
		{"index zero", edit(true, func(b []byte) []byte { binary.LittleEndian.PutUint64(b[8:], 0); return b }), 1 << 20, 8, false, "raft index 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, n, err := decodeRecord(tt.in, tt.max)
			var de *decodeError
			if !errors.As(err, &de) {
				t.Fatalf("decodeRecord = n %d, err %v; want a *decodeError", n, err)
			}
			if de.Offset != tt.offset || de.Short != tt.short || !strings.Contains(de.Reason, tt.reason) {
				t.Fatalf("error = offset %d short %v %q; want offset %d short %v containing %q",
					de.Offset, de.Short, de.Reason, tt.offset, tt.short, tt.reason)
			}
		})
	}
}

func TestSegHeader(t *testing.T) {
	good := segHeader{seq: 42, base: 1000}.encode()
	mut := func(i int, v byte) []byte { b := append([]byte(nil), good...); b[i] = v; return b }
	fix := func(b []byte) []byte { binary.LittleEndian.PutUint32(b[12:], headerCRC(b)); return b }
	tests := []struct {
		name   string
		in     []byte
		offset int64
		reason string
	}{
		{"short", good[:39], 39, "header cut short: 39 of 40 bytes"},
		{"empty", nil, 0, "header cut short: 0 of 40 bytes"},
		{"magic", mut(0, 'X'), 0, "bad magic"},
		{"version", fix(mut(8, 2)), 8, "unsupported format version 2"},
		{"crc", mut(20, 0xFF), 12, "checksum mismatch"},
		{"reserved", fix(mut(35, 1)), 35, "reserved header bytes are not zero"},
		{"base zero", fix(append(append([]byte(nil), good[:24]...), make([]byte, 16)...)), 24, "base index 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decodeSegHeader(tt.in)
			var de *decodeError
			if !errors.As(err, &de) || de.Offset != tt.offset || !strings.Contains(de.Reason, tt.reason) {
				t.Fatalf("decodeSegHeader: %v; want offset %d %q", err, tt.offset, tt.reason)
			}
		})
	}
	h, err := decodeSegHeader(good)
	if err != nil || h != (segHeader{seq: 42, base: 1000}) {
		t.Fatalf("decodeSegHeader(good) = %+v, %v", h, err)
	}
}

func TestMetaDecode(t *testing.T) {
	m := metaState{firstSeg: 3, firstIndex: 77, firstOffset: 4096}
	good := m.encode()
	fix := func(b []byte) []byte { binary.LittleEndian.PutUint32(b[12:], headerCRC(b)); return b }
	tests := []struct {
		name   string
		in     []byte
		offset int64
		reason string
	}{
		{"short", good[:10], 10, "header cut short"},
		{"trailing", fix(append(append([]byte(nil), good...), 0)), 12, "checksum mismatch"},
		{"crc", append(append([]byte(nil), good[:30]...), 9, 9, 9, 9, 9, 9, 9, 9, 9, 9), 12, "checksum mismatch"},
		{"offset in header", metaState{firstSeg: 1, firstIndex: 5, firstOffset: 10}.encode(), 32, "inside the segment header"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decodeMeta(tt.in)
			var de *decodeError
			if !errors.As(err, &de) || de.Offset != tt.offset || !strings.Contains(de.Reason, tt.reason) {
				t.Fatalf("decodeMeta: %v; want offset %d %q", err, tt.offset, tt.reason)
			}
		})
	}
	got, err := decodeMeta(good)
	if err != nil || got != m {
		t.Fatalf("decodeMeta(good) = %+v, %v", got, err)
	}
	if got, err := decodeMeta(metaState{firstSeg: 9}.encode()); err != nil || got != (metaState{firstSeg: 9}) {
		t.Fatalf("decodeMeta(empty log) = %+v, %v", got, err)
	}
}

func TestKVDecode(t *testing.T) {
	kv := map[string][]byte{"CurrentTerm": {0, 0, 0, 0, 0, 0, 0, 7}, "LastVoteCand": []byte("node1"), "": nil}
	good := encodeKV(kv)
	got, err := decodeKV(good)
	if err != nil || len(got) != 3 || string(got["LastVoteCand"]) != "node1" || got["CurrentTerm"][7] != 7 {
		t.Fatalf("decodeKV(good) = %v, %v", got, err)
	}
	fix := func(b []byte) []byte { binary.LittleEndian.PutUint32(b[12:], headerCRC(b)); return b }
	count := func(n uint32) []byte {
		b := append([]byte(nil), good...)
		binary.LittleEndian.PutUint32(b[16:], n)
		return fix(b)
	}
	oneKey := encodeKV(map[string][]byte{"k": []byte("v")}) // 20 + 4+1 + 4+1 = 30 bytes
	tests := []struct {
		name   string
		in     []byte
		offset int64
		reason string
	}{
		{"short header", good[:19], 19, "header cut short"},
		{"magic", append([]byte("XXXXXXXX"), good[8:]...), 0, "bad magic"},
		{"crc", append(append([]byte(nil), good[:len(good)-1]...), good[len(good)-1]^1), 12, "checksum mismatch"},
		{"too many entries", count(4), int64(len(good)), "key length cut short"},
		{"trailing", count(2), 0, "trailing bytes"},
		{"key past end", fix(func() []byte { b := append([]byte(nil), oneKey...); b[20] = 50; return b }()), 20, "key length 50 runs past the end"},
		{"value past end", fix(func() []byte { b := append([]byte(nil), oneKey...); b[25] = 2; return b }()), 25, "value length 2 runs past the end"},
		{"duplicate", fix(func() []byte {
			b := append([]byte(nil), oneKey...)
			binary.LittleEndian.PutUint32(b[16:], 2)
			return append(b, oneKey[20:]...)
		}()), 30, `duplicate key "k"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decodeKV(tt.in)
			var de *decodeError
			if !errors.As(err, &de) || (tt.offset != 0 && de.Offset != tt.offset) || !strings.Contains(de.Reason, tt.reason) {
				t.Fatalf("decodeKV: %v; want offset %d %q", err, tt.offset, tt.reason)
			}
		})
	}
}

func TestSegName(t *testing.T) {
	tests := []struct {
		name string
		seq  uint64
		ok   bool
	}{
		{"00000000000000000001.seg", 1, true},
		{"18446744073709551615.seg", 1<<64 - 1, true},
		{"99999999999999999999.seg", 0, false}, // overflows
		{"0000000000000000001.seg", 0, false},
		{"0000000000000000000a.seg", 0, false},
		{"00000000000000000001.seg.tmp", 0, false},
		{"meta", 0, false},
	}
	for _, tt := range tests {
		seq, ok := parseSegName(tt.name)
		if seq != tt.seq || ok != tt.ok {
			t.Errorf("parseSegName(%q) = %d, %v; want %d, %v", tt.name, seq, ok, tt.seq, tt.ok)
		}
	}
	if got := segName(12); got != "00000000000000000012.seg" {
		t.Errorf("segName(12) = %q", got)
	}
}

// FuzzDecodeRecord: the decoder never panics, never claims more bytes than
// it has, and what it accepts re-encodes to the same bytes.
func FuzzDecodeRecord(f *testing.F) {
	f.Add(appendRecord(nil, &raft.Log{Index: 1, Term: 1, Data: []byte("x")}, flagBatchStart))
	f.Add(appendRecord(nil, &raft.Log{Index: 3, Term: 2, Extensions: []byte("e"), AppendedAt: time.Unix(5, 6)}, 0))
	f.Add([]byte{})
	f.Add(make([]byte, 40))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, n, err := decodeRecord(b, 1<<16)
		if err != nil {
			var de *decodeError
			if !errors.As(err, &de) || de.Offset < 0 || de.Offset > int64(len(b)) {
				t.Fatalf("bad error %v", err)
			}
			return
		}
		if n < minRecordSize || n > len(b) {
			t.Fatalf("n = %d for %d bytes", n, len(b))
		}
		var l raft.Log
		r.toLog(&l)
		if r.appendedAt != 0 && l.AppendedAt.UnixNano() != r.appendedAt {
			t.Fatalf("AppendedAt lost precision")
		}
		again := appendRecord(nil, &l, r.flags)
		if string(again) != string(b[:n]) {
			t.Fatalf("re-encoding differs:\n%x\n%x", again, b[:n])
		}
	})
}
