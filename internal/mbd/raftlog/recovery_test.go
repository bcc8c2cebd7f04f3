package raftlog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// loc is where a record lies: file, byte offset, end offset.
type loc struct {
	path     string
	off, end int64
}

// layout maps every live index of s to its record's location.
func layout(s *Store) map[uint64]loc {
	s.mu.RLock()
	defer s.mu.RUnlock()
	m := make(map[uint64]loc)
	for _, g := range s.segs {
		for i, off := range g.offs {
			end := g.size
			if i+1 < len(g.offs) {
				end = g.offs[i+1]
			}
			m[g.lo+uint64(i)] = loc{g.path, off, end}
		}
	}
	return m
}

// buildLog writes batches of the given sizes (30-byte entries, term 1)
// into a fresh directory and returns it with the records' locations.
func buildLog(t *testing.T, opts Options, sizes ...uint64) (string, map[uint64]loc) {
	t.Helper()
	dir := t.TempDir()
	s := openT(t, dir, opts)
	next := uint64(1)
	for _, n := range sizes {
		mustStore(t, s, batch(next, n, 1, 30))
		next += n
	}
	lay := layout(s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, lay
}

func truncateFile(t *testing.T, path string, size int64) {
	t.Helper()
	if err := os.Truncate(path, size); err != nil {
		t.Fatal(err)
	}
}

func flipByte(t *testing.T, path string, off int64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[off] ^= 0x5A
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// reopenAndExtend checks that a recovered store accepts the next batch and
// that it survives another reopen.
func reopenAndExtend(t *testing.T, dir string, s *Store, first, last uint64) {
	t.Helper()
	mustStore(t, s, batch(last+1, 2, 1, 30))
	s.Close()
	s = openT(t, dir, Options{})
	defer s.Close()
	if s.Repaired() != nil {
		t.Fatalf("second recovery repaired again: %+v", s.Repaired())
	}
	checkRange(t, s, first, last+2, term1, 30)
}

// TestTornTailEveryOffset cuts the last segment at every byte offset of the
// last batch: recovery keeps exactly the records wholly before the cut,
// truncates the rest, and the log carries on.
func TestTornTailEveryOffset(t *testing.T) {
	src, lay := buildLog(t, Options{}, 4, 3, 3) // last batch: 8, 9, 10
	seg := lay[10].path
	size := lay[10].end
	for cut := lay[8].off; cut < size; cut++ {
		t.Run(fmt.Sprint(cut), func(t *testing.T) {
			dir := copyDir(t, src)
			path := filepath.Join(dir, filepath.Base(seg))
			truncateFile(t, path, cut)
			s := openT(t, dir, Options{})
			want := uint64(7)
			for i := uint64(8); i <= 10 && lay[i].end <= cut; i++ {
				want = i
			}
			checkRange(t, s, 1, want, term1, 30)
			boundary := lay[want].end
			if got := fileSize(t, path); got != boundary {
				t.Fatalf("file size after recovery = %d, want %d", got, boundary)
			}
			r := s.Repaired()
			if (cut != boundary) != (r != nil) {
				t.Fatalf("Repaired() = %+v for a cut at %d (record boundary %d)", r, cut, boundary)
			}
			if r != nil && (r.File != path || r.Offset != boundary || r.Dropped != cut-boundary) {
				t.Fatalf("Repaired() = %+v, want %s offset %d dropped %d", r, path, boundary, cut-boundary)
			}
			reopenAndExtend(t, dir, s, 1, want)
		})
	}
}

// TestFlipLastRecord flips every byte of the last record in turn: each is
// damage to the unacknowledged tail, which recovery cuts off.
func TestFlipLastRecord(t *testing.T) {
	for _, sizes := range [][]uint64{{4, 3, 3}, {4, 3, 1}} {
		src, lay := buildLog(t, Options{}, sizes...)
		last := uint64(0)
		for _, n := range sizes {
			last += n
		}
		l := lay[last]
		for off := l.off; off < l.end; off++ {
			t.Run(fmt.Sprintf("%v/%d", sizes, off), func(t *testing.T) {
				dir := copyDir(t, src)
				path := filepath.Join(dir, filepath.Base(l.path))
				flipByte(t, path, off)
				s := openT(t, dir, Options{})
				checkRange(t, s, 1, last-1, term1, 30)
				if r := s.Repaired(); r == nil || r.Offset != l.off {
					t.Fatalf("Repaired() = %+v, want a repair at %d", r, l.off)
				}
				reopenAndExtend(t, dir, s, 1, last-1)
			})
		}
	}
}

// TestDamageInTheMiddle: damage that a later batch proves was acknowledged
// is a hard error naming the file and offset; damage inside the last batch
// (even with intact records of that batch after it) is a torn tail.
func TestDamageInTheMiddle(t *testing.T) {
	tests := []struct {
		name     string
		opts     Options
		sizes    []uint64
		index    uint64 // the record damaged
		at       int64  // byte within it, -1 to cut the file there instead
		wantLast uint64 // if the damage is a torn tail
	}{
		{"first record", Options{}, []uint64{4, 3, 3}, 1, 20, 0},
		{"batch start", Options{}, []uint64{4, 3, 3}, 5, 45, 0},
		{"middle of a batch", Options{}, []uint64{4, 3, 3}, 6, 0, 0},
		{"end of a batch", Options{}, []uint64{4, 3, 3}, 7, 4, 0},
		{"length of a record", Options{}, []uint64{4, 3, 3}, 2, 1, 0},
		{"end of the batch before a batch of one", Options{}, []uint64{4, 3, 1}, 7, 50, 0},
		{"last batch, first record", Options{}, []uint64{4, 3, 3}, 8, 30, 7},
		{"last batch, middle record", Options{}, []uint64{4, 3, 3}, 9, 30, 8},
		{"last batch, length field", Options{}, []uint64{4, 3, 3}, 9, 2, 8},
		// Four batches, one per segment (70- and 75-byte records, 300-byte
		// segments): damage in an earlier segment is never a tail.
		{"earlier segment", Options{SegmentSize: 300}, []uint64{3, 3, 3, 3}, 5, 40, 0},
		{"earlier segment's last record", Options{SegmentSize: 300}, []uint64{3, 3, 3, 3}, 9, 8, 0},
		{"earlier segment cut short", Options{SegmentSize: 300}, []uint64{3, 3, 3, 3}, 9, -1, 0},
		{"last segment, sealed batch", Options{SegmentSize: 400}, []uint64{2, 2, 2, 2, 2}, 9, 8, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, lay := buildLog(t, tt.opts, tt.sizes...)
			dir := copyDir(t, src)
			l := lay[tt.index]
			path := filepath.Join(dir, filepath.Base(l.path))
			if tt.at < 0 {
				truncateFile(t, path, l.end-1)
			} else {
				flipByte(t, path, l.off+tt.at)
			}
			s, err := Open(context.Background(), dir, Options{})
			if tt.wantLast != 0 {
				if err != nil {
					t.Fatalf("Open = %v, want the tail cut after %d", err, tt.wantLast)
				}
				defer s.Close()
				checkRange(t, s, 1, tt.wantLast, term1, 30)
				return
			}
			var ce *CorruptError
			if !errors.As(err, &ce) || !errors.Is(err, ErrCorrupt) {
				if s != nil {
					s.Close()
				}
				t.Fatalf("Open = %v, want a *CorruptError", err)
			}
			if ce.File != path || ce.Offset != l.off || ce.Index != tt.index {
				t.Fatalf("error %q names %s offset %d index %d, want %s offset %d index %d",
					err, ce.File, ce.Offset, ce.Index, path, l.off, tt.index)
			}
			if !strings.Contains(err.Error(), fmt.Sprintf("%s: offset %d (index %d)", path, l.off, tt.index)) {
				t.Fatalf("error %q does not name the file, offset and index", err)
			}
			// A failed Open releases the lock.
			if _, err := Open(context.Background(), dir, Options{}); errors.Is(err, ErrLocked) {
				t.Fatal("failed Open kept the lock")
			}
		})
	}
}

// TestStructuralDamage: headers, gaps, the meta file and garbage after the
// tail.
func TestStructuralDamage(t *testing.T) {
	opts := Options{SegmentSize: 300} // one 3-entry batch per segment
	tests := []struct {
		name    string
		damage  func(t *testing.T, dir string, segs []string)
		file    func(dir string, segs []string) string
		offset  int64
		reason  string
		ok      bool // recovery succeeds
		wantLen uint64
	}{
		{"segment magic", func(t *testing.T, dir string, segs []string) { flipByte(t, segs[1], 0) },
			func(_ string, segs []string) string { return segs[1] }, 0, "bad magic", false, 0},
		{"segment header crc", func(t *testing.T, dir string, segs []string) { flipByte(t, segs[2], 25) },
			func(_ string, segs []string) string { return segs[2] }, 12, "checksum mismatch", false, 0},
		{"tail segment header", func(t *testing.T, dir string, segs []string) { truncateFile(t, segs[3], 39) },
			func(_ string, segs []string) string { return segs[3] }, 39, "header cut short", false, 0},
		{"missing middle segment", func(t *testing.T, dir string, segs []string) { os.Remove(segs[1]) },
			func(_ string, segs []string) string { return segs[2] }, 24, "segment starts at index 7 but the previous segment ends at 3", false, 0},
		{"renamed segment", func(t *testing.T, dir string, segs []string) {
			os.Rename(segs[3], filepath.Join(dir, segName(9)))
		}, func(dir string, _ []string) string { return filepath.Join(dir, segName(9)) }, 16, "header names segment 4", false, 0},
		{"meta crc", func(t *testing.T, dir string, segs []string) {
			os.WriteFile(filepath.Join(dir, metaName), make([]byte, 40), 0o600)
		}, func(dir string, _ []string) string { return filepath.Join(dir, metaName) }, 0, "bad magic", false, 0},
		{"meta names a missing segment", func(t *testing.T, dir string, segs []string) {
			os.WriteFile(filepath.Join(dir, metaName), metaState{firstSeg: 2, firstIndex: 5, firstOffset: 110}.encode(), 0o600)
			os.Remove(segs[1])
		}, func(dir string, _ []string) string { return filepath.Join(dir, metaName) }, 16, "the log starts in segment 00000000000000000002.seg, which is missing", false, 0},
		{"meta start before base", func(t *testing.T, dir string, segs []string) {
			os.WriteFile(filepath.Join(dir, metaName), metaState{firstSeg: 2, firstIndex: 2, firstOffset: 40}.encode(), 0o600)
		}, func(dir string, _ []string) string { return filepath.Join(dir, metaName) }, 24, "log start 2 precedes the base index 4", false, 0},
		{"meta offset past the end", func(t *testing.T, dir string, segs []string) {
			os.WriteFile(filepath.Join(dir, metaName), metaState{firstSeg: 2, firstIndex: 5, firstOffset: 5000}.encode(), 0o600)
		}, func(dir string, _ []string) string { return filepath.Join(dir, metaName) }, 32, "past the end", false, 0},
		{"meta offset not at the index", func(t *testing.T, dir string, segs []string) {
			os.WriteFile(filepath.Join(dir, metaName), metaState{firstSeg: 2, firstIndex: 4, firstOffset: 110}.encode(), 0o600)
		}, func(_ string, segs []string) string { return segs[1] }, 110, "record holds index 5, want 4", false, 0},
		{"zeros after the tail", func(t *testing.T, dir string, segs []string) {
			f, _ := os.OpenFile(segs[3], os.O_WRONLY|os.O_APPEND, 0)
			f.Write(make([]byte, 4096))
			f.Close()
		}, nil, 0, "", true, 12},
		{"garbage after the tail", func(t *testing.T, dir string, segs []string) {
			f, _ := os.OpenFile(segs[3], os.O_WRONLY|os.O_APPEND, 0)
			f.Write([]byte("not a record at all, just noise"))
			f.Close()
		}, nil, 0, "", true, 12},
		{"empty tail segment", func(t *testing.T, dir string, segs []string) {
			os.WriteFile(filepath.Join(dir, segName(5)), segHeader{seq: 5, base: 13}.encode(), 0o600)
		}, nil, 0, "", true, 12},
		{"leftover temporary files", func(t *testing.T, dir string, segs []string) {
			os.WriteFile(filepath.Join(dir, segName(5)+tmpSuffix), []byte("partial"), 0o600)
			os.WriteFile(filepath.Join(dir, metaName+tmpSuffix), nil, 0o600)
		}, nil, 0, "", true, 12},
		{"unrelated files are left alone", func(t *testing.T, dir string, segs []string) {
			os.WriteFile(filepath.Join(dir, "README"), []byte("hi"), 0o600)
		}, nil, 0, "", true, 12},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, _ := buildLog(t, opts, 3, 3, 3, 3)
			dir := copyDir(t, src)
			segs := segFiles(t, dir)
			if len(segs) != 4 {
				t.Fatalf("%d segments, want 4", len(segs))
			}
			tt.damage(t, dir, segs)
			s, err := Open(context.Background(), dir, opts)
			if tt.ok {
				if err != nil {
					t.Fatalf("Open = %v", err)
				}
				defer s.Close()
				checkRange(t, s, 1, tt.wantLen, term1, 30)
				if m, _ := filepath.Glob(filepath.Join(dir, "*"+tmpSuffix)); len(m) != 0 {
					t.Fatalf("temporary files left: %v", m)
				}
				mustStore(t, s, batch(tt.wantLen+1, 3, 1, 30))
				checkRange(t, s, 1, tt.wantLen+3, term1, 30)
				return
			}
			var ce *CorruptError
			if !errors.As(err, &ce) {
				if s != nil {
					s.Close()
				}
				t.Fatalf("Open = %v, want a *CorruptError", err)
			}
			if file := tt.file(dir, segs); ce.File != file || ce.Offset != tt.offset || !strings.Contains(ce.Reason, tt.reason) {
				t.Fatalf("Open = %q; want %s offset %d %q", err, file, tt.offset, tt.reason)
			}
		})
	}
}

// TestTornHeadOfCompactedLog: when recovery cuts the log below its recorded
// start nothing is live, and the store empties itself and accepts a log
// starting anywhere.
func TestTornHeadOfCompactedLog(t *testing.T) {
	dir := t.TempDir()
	s := openT(t, dir, Options{})
	mustStore(t, s, batch(1, 5, 1, 30))
	if err := s.DeleteRange(1, 4); err != nil {
		t.Fatal(err)
	}
	lay := layout(s)
	s.Close()
	truncateFile(t, lay[5].path, lay[5].end-3)
	s = openT(t, dir, Options{})
	checkRange(t, s, 0, 0, term1, 30)
	if n := len(segFiles(t, dir)); n != 0 {
		t.Fatalf("%d segment files left in an empty log", n)
	}
	mustStore(t, s, batch(3, 4, 1, 30))
	s.Close()
	s = openT(t, dir, Options{})
	defer s.Close()
	checkRange(t, s, 3, 6, term1, 30)
}
