package sbd

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/basalt-lsf/basalt/internal/clock"
	"github.com/basalt-lsf/basalt/internal/sbd/spool"
)

// seqReserve is how many sequence numbers are reserved on disk at a time.
const seqReserve = 1 << 16

// seqAlloc hands out the Seq of the reports sbatchd sends: strictly
// increasing across the host's jobs and across restarts. A block is
// reserved on disk before use, and the counter never starts below the
// clock in microseconds, so even a lost state directory cannot make it go
// back (as long as the clock does not).
type seqAlloc struct {
	path     string
	next     uint64
	reserved uint64
}

func newSeqAlloc(dir string, clk clock.Clock) (*seqAlloc, error) {
	s := &seqAlloc{path: filepath.Join(dir, "seq")}
	if b, err := os.ReadFile(s.path); err == nil {
		n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("sbatchd: %s: %w", s.path, err)
		}
		s.next = n + 1
	} else if !os.IsNotExist(err) {
		return nil, err
	}
	if floor := uint64(clk.Now().UnixMicro()); floor > s.next {
		s.next = floor
	}
	s.reserved = s.next
	if err := s.reserve(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *seqAlloc) reserve() error {
	s.reserved = s.next + seqReserve
	return spool.WriteFile(s.path, []byte(strconv.FormatUint(s.reserved, 10)+"\n"), 0o600)
}

// Next returns a new sequence number.
func (s *seqAlloc) Next() uint64 {
	if s.next >= s.reserved {
		// A failed write keeps the old reservation: numbers stay unique
		// in this process; a restart floors them with the clock.
		_ = s.reserve()
	}
	n := s.next
	s.next++
	return n
}
