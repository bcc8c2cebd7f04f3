package raftlog

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/raft"
)

// Defaults for Options.
const (
	DefaultSegmentSize   = 64 << 20
	DefaultCacheEntries  = 512
	DefaultCacheBytes    = 16 << 20
	DefaultMaxRecordSize = 128 << 20
	maxMaxRecordSize     = 1<<32 - 1 + recPrefixSize
)

// Options tunes a Store. The zero value selects the defaults.
type Options struct {
	// SegmentSize is the file size at which the log rolls to a new segment
	// (default DefaultSegmentSize). A batch never spans two segments, so a
	// batch larger than SegmentSize makes a segment of its own.
	SegmentSize int64

	// CacheEntries is how many of the most recently appended entries GetLog
	// serves from memory (default DefaultCacheEntries; negative disables).
	// The cache holds the encoded entries.
	CacheEntries int

	// CacheBytes bounds the encoded size of the cached entries (default
	// DefaultCacheBytes): mbatchd's entries carry whole job submissions, so
	// an entry bound alone could hold hundreds of megabytes. The oldest
	// entries leave first.
	CacheBytes int

	// MaxRecordSize bounds one encoded entry, 40 bytes plus Data plus
	// Extensions (default DefaultMaxRecordSize). StoreLogs refuses larger
	// entries and recovery treats a larger length field as damage.
	MaxRecordSize int

	// ReserveSize is the space the store keeps in its reserve file and
	// gives back when a write finds the file system full (default
	// DefaultReserveSize; negative: none). See NoSpace.
	ReserveSize int64

	// crash, when set (tests only), is called at each named step of a file
	// operation; a non-nil return aborts the operation there as if the
	// process had died, leaving the files as they are.
	crash func(step string) error
}

func (o Options) withDefaults() Options {
	if o.SegmentSize <= 0 {
		o.SegmentSize = DefaultSegmentSize
	}
	if o.CacheEntries == 0 {
		o.CacheEntries = DefaultCacheEntries
	}
	if o.CacheEntries < 0 {
		o.CacheEntries = 0
	}
	if o.CacheBytes <= 0 {
		o.CacheBytes = DefaultCacheBytes
	}
	if o.MaxRecordSize <= 0 {
		o.MaxRecordSize = DefaultMaxRecordSize
	}
	if o.ReserveSize == 0 {
		o.ReserveSize = DefaultReserveSize
	}
	if o.ReserveSize < 0 {
		o.ReserveSize = 0
	}
	if o.MaxRecordSize < minRecordSize {
		o.MaxRecordSize = minRecordSize
	}
	if uint64(o.MaxRecordSize) > maxMaxRecordSize {
		o.MaxRecordSize = maxMaxRecordSize
	}
	return o
}

// Store is mbatchd's durable raft log and stable store over one directory.
// See the package documentation for the file format and the guarantees.
//
// A Store is safe for concurrent use: raft calls it from its main loop,
// its snapshot goroutine and its replication goroutines. Writers (StoreLogs,
// DeleteRange) are serialised and hold no lock that readers need while they
// write and fsync; readers (GetLog, FirstIndex, LastIndex) only wait for the
// short in-memory publication of a write.
type Store struct {
	dir   string
	opts  Options
	lockf *os.File
	dirf  *os.File

	// wmu serialises writers; it is held across their file I/O. Fields
	// written only by writers (and only under mu as well) may be read by
	// a writer holding wmu alone.
	wmu sync.Mutex

	// mu guards the fields below. Readers hold it shared across their
	// pread so that no file is closed or truncated under them.
	mu       sync.RWMutex
	segs     []*segment // live segments in order; the last is the tail
	first    uint64     // first live index; 0 when the log is empty
	last     uint64     // last live index; 0 when the log is empty
	meta     metaState
	nextSeq  uint64
	cache    []cached
	cacheLo  uint64 // no cached entry has a lower index
	cacheSz  int    // encoded bytes held by the cache
	failed   error
	closed   bool
	repaired *Repair

	kvmu     sync.Mutex
	kv       map[string][]byte
	kvClosed bool

	full atomic.Bool // a write found no space; see NoSpace
}

// segment is one segment file and the in-memory index of its live records.
type segment struct {
	seq  uint64
	base uint64
	path string
	f    *os.File
	lo   uint64  // raft index of offs[0]
	offs []int64 // offs[i] is the byte offset of the record with index lo+i
	size int64   // end of the last record: where the next batch goes
}

// hi is the index of the segment's last record; only for non-empty segments.
func (g *segment) hi() uint64 { return g.lo + uint64(len(g.offs)) - 1 }

type cached struct {
	index uint64
	rec   []byte
}

// Repair describes the torn tail Open cut off the log: the file, the byte
// offset it was truncated at, how many bytes were dropped and why.
type Repair struct {
	File    string
	Offset  int64
	Dropped int64
	Reason  string
}

var (
	_ raft.LogStore          = (*Store)(nil)
	_ raft.MonotonicLogStore = (*Store)(nil)
	_ raft.StableStore       = (*Store)(nil)
)

// Repaired reports the torn tail Open removed, or nil if the log was intact.
// mbatchd logs it.
func (s *Store) Repaired() *Repair {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.repaired == nil {
		return nil
	}
	r := *s.repaired
	return &r
}

// IsMonotonic implements raft.MonotonicLogStore: the log never has gaps, so
// after installing a snapshot raft deletes the whole log rather than leaving
// a gap before the next entry.
func (s *Store) IsMonotonic() bool { return true }

// FirstIndex implements raft.LogStore. It returns 0 for an empty log.
func (s *Store) FirstIndex() (uint64, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return 0, ErrClosed
	}
	return s.first, nil
}

// LastIndex implements raft.LogStore. It returns 0 for an empty log.
func (s *Store) LastIndex() (uint64, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return 0, ErrClosed
	}
	return s.last, nil
}

// GetLog implements raft.LogStore. It returns raft.ErrLogNotFound for an
// index outside [FirstIndex, LastIndex]. The slices of l alias memory that
// the store never modifies; callers must not modify them either. A record
// that fails its checks is reported as a *CorruptError.
func (s *Store) GetLog(index uint64, l *raft.Log) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return ErrClosed
	}
	if s.first == 0 || index < s.first || index > s.last {
		return raft.ErrLogNotFound
	}
	if n := len(s.cache); n > 0 {
		if c := &s.cache[index%uint64(n)]; c.index == index {
			r, _, err := decodeRecord(c.rec, s.opts.MaxRecordSize)
			if err != nil {
				return fmt.Errorf("raftlog: cached entry %d: %w", index, err)
			}
			r.toLog(l)
			return nil
		}
	}
	g := s.segs[s.segFor(index)]
	i := index - g.lo
	off, end := g.offs[i], g.size
	if i+1 < uint64(len(g.offs)) {
		end = g.offs[i+1]
	}
	buf := make([]byte, end-off)
	if _, err := g.f.ReadAt(buf, off); err != nil {
		return fmt.Errorf("raftlog: reading index %d from %s at offset %d: %w", index, g.path, off, err)
	}
	r, _, err := decodeRecord(buf, s.opts.MaxRecordSize)
	if err != nil {
		var de *decodeError
		errors.As(err, &de)
		return &CorruptError{File: g.path, Offset: off, Index: index, Reason: de.Reason}
	}
	if r.index != index {
		return &CorruptError{File: g.path, Offset: off, Index: index,
			Reason: fmt.Sprintf("record holds index %d", r.index)}
	}
	r.toLog(l)
	return nil
}

// segFor returns the position in s.segs of the segment holding index, which
// must be live. Callers hold mu.
func (s *Store) segFor(index uint64) int {
	return sort.Search(len(s.segs), func(i int) bool { return s.segs[i].lo > index }) - 1
}

// StoreLog implements raft.LogStore: a batch of one.
func (s *Store) StoreLog(l *raft.Log) error { return s.StoreLogs([]*raft.Log{l}) }

// StoreLogs implements raft.LogStore. The batch must continue the log
// (logs[0].Index == LastIndex()+1, then consecutive), or start anywhere when
// the log is empty. It is written with one write and made durable with one
// fdatasync before StoreLogs returns: group commit.
func (s *Store) StoreLogs(logs []*raft.Log) error {
	if len(logs) == 0 {
		return nil
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if err := s.writable(); err != nil {
		return err
	}
	next := logs[0].Index
	if next == 0 {
		return errors.New("raftlog: StoreLogs: raft index 0")
	}
	// While the file system is full, what the reserve gave back is for
	// raft's own bookkeeping (its term, a new leader's first entry). A
	// follower's raft appends the leader's commands as soon as any space
	// shows: they would use it up, and raft panics at the next term it
	// cannot save. Commands wait until Recover finds space again.
	if s.full.Load() && hasCommand(logs) && !s.Recover() {
		return fmt.Errorf("%w: entries %d-%d wait until there is space (the reserve is kept for raft's term)",
			ErrNoSpace, next, next+uint64(len(logs))-1)
	}
	if s.last != 0 && next != s.last+1 {
		return fmt.Errorf("raftlog: StoreLogs: index %d does not follow the last index %d", next, s.last)
	}
	total := 0
	for i, l := range logs {
		if l.Index != next+uint64(i) {
			return fmt.Errorf("raftlog: StoreLogs: index %d at batch position %d, want %d", l.Index, i, next+uint64(i))
		}
		n := encodedSize(l)
		if n > s.opts.MaxRecordSize {
			return fmt.Errorf("raftlog: StoreLogs: entry %d encodes to %d bytes, more than the maximum %d", l.Index, n, s.opts.MaxRecordSize)
		}
		total += n
	}
	buf := make([]byte, 0, total)
	recOffs := make([]int, len(logs))
	for i, l := range logs {
		recOffs[i] = len(buf)
		var flags uint8
		if i == 0 {
			flags = flagBatchStart
		}
		buf = appendRecord(buf, l, flags)
	}

	tail := s.tail()
	if tail == nil || (tail.size > segHeaderSize && tail.size+int64(len(buf)) > s.opts.SegmentSize) {
		var err error
		if tail, err = s.roll(next); err != nil {
			err = fmt.Errorf("raftlog: rolling to a new segment: %w", err)
			if isNoSpace(err) {
				return s.noSpace(err) // roll removed what it began
			}
			return s.fail(err)
		}
	}
	// A write or sync that finds no space is cut back to where the batch
	// began: nothing of it stays for recovery to find, and the store goes
	// on when space returns. (After a failed fdatasync the pages' state is
	// unknown; truncating drops them.)
	cutBack := func(err error) error {
		if isNoSpace(err) && tail.f.Truncate(tail.size) == nil {
			return s.noSpace(err)
		}
		return s.fail(err)
	}
	if _, err := tail.f.WriteAt(buf, tail.size); err != nil {
		return cutBack(fmt.Errorf("raftlog: appending entries %d-%d to %s: %w", next, next+uint64(len(logs))-1, tail.path, err))
	}
	if err := s.crashPoint("append:write"); err != nil {
		if isNoSpace(err) {
			return cutBack(err)
		}
		return s.fail(err)
	}
	if err := datasync(tail.f); err != nil {
		return cutBack(fmt.Errorf("raftlog: syncing %s: %w", tail.path, err))
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	for _, o := range recOffs {
		tail.offs = append(tail.offs, tail.size+int64(o))
	}
	if s.first == 0 {
		s.first = next
	}
	s.last = next + uint64(len(logs)) - 1
	if n := uint64(len(s.cache)); n > 0 {
		skip := 0
		if uint64(len(logs)) > n {
			skip = len(logs) - int(n)
		}
		for i := skip; i < len(logs); i++ {
			end := len(buf)
			if i+1 < len(logs) {
				end = recOffs[i+1]
			}
			c := &s.cache[logs[i].Index%n]
			s.cacheSz += end - recOffs[i] - len(c.rec)
			*c = cached{index: logs[i].Index, rec: buf[recOffs[i]:end:end]}
		}
		if s.cacheLo == 0 || next < s.cacheLo {
			s.cacheLo = next // first append, or appends after a suffix was removed
		}
		for s.cacheSz > s.opts.CacheBytes && s.cacheLo <= s.last {
			if c := &s.cache[s.cacheLo%n]; c.index == s.cacheLo {
				s.cacheSz -= len(c.rec)
				*c = cached{}
			}
			s.cacheLo++
		}
	}
	tail.size += int64(len(buf))
	return nil
}

// tail returns the segment appends go to, or nil when there is none.
func (s *Store) tail() *segment {
	if len(s.segs) == 0 {
		return nil
	}
	return s.segs[len(s.segs)-1]
}

// roll creates the next segment, whose first record will be base, and makes
// it the tail. The file appears under its final name only once its header is
// durable, so a crash leaves either no new segment or an empty valid one.
func (s *Store) roll(base uint64) (*segment, error) {
	seq := s.nextSeq
	g := &segment{seq: seq, base: base, lo: base, size: segHeaderSize}
	g.path = s.path(segName(seq))
	tmp := g.path + tmpSuffix
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(segHeader{seq: seq, base: base}.encode()); err != nil {
		f.Close()
		os.Remove(tmp)
		return nil, err
	}
	if err := datasync(f); err != nil {
		f.Close()
		os.Remove(tmp)
		return nil, err
	}
	if err := s.crashPoint("roll:tmp"); err != nil {
		f.Close()
		if isNoSpace(err) {
			os.Remove(tmp)
		}
		return nil, err
	}
	if err := os.Rename(tmp, g.path); err != nil {
		f.Close()
		return nil, err
	}
	if err := s.crashPoint("roll:rename"); err != nil {
		f.Close()
		return nil, err
	}
	if err := s.syncDir(); err != nil {
		f.Close()
		return nil, err
	}
	g.f = f
	s.mu.Lock()
	s.segs = append(s.segs, g)
	s.nextSeq = seq + 1
	s.mu.Unlock()
	return g, nil
}

// writable reports why the store refuses writes, if it does. Callers hold wmu.
// hasCommand reports whether logs hold an entry of the application's
// (raft.LogCommand), as opposed to raft's own (no-op, configuration,
// barrier).
func hasCommand(logs []*raft.Log) bool {
	for _, l := range logs {
		if l.Type == raft.LogCommand {
			return true
		}
	}
	return false
}

func (s *Store) writable() error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return ErrClosed
	}
	if s.failed != nil {
		return fmt.Errorf("%w: %w", ErrFailed, s.failed)
	}
	return nil
}

// fail records err as the reason the store refuses further writes and
// returns it. Every error after the first byte of a write reaches a file goes
// through here: the files are then in a state only recovery may interpret.
func (s *Store) fail(err error) error {
	s.mu.Lock()
	if s.failed == nil {
		s.failed = err
	}
	s.mu.Unlock()
	return err
}

func (s *Store) crashPoint(step string) error {
	if s.opts.crash == nil {
		return nil
	}
	return s.opts.crash(step)
}

// Close releases the store's files and the directory lock. Calls after the
// first do nothing; every other method then returns ErrClosed.
func (s *Store) Close() error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.kvmu.Lock()
	defer s.kvmu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	s.kvClosed = true
	var errs []error
	for _, g := range s.segs {
		errs = append(errs, g.f.Close())
	}
	s.segs, s.cache = nil, nil
	errs = append(errs, s.dirf.Close())
	errs = append(errs, s.lockf.Close()) // releases the flock
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("raftlog: closing %s: %w", s.dir, err)
	}
	return nil
}
