package raftlog

import (
	"errors"
	"path/filepath"
	"testing"
)

var errCrash = errors.New("simulated crash")

// TestCrashBetweenSteps stops each multi-step file operation at each of its
// steps, as if the process died there, reopens the directory and checks
// the log is in the state that step implies, with no debris left, and that
// it carries on normally.
func TestCrashBetweenSteps(t *testing.T) {
	// The log holds [1, 30]: ten batches of three 30-byte entries, one
	// batch per 300-byte segment, so segment k holds 3k-2 .. 3k.
	type op func(s *Store) error
	storeNext := func(s *Store) error { return s.StoreLogs(batch(31, 3, 1, 30)) }
	del := func(min, max uint64) op { return func(s *Store) error { return s.DeleteRange(min, max) } }
	tests := []struct {
		name        string
		op          op
		step        string
		nth         int
		first, last uint64
		segs        int
	}{
		{"roll before rename", storeNext, "roll:tmp", 1, 1, 30, 10},
		{"roll after rename", storeNext, "roll:rename", 1, 1, 30, 11}, // an empty tail segment
		{"append before fsync", storeNext, "append:write", 1, 1, 33, 11},
		{"head before meta rename", del(1, 10), "head:meta:tmp", 1, 1, 30, 10},
		{"head after meta rename", del(1, 10), "head:meta:rename", 1, 11, 30, 7},
		{"head within a segment", del(1, 4), "head:meta:rename", 1, 5, 30, 9},
		{"head after the first unlink", del(1, 10), "head:unlink", 1, 11, 30, 7},
		{"head after the last unlink", del(1, 10), "head:unlink", 3, 11, 30, 7},
		{"tail after the first unlink", del(14, 30), "tail:unlink", 1, 1, 27, 9},
		{"tail after the third unlink", del(14, 30), "tail:unlink", 3, 1, 21, 7},
		{"tail before the truncation", del(14, 30), "tail:unlink", 5, 1, 15, 5},
		{"tail after the truncation", del(14, 30), "tail:truncate", 1, 1, 13, 5},
		{"tail at a segment start", del(13, 30), "tail:truncate", 1, 1, 12, 5},
		{"everything before meta rename", del(1, 30), "all:meta:tmp", 1, 1, 30, 10},
		{"everything after meta rename", del(1, 30), "all:meta:rename", 1, 0, 0, 0},
		{"everything after some unlinks", del(1, 30), "all:unlink", 4, 0, 0, 0},
		{"head then everything", func(s *Store) error {
			if err := s.DeleteRange(1, 20); err != nil {
				return err
			}
			return s.DeleteRange(21, 30)
		}, "all:unlink", 1, 0, 0, 0},
	}
	opts := Options{SegmentSize: 300}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			seen, armed := 0, false
			crash := func(step string) error {
				if armed && step == tt.step {
					if seen++; seen == tt.nth {
						return errCrash
					}
				}
				return nil
			}
			o := opts
			o.crash = crash
			s := openT(t, dir, o)
			for i := uint64(1); i <= 30; i += 3 {
				mustStore(t, s, batch(i, 3, 1, 30))
			}
			armed = true
			if err := tt.op(s); !errors.Is(err, errCrash) {
				t.Fatalf("operation = %v, want the simulated crash at %s #%d (reached %d times)", err, tt.step, tt.nth, seen)
			}
			s.Close() // releases descriptors and the lock only
			s = openT(t, dir, opts)
			checkRange(t, s, tt.first, tt.last, term1, 30)
			if got := len(segFiles(t, dir)); got != tt.segs {
				t.Errorf("%d segment files after recovery, want %d", got, tt.segs)
			}
			if m, _ := filepath.Glob(filepath.Join(dir, "*"+tmpSuffix)); len(m) != 0 {
				t.Errorf("temporary files left: %v", m)
			}
			next, first := tt.last+1, tt.first
			if tt.last == 0 {
				next, first = 100, 100
			}
			mustStore(t, s, batch(next, 5, 1, 30))
			s.Close()
			s = openT(t, dir, opts)
			defer s.Close()
			checkRange(t, s, first, next+4, term1, 30)
		})
	}
}

func TestCrashInStableSet(t *testing.T) {
	for _, tt := range []struct {
		step string
		want uint64
	}{
		{"stable:tmp", 1},
		{"stable:rename", 2},
	} {
		t.Run(tt.step, func(t *testing.T) {
			dir := t.TempDir()
			arm := false
			s := openT(t, dir, Options{crash: func(step string) error {
				if arm && step == tt.step {
					return errCrash
				}
				return nil
			}})
			if err := s.SetUint64([]byte("CurrentTerm"), 1); err != nil {
				t.Fatal(err)
			}
			arm = true
			if err := s.SetUint64([]byte("CurrentTerm"), 2); !errors.Is(err, errCrash) {
				t.Fatalf("SetUint64 = %v, want the crash", err)
			}
			s.Close()
			s = openT(t, dir, Options{})
			defer s.Close()
			if v, err := s.GetUint64([]byte("CurrentTerm")); v != tt.want || err != nil {
				t.Fatalf("CurrentTerm = %d, %v; want %d", v, err, tt.want)
			}
			if m, _ := filepath.Glob(filepath.Join(dir, "*"+tmpSuffix)); len(m) != 0 {
				t.Errorf("temporary files left: %v", m)
			}
		})
	}
}
