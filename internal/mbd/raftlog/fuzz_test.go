package raftlog

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/raft"
)

// fuzzRecords encodes a valid run of records: batches of the given sizes
// from index 1.
func fuzzRecords(sizes ...int) []byte {
	var b []byte
	next := uint64(1)
	for _, n := range sizes {
		for i := 0; i < n; i++ {
			var flags uint8
			if i == 0 {
				flags = flagBatchStart
			}
			b = appendRecord(b, entry(next, 1, int(next%17)), flags)
			next++
		}
	}
	return b
}

// FuzzOpen writes body after a valid header as segment 1 (the tail, or
// followed by a sealed-off segment 2 when sealed is set) and opens the
// directory. Open must not panic and must either fail with a *CorruptError
// positioned inside one of the files, or succeed with a log that is a prefix
// of the file (recovery only ever cuts), every entry readable, and accept
// and keep a further entry across another reopen.
func FuzzOpen(f *testing.F) {
	valid := fuzzRecords(1, 3, 2)
	f.Add(valid, false)
	f.Add(valid, true)
	f.Add(valid[:len(valid)-7], false)
	f.Add([]byte{}, false)
	f.Add(make([]byte, 100), false)
	flipped := bytes.Clone(valid)
	flipped[60] ^= 1
	f.Add(flipped, false)
	f.Add(flipped, true)
	f.Add(append(bytes.Clone(valid), fuzzRecords(1)...), false) // index restarts
	f.Fuzz(func(t *testing.T, body []byte, sealed bool) {
		dir := t.TempDir()
		seg1 := filepath.Join(dir, segName(1))
		orig := append(segHeader{seq: 1, base: 1}.encode(), body...)
		if err := os.WriteFile(seg1, orig, 0o600); err != nil {
			t.Fatal(err)
		}
		sizes := map[string]int64{seg1: int64(len(orig))}
		if sealed {
			// Segment 2 continues where segment 1's valid prefix ends,
			// with one record.
			n := uint64(0)
			for rest := body; ; n++ {
				r, k, err := decodeRecord(rest, DefaultMaxRecordSize)
				if err != nil || r.index != n+1 {
					break
				}
				rest = rest[k:]
			}
			seg2 := filepath.Join(dir, segName(2))
			b := segHeader{seq: 2, base: n + 1}.encode()
			b = appendRecord(b, entry(n+1, 1, 3), flagBatchStart)
			if err := os.WriteFile(seg2, b, 0o600); err != nil {
				t.Fatal(err)
			}
			sizes[seg2] = int64(len(b))
		}
		s, err := Open(context.Background(), dir, Options{})
		if err != nil {
			var ce *CorruptError
			if !errors.As(err, &ce) {
				t.Fatalf("Open = %v, want a *CorruptError", err)
			}
			if size, ok := sizes[ce.File]; !ok || ce.Offset < 0 || ce.Offset > size {
				t.Fatalf("error %v is not positioned inside a segment file", err)
			}
			if !strings.Contains(err.Error(), ce.File) {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		first, _ := s.FirstIndex()
		last, _ := s.LastIndex()
		if (first == 0) != (last == 0) || (first != 0 && first != 1) {
			t.Fatalf("log range [%d, %d]", first, last)
		}
		for i := first; i <= last && last != 0; i++ {
			var l raft.Log
			if err := s.GetLog(i, &l); err != nil {
				t.Fatalf("GetLog(%d): %v", i, err)
			}
		}
		if now, err := os.ReadFile(seg1); err == nil && !bytes.HasPrefix(orig, now) {
			t.Fatalf("recovery rewrote the segment instead of cutting it")
		}
		if err := s.StoreLog(entry(last+1, 2, 5)); err != nil {
			t.Fatalf("StoreLog after recovery: %v", err)
		}
		s.Close()
		s, err = Open(context.Background(), dir, Options{})
		if err != nil {
			t.Fatalf("second Open: %v", err)
		}
		defer s.Close()
		if l2, _ := s.LastIndex(); l2 != last+1 || s.Repaired() != nil {
			t.Fatalf("second Open: last %d (want %d), repaired %+v", l2, last+1, s.Repaired())
		}
	})
}
