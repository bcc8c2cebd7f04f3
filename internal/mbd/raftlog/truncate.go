package raftlog

import (
	"errors"
	"fmt"
	"os"
)

// DeleteRange implements raft.LogStore: it deletes the entries min through
// max inclusive. The log stays contiguous, so the range must cover a prefix
// (head truncation after a snapshot), a suffix (tail truncation of
// conflicting entries) or everything; parts of the range outside the log are
// ignored. Each kind is durable when DeleteRange returns and crash-safe at
// every step (see the package documentation).
func (s *Store) DeleteRange(min, max uint64) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if err := s.writable(); err != nil {
		return err
	}
	if min > max || s.first == 0 || max < s.first || min > s.last {
		return nil
	}
	switch {
	case min <= s.first && max >= s.last:
		return s.deleteAll()
	case min <= s.first:
		return s.truncateHead(max + 1)
	case max >= s.last:
		return s.truncateTail(min)
	default:
		return fmt.Errorf("raftlog: DeleteRange(%d, %d) would leave a gap in the log [%d, %d]", min, max, s.first, s.last)
	}
}

// truncateHead makes newFirst the first live index. The meta file records
// the new start first; only then are the segments before it deleted, so a
// crash at any step leaves the new start recorded or the old log intact, and
// leftover dead segments are removed by the next Open.
func (s *Store) truncateHead(newFirst uint64) error {
	i := s.segFor(newFirst)
	g := s.segs[i]
	k := newFirst - g.lo
	m := metaState{firstSeg: g.seq, firstIndex: newFirst, firstOffset: g.offs[k]}
	if err := s.writeFileAtomic(metaName, m.encode(), "head:meta"); err != nil {
		return s.fail(fmt.Errorf("raftlog: recording the log start %d: %w", newFirst, err))
	}
	s.mu.Lock()
	s.meta = m
	s.first = newFirst
	g.offs = g.offs[k:]
	g.lo = newFirst
	dead := s.segs[:i:i]
	s.segs = s.segs[i:]
	s.mu.Unlock()
	// The dead segments are already dead on disk (meta); failing to
	// unlink them costs only space until the next Open.
	return s.removeSegments(dead, "head:unlink")
}

// truncateTail makes newEnd-1 the last live index (newEnd > first). The
// segments after the one holding newEnd are deleted newest first, then that
// segment is cut at newEnd's record; a crash at any step leaves a prefix of
// the old log, which raft treats like entries it has not yet replaced.
func (s *Store) truncateTail(newEnd uint64) error {
	i := s.segFor(newEnd)
	g := s.segs[i]
	k := newEnd - g.lo
	off := g.offs[k]
	s.mu.Lock()
	s.last = newEnd - 1
	g.offs = g.offs[:k]
	g.size = off
	dead := s.segs[i+1:]
	s.segs = s.segs[: i+1 : i+1]
	s.nextSeq = g.seq + 1
	s.mu.Unlock()
	for j := len(dead) - 1; j >= 0; j-- {
		if err := s.removeSegments(dead[j:j+1], "tail:unlink"); err != nil {
			return s.fail(err)
		}
	}
	if err := g.f.Truncate(off); err != nil {
		return s.fail(fmt.Errorf("raftlog: truncating %s at offset %d: %w", g.path, off, err))
	}
	if err := s.crashPoint("tail:truncate"); err != nil {
		return s.fail(err)
	}
	if err := datasync(g.f); err != nil {
		return s.fail(fmt.Errorf("raftlog: syncing %s: %w", g.path, err))
	}
	return nil
}

// deleteAll empties the log: the meta file declares every existing segment
// dead (the next one will be numbered nextSeq), then they are deleted.
func (s *Store) deleteAll() error {
	m := metaState{firstSeg: s.nextSeq}
	if err := s.writeFileAtomic(metaName, m.encode(), "all:meta"); err != nil {
		return s.fail(fmt.Errorf("raftlog: recording an empty log: %w", err))
	}
	s.mu.Lock()
	s.meta = m
	s.first, s.last = 0, 0
	dead := s.segs
	s.segs = nil
	s.mu.Unlock()
	return s.removeSegments(dead, "all:unlink")
}

// removeSegments closes and unlinks segs, in order, then syncs the
// directory. No reader can reach them any more: they were unpublished under
// mu, which also waited out any reader still using them.
func (s *Store) removeSegments(segs []*segment, step string) error {
	if len(segs) == 0 {
		return nil
	}
	var errs []error
	for _, g := range segs {
		errs = append(errs, g.f.Close())
	}
	for _, g := range segs {
		if err := os.Remove(g.path); err != nil {
			errs = append(errs, err)
		}
		if err := s.crashPoint(step); err != nil {
			return err
		}
	}
	errs = append(errs, s.syncDir())
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("raftlog: removing segments: %w", err)
	}
	return nil
}
