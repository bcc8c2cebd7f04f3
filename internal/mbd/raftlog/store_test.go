package raftlog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/raft"
)

func TestStoreAndReopen(t *testing.T) {
	tests := []struct {
		name     string
		opts     Options
		batches  []uint64 // batch sizes
		dataLen  int
		wantSegs int
	}{
		{"one entry", Options{}, []uint64{1}, 10, 1},
		{"one batch", Options{}, []uint64{100}, 100, 1},
		{"many small batches", Options{}, []uint64{1, 1, 2, 3, 5, 8, 13}, 0, 1},
		// each 100-byte entry is 140 bytes with extensions or not; a
		// 1000-byte segment holds the header plus 6 of them.
		{"rolls", Options{SegmentSize: 1000}, []uint64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, 100, 3},
		{"batch larger than a segment", Options{SegmentSize: 500}, []uint64{2, 20, 2}, 100, 3},
		{"no cache", Options{CacheEntries: -1}, []uint64{5, 5, 5}, 20, 1},
		{"cache smaller than a batch", Options{CacheEntries: 3}, []uint64{10, 1, 10}, 20, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			s := openT(t, dir, tt.opts)
			next := uint64(1)
			for _, n := range tt.batches {
				if n == 1 {
					if err := s.StoreLog(entry(next, 1, tt.dataLen)); err != nil {
						t.Fatal(err)
					}
				} else {
					mustStore(t, s, batch(next, n, 1, tt.dataLen))
				}
				next += n
				checkRange(t, s, 1, next-1, term1, tt.dataLen)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if got := len(segFiles(t, dir)); got != tt.wantSegs {
				t.Errorf("%d segment files, want %d", got, tt.wantSegs)
			}
			s = openT(t, dir, tt.opts)
			defer s.Close()
			if s.Repaired() != nil {
				t.Errorf("clean log repaired: %+v", s.Repaired())
			}
			checkRange(t, s, 1, next-1, term1, tt.dataLen)
			mustStore(t, s, batch(next, 3, 2, tt.dataLen))
			checkRange(t, s, 1, next+2, func(i uint64) uint64 {
				if i >= next {
					return 2
				}
				return 1
			}, tt.dataLen)
		})
	}
}

func TestStoreLogsRejects(t *testing.T) {
	tests := []struct {
		name string
		logs []*raft.Log
		want string
	}{
		{"gap after last", batch(12, 1, 1, 0), "index 12 does not follow the last index 10"},
		{"overlap", batch(10, 2, 1, 0), "index 10 does not follow the last index 10"},
		{"not consecutive", []*raft.Log{entry(11, 1, 0), entry(13, 1, 0)}, "index 13 at batch position 1, want 12"},
		{"too large", []*raft.Log{entry(11, 1, 1000)}, "encodes to 1040 bytes, more than the maximum 1000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openT(t, t.TempDir(), Options{MaxRecordSize: 1000})
			defer s.Close()
			mustStore(t, s, batch(1, 10, 1, 0))
			err := s.StoreLogs(tt.logs)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("StoreLogs = %v, want %q", err, tt.want)
			}
			// A refused batch leaves the store usable.
			mustStore(t, s, batch(11, 1, 1, 0))
			checkRange(t, s, 1, 11, term1, 0)
		})
	}
	s := openT(t, t.TempDir(), Options{})
	defer s.Close()
	if err := s.StoreLogs([]*raft.Log{{Index: 0}}); err == nil {
		t.Fatal("StoreLogs accepted index 0")
	}
	if err := s.StoreLogs(nil); err != nil {
		t.Fatalf("StoreLogs(nil) = %v", err)
	}
}

func TestDeleteRange(t *testing.T) {
	// The log holds [1, 40] in batches of six 100-byte entries (140-146
	// bytes each), one batch per 1000-byte segment: segments start at 1,
	// 7, 13, 19, 25, 31, 37.
	type op struct{ min, max uint64 }
	tests := []struct {
		name        string
		ops         []op
		first, last uint64
		segs        int
		err         string
	}{
		{"nothing", nil, 1, 40, 7, ""},
		{"head within the first segment", []op{{1, 3}}, 4, 40, 7, ""},
		{"head to a segment boundary", []op{{1, 6}}, 7, 40, 6, ""},
		{"head across segments", []op{{1, 20}}, 21, 40, 4, ""},
		{"head twice", []op{{1, 20}, {21, 30}}, 31, 40, 2, ""},
		{"head from below the first", []op{{1, 5}, {1, 8}}, 9, 40, 6, ""},
		{"tail within the last segment", []op{{39, 40}}, 1, 38, 7, ""},
		{"tail to a segment boundary", []op{{37, 40}}, 1, 36, 7, ""}, // segment 7 stays, empty
		{"tail across segments", []op{{15, 40}}, 1, 14, 3, ""},
		{"tail beyond the last", []op{{30, 100}}, 1, 29, 5, ""},
		{"head and tail", []op{{1, 10}, {30, 40}}, 11, 29, 4, ""},
		{"everything", []op{{1, 40}}, 0, 0, 0, ""},
		{"everything and more", []op{{0, 1000}}, 0, 0, 0, ""},
		{"everything after a head truncation", []op{{1, 10}, {11, 40}}, 0, 0, 0, ""},
		{"range before the log", []op{{1, 10}, {2, 5}}, 11, 40, 6, ""},
		{"range after the log", []op{{41, 50}}, 1, 40, 7, ""},
		{"empty range", []op{{20, 10}}, 1, 40, 7, ""},
		{"middle", []op{{10, 20}}, 1, 40, 7, "DeleteRange(10, 20) would leave a gap in the log [1, 40]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			opts := Options{SegmentSize: 1000}
			s := openT(t, dir, opts)
			for i := uint64(1); i <= 40; i += 6 {
				mustStore(t, s, batch(i, min(6, 41-i), 1, 100))
			}
			var err error
			for _, o := range tt.ops {
				if err = s.DeleteRange(o.min, o.max); err != nil {
					break
				}
			}
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("DeleteRange error = %v, want %q", err, tt.err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			check := func() {
				t.Helper()
				checkRange(t, s, tt.first, tt.last, term1, 100)
			}
			check()
			if got := len(segFiles(t, dir)); got != tt.segs {
				t.Errorf("%d segment files, want %d", got, tt.segs)
			}
			s.Close()
			s = openT(t, dir, opts)
			defer s.Close()
			check()
			// The log continues after the deletions (or restarts
			// anywhere when empty).
			next := tt.last + 1
			if tt.last == 0 {
				next = 500
			}
			mustStore(t, s, batch(next, 10, 1, 100))
			if tt.first == 0 {
				checkRange(t, s, 500, 509, term1, 100)
			} else {
				checkRange(t, s, tt.first, next+9, term1, 100)
			}
			s.Close()
			s = openT(t, dir, opts)
			if tt.first == 0 {
				checkRange(t, s, 500, 509, term1, 100)
			} else {
				checkRange(t, s, tt.first, next+9, term1, 100)
			}
		})
	}
}

// TestTailTruncateRewrite is raft's conflict path: entries are replaced by
// entries of a later term at the same indices.
func TestTailTruncateRewrite(t *testing.T) {
	dir := t.TempDir()
	opts := Options{SegmentSize: 2000, CacheEntries: 8}
	s := openT(t, dir, opts)
	mustStore(t, s, batch(1, 50, 1, 100))
	if err := s.DeleteRange(20, 50); err != nil {
		t.Fatal(err)
	}
	mustStore(t, s, batch(20, 40, 2, 100))
	termOf := func(i uint64) uint64 {
		if i >= 20 {
			return 2
		}
		return 1
	}
	checkRange(t, s, 1, 59, termOf, 100)
	s.Close()
	s = openT(t, dir, opts)
	defer s.Close()
	checkRange(t, s, 1, 59, termOf, 100)
}

func TestLock(t *testing.T) {
	dir := t.TempDir()
	s := openT(t, dir, Options{})
	_, err := Open(context.Background(), dir, Options{})
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("second Open = %v, want ErrLocked", err)
	}
	want := fmt.Sprintf("another mbatchd is running on this cluster: %s is locked (held by process %d)",
		filepath.Join(dir, lockName), os.Getpid())
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("second Open = %q, want it to contain %q", err, want)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openT(t, dir, Options{})
	s.Close()
}

func TestClosed(t *testing.T) {
	s := openT(t, t.TempDir(), Options{})
	mustStore(t, s, batch(1, 2, 1, 0))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close = %v", err)
	}
	var l raft.Log
	checks := map[string]error{
		"StoreLogs":   s.StoreLogs(batch(3, 1, 1, 0)),
		"DeleteRange": s.DeleteRange(1, 1),
		"GetLog":      s.GetLog(1, &l),
		"Set":         s.Set([]byte("k"), nil),
	}
	_, checks["FirstIndex"] = s.FirstIndex()
	_, checks["LastIndex"] = s.LastIndex()
	_, checks["Get"] = s.Get([]byte("k"))
	for name, err := range checks {
		if !errors.Is(err, ErrClosed) {
			t.Errorf("%s after Close = %v, want ErrClosed", name, err)
		}
	}
}

// TestFailedStoreRefusesWrites: after a write fails part-way the store
// refuses writes (still serving reads) until reopened.
func TestFailedStoreRefusesWrites(t *testing.T) {
	dir := t.TempDir()
	boom := errors.New("boom")
	fail := false
	s := openT(t, dir, Options{crash: func(step string) error {
		if fail && step == "append:write" {
			return boom
		}
		return nil
	}})
	mustStore(t, s, batch(1, 5, 1, 10))
	fail = true
	if err := s.StoreLogs(batch(6, 5, 1, 10)); !errors.Is(err, boom) {
		t.Fatalf("StoreLogs = %v, want boom", err)
	}
	fail = false
	if err := s.StoreLogs(batch(6, 5, 1, 10)); !errors.Is(err, ErrFailed) || !errors.Is(err, boom) {
		t.Fatalf("StoreLogs after failure = %v, want ErrFailed wrapping boom", err)
	}
	if err := s.DeleteRange(1, 2); !errors.Is(err, ErrFailed) {
		t.Fatalf("DeleteRange after failure = %v, want ErrFailed", err)
	}
	checkRange(t, s, 1, 5, term1, 10)
	s.Close()
	// The failed batch reached the file (the crash point is after the
	// write), so recovery keeps it: it is intact, just unacknowledged.
	s = openT(t, dir, Options{})
	defer s.Close()
	checkRange(t, s, 1, 10, term1, 10)
}

func TestStable(t *testing.T) {
	dir := t.TempDir()
	s := openT(t, dir, Options{})
	if v, err := s.Get([]byte("LastVoteCand")); v != nil || err != nil {
		t.Fatalf("Get(missing) = %v, %v; want nil, nil", v, err)
	}
	if v, err := s.GetUint64([]byte("CurrentTerm")); v != 0 || err != nil {
		t.Fatalf("GetUint64(missing) = %v, %v; want 0, nil", v, err)
	}
	val := []byte("node-1")
	if err := s.Set([]byte("LastVoteCand"), val); err != nil {
		t.Fatal(err)
	}
	val[0] = 'X' // the store keeps its own copy
	if err := s.SetUint64([]byte("CurrentTerm"), 1<<40+5); err != nil {
		t.Fatal(err)
	}
	if err := s.SetUint64([]byte("CurrentTerm"), 7); err != nil {
		t.Fatal(err)
	}
	if err := s.Set([]byte("odd"), []byte("abc")); err != nil {
		t.Fatal(err)
	}
	check := func(s *Store) {
		t.Helper()
		v, err := s.Get([]byte("LastVoteCand"))
		if err != nil || string(v) != "node-1" {
			t.Fatalf("Get(LastVoteCand) = %q, %v", v, err)
		}
		v[0] = 'Y' // callers get copies
		if v, _ := s.Get([]byte("LastVoteCand")); string(v) != "node-1" {
			t.Fatalf("Get returned the store's own slice")
		}
		if n, err := s.GetUint64([]byte("CurrentTerm")); n != 7 || err != nil {
			t.Fatalf("GetUint64(CurrentTerm) = %d, %v", n, err)
		}
		if _, err := s.GetUint64([]byte("odd")); err == nil || !strings.Contains(err.Error(), `"odd" holds 3 bytes`) {
			t.Fatalf("GetUint64(odd) = %v", err)
		}
	}
	check(s)
	s.Close()
	s = openT(t, dir, Options{})
	check(s)
	s.Close()

	// A damaged stable file is reported with its position.
	path := filepath.Join(dir, stableName)
	b, _ := os.ReadFile(path)
	b[len(b)-1] ^= 0xFF
	os.WriteFile(path, b, 0o600)
	_, err := Open(context.Background(), dir, Options{})
	var ce *CorruptError
	if !errors.As(err, &ce) || ce.File != path || ce.Offset != 12 || !strings.Contains(ce.Reason, "checksum mismatch") {
		t.Fatalf("Open with a damaged stable file = %v", err)
	}
}

// TestConcurrentUse runs raft's access pattern under -race: one writer
// appending, compacting and replacing suffixes, readers fetching recent and
// old entries.
func TestConcurrentUse(t *testing.T) {
	s := openT(t, t.TempDir(), Options{SegmentSize: 4096, CacheEntries: 16})
	defer s.Close()
	mustStore(t, s, batch(1, 10, 1, 50))
	const total = 600
	var wg sync.WaitGroup
	done := make(chan struct{})
	errc := make(chan error, 8)
	for r := 0; r < 2; r++ {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			var l raft.Log
			for k := 0; ; k++ {
				select {
				case <-done:
					return
				default:
				}
				first, _ := s.FirstIndex()
				last, _ := s.LastIndex()
				if first == 0 {
					continue
				}
				i := last
				if k%2 == 1 {
					i = first + uint64(k)%(last-first+1)
				}
				err := s.GetLog(i, &l)
				if err == raft.ErrLogNotFound {
					continue // compacted meanwhile
				}
				if err != nil {
					errc <- err
					return
				}
				if want := entry(i, 1, 50); !sameLog(&l, want) {
					errc <- fmt.Errorf("GetLog(%d) = %+v", i, l)
					return
				}
			}
		}(r)
	}
	for next := uint64(11); next <= total; next += 10 {
		if err := s.StoreLogs(batch(next, 10, 1, 50)); err != nil {
			t.Fatal(err)
		}
		if next%100 == 1 {
			if err := s.DeleteRange(1, next-50); err != nil {
				t.Fatal(err)
			}
		}
		if next%70 == 1 { // raft replacing a conflicting suffix (same content here)
			if err := s.DeleteRange(next+5, next+9); err != nil {
				t.Fatal(err)
			}
			if err := s.StoreLogs(batch(next+5, 5, 1, 50)); err != nil {
				t.Fatal(err)
			}
		}
	}
	close(done)
	wg.Wait()
	select {
	case err := <-errc:
		t.Fatal(err)
	default:
	}
}

// TestCacheBytesBound checks that the cache lets the oldest entries go once
// their encoded size passes CacheBytes, and that evicted entries are still
// read from the segments.
func TestCacheBytesBound(t *testing.T) {
	s := openT(t, t.TempDir(), Options{CacheEntries: 100, CacheBytes: 10 << 10})
	data := bytes.Repeat([]byte("x"), 1000)
	for i := uint64(1); i <= 50; i++ {
		if err := s.StoreLogs([]*raft.Log{{Index: i, Term: 1, Type: raft.LogCommand, Data: data}}); err != nil {
			t.Fatal(err)
		}
	}
	if s.cacheSz > 10<<10 {
		t.Errorf("cache holds %d bytes, bound %d", s.cacheSz, 10<<10)
	}
	held := 0
	for _, c := range s.cache {
		if c.rec != nil {
			held++
			if c.index <= 40 {
				t.Errorf("entry %d still cached; only the newest should be", c.index)
			}
		}
	}
	if held == 0 || held > 10 {
		t.Errorf("%d entries cached, want 1..10", held)
	}
	for i := uint64(1); i <= 50; i++ {
		var l raft.Log
		if err := s.GetLog(i, &l); err != nil || !bytes.Equal(l.Data, data) {
			t.Fatalf("GetLog(%d): %v", i, err)
		}
	}
}
