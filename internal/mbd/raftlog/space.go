package raftlog

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// reserveName is the file holding the store's reserve: space taken while
// the file system has it and given back when a write finds none, so that
// raft can still record a new term and its leadership entry on a full
// disk (hashicorp/raft panics when it cannot save its term).
const reserveName = "reserve"

// DefaultReserveSize is Options.ReserveSize's default.
const DefaultReserveSize = 1 << 20

// ErrNoSpace: a write found no space (ENOSPC or EDQUOT). The store is not
// failed: what was cut short was cut back, and writes succeed again once
// there is space (NoSpace, Recover).
var ErrNoSpace = errors.New("raftlog: no space left on device")

func isNoSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// noSpace records that a write found no space, gives the reserve back and
// returns err marked ErrNoSpace.
func (s *Store) noSpace(err error) error {
	s.full.Store(true)
	_ = os.Remove(s.path(reserveName))
	return fmt.Errorf("%w: %w", ErrNoSpace, err)
}

// NoSpace reports whether a write found no space and Recover has not found
// space since. A caller keeps its own writes back meanwhile, so that the
// log is only written by raft's own bookkeeping.
func (s *Store) NoSpace() bool { return s.full.Load() }

// Recover takes the reserve back if the file system has room for it and
// as much again for writes, and then clears NoSpace; it reports whether
// the store has space.
func (s *Store) Recover() bool {
	if !s.full.Load() {
		return true
	}
	var st unix.Statfs_t
	if err := unix.Statfs(s.dir, &st); err != nil || int64(st.Bavail)*int64(st.Bsize) < 2*max(s.opts.ReserveSize, 1<<20) {
		return false
	}
	if err := s.takeReserve(); err != nil {
		return false
	}
	s.full.Store(false)
	return true
}

// takeReserve makes the reserve file hold ReserveSize bytes of allocated
// space (fallocate: no data written). On failure no partial reserve is
// left.
func (s *Store) takeReserve() error {
	if s.opts.ReserveSize <= 0 {
		return nil
	}
	p := s.path(reserveName)
	if st, err := os.Stat(p); err == nil && st.Size() >= s.opts.ReserveSize {
		return nil
	}
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	err = unix.Fallocate(int(f.Fd()), 0, 0, s.opts.ReserveSize)
	if errors.Is(err, syscall.EOPNOTSUPP) {
		_, err = f.WriteAt(make([]byte, s.opts.ReserveSize), 0)
		if err == nil {
			err = f.Sync()
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(p)
		return fmt.Errorf("raftlog: taking the reserve: %w", err)
	}
	return nil
}
