package raftlog

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Open opens (creating if needed) the log and stable store in dir, which
// mbatchd passes as LSB_SHAREDIR/<cluster>/raft/log. It takes an exclusive
// flock on dir/LOCK first and returns an error matching ErrLocked if another
// process holds it. It then recovers the log: every live record is read and
// checked; a torn tail left by a crash is cut off (see Repaired), while
// damage anywhere else is returned as a *CorruptError naming the file and
// offset. ctx can abandon a long recovery between segments.
func Open(ctx context.Context, dir string, opts Options) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("raftlog: creating %s: %w", dir, err)
	}
	s := &Store{dir: dir, opts: opts.withDefaults(), nextSeq: 1}
	var err error
	if s.lockf, err = lockDir(dir); err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			for _, g := range s.segs {
				g.f.Close()
			}
			if s.dirf != nil {
				s.dirf.Close()
			}
			s.lockf.Close()
		}
	}()
	if s.dirf, err = os.Open(dir); err != nil {
		return nil, fmt.Errorf("raftlog: %w", err)
	}
	if s.kv, err = readKV(filepath.Join(dir, stableName)); err != nil {
		return nil, err
	}
	if err := s.recover(ctx); err != nil {
		return nil, err
	}
	if s.opts.CacheEntries > 0 {
		s.cache = make([]cached, s.opts.CacheEntries)
	}
	if err := s.takeReserve(); err != nil {
		// Opened on a full disk: reads work, writes wait for Recover.
		s.full.Store(true)
	}
	ok = true
	return s, nil
}

// lockDir takes the directory's lock file.
func lockDir(dir string) (*os.File, error) {
	path := filepath.Join(dir, lockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("raftlog: opening lock file: %w", err)
	}
	if err := flock(f); err != nil {
		f.Close()
		if errors.Is(err, errWouldBlock) {
			holder := ""
			if b, rerr := os.ReadFile(path); rerr == nil {
				if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); perr == nil {
					holder = fmt.Sprintf(" (held by process %d)", pid)
				}
			}
			return nil, fmt.Errorf("raftlog: %w: %s is locked%s", ErrLocked, path, holder)
		}
		return nil, fmt.Errorf("raftlog: locking %s: %w", path, err)
	}
	// The pid is for the message above only; the lock is the flock.
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, nil
}

// recover reads the meta file and the segments, builds the index, repairs a
// torn tail and deletes what a crash left behind (temporary files, dead
// segments).
func (s *Store) recover(ctx context.Context) error {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return fmt.Errorf("raftlog: %w", err)
	}
	var seqs []uint64
	var junk []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasSuffix(name, tmpSuffix) {
			junk = append(junk, name)
		} else if seq, ok := parseSegName(name); ok && e.Type().IsRegular() {
			seqs = append(seqs, seq)
		}
	}
	sort.Slice(seqs, func(i, j int) bool { return seqs[i] < seqs[j] })

	if err := s.readMeta(); err != nil {
		return err
	}
	var live []uint64
	for _, seq := range seqs {
		if seq < s.meta.firstSeg {
			junk = append(junk, segName(seq))
		} else {
			live = append(live, seq)
		}
	}

	var want uint64 // index expected next; 0 before the first live segment
	for n, seq := range live {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("raftlog: recovering %s: %w", s.dir, err)
		}
		g, err := s.openSegment(seq)
		if err != nil {
			return err
		}
		s.segs = append(s.segs, g)
		start := int64(segHeaderSize)
		switch {
		case n > 0:
			if g.base != want {
				return &CorruptError{File: g.path, Offset: 24,
					Reason: fmt.Sprintf("segment starts at index %d but the previous segment ends at %d", g.base, want-1)}
			}
		case seq == s.meta.firstSeg && s.meta.firstIndex != 0:
			if s.meta.firstIndex < g.base {
				return &CorruptError{File: s.path(metaName), Offset: 24,
					Reason: fmt.Sprintf("log start %d precedes the base index %d of %s", s.meta.firstIndex, g.base, g.path)}
			}
			start, want = s.meta.firstOffset, s.meta.firstIndex
		case s.meta.firstIndex != 0:
			return &CorruptError{File: s.path(metaName), Offset: 16,
				Reason: fmt.Sprintf("the log starts in segment %s, which is missing", segName(s.meta.firstSeg))}
		default:
			want = g.base
		}
		g.lo = want
		isTail := n == len(live)-1
		if want, err = s.scanSegment(g, start, want, isTail); err != nil {
			return err
		}
	}
	if len(s.segs) > 0 {
		s.nextSeq = s.segs[len(s.segs)-1].seq + 1
		s.first = s.segs[0].lo
		s.last = want - 1
	}
	if s.first > s.last { // nothing live: normalise to no segments
		s.first, s.last = 0, 0
	}
	if len(seqs) > 0 && seqs[len(seqs)-1] >= s.nextSeq {
		s.nextSeq = seqs[len(seqs)-1] + 1
	}
	if s.meta.firstSeg > s.nextSeq {
		s.nextSeq = s.meta.firstSeg
	}
	if s.first == 0 && len(s.segs) > 0 {
		if err := s.deleteAll(); err != nil {
			return err
		}
	}
	removed := false
	for _, name := range junk {
		if err := os.Remove(s.path(name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("raftlog: removing leftover %s: %w", name, err)
		}
		removed = true
	}
	if removed {
		return s.syncDir()
	}
	return nil
}

func (s *Store) path(name string) string { return filepath.Join(s.dir, name) }

func (s *Store) readMeta() error {
	path := s.path(metaName)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("raftlog: %w", err)
	}
	if s.meta, err = decodeMeta(b); err != nil {
		return positioned(path, 0, 0, err)
	}
	return nil
}

// positioned turns a decodeError found at base in file into a CorruptError.
func positioned(file string, base int64, index uint64, err error) error {
	var de *decodeError
	if !errors.As(err, &de) {
		return err
	}
	return &CorruptError{File: file, Offset: base + de.Offset, Index: index, Reason: de.Reason}
}

func (s *Store) openSegment(seq uint64) (*segment, error) {
	g := &segment{seq: seq, path: s.path(segName(seq))}
	f, err := os.OpenFile(g.path, os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("raftlog: %w", err)
	}
	b := make([]byte, segHeaderSize)
	n, err := f.ReadAt(b, 0)
	if err != nil && err != io.EOF {
		f.Close()
		return nil, fmt.Errorf("raftlog: reading %s: %w", g.path, err)
	}
	h, err := decodeSegHeader(b[:n])
	if err != nil {
		f.Close()
		return nil, positioned(g.path, 0, 0, err)
	}
	if h.seq != seq {
		f.Close()
		return nil, &CorruptError{File: g.path, Offset: 16, Reason: fmt.Sprintf("header names segment %d", h.seq)}
	}
	g.f, g.base = f, h.base
	return g, nil
}

// scanSegment reads g's records from byte start, expecting index want
// first, and appends their offsets to g.offs. It returns the index expected
// after the last good record. A record that fails its checks is a
// *CorruptError, unless g is the tail and the damage is a torn tail (see
// tornTail), which is cut off.
func (s *Store) scanSegment(g *segment, start int64, want uint64, isTail bool) (uint64, error) {
	fi, err := g.f.Stat()
	if err != nil {
		return 0, fmt.Errorf("raftlog: %w", err)
	}
	size := fi.Size()
	if start > size {
		return 0, &CorruptError{File: s.path(metaName), Offset: 32,
			Reason: fmt.Sprintf("log start offset %d is past the end of %s (%d bytes)", start, g.path, size)}
	}
	max := s.opts.MaxRecordSize
	r := bufio.NewReaderSize(io.NewSectionReader(g.f, start, size-start), 1<<20)
	off := start
	var big []byte
	var bad *decodeError
	for off < size {
		need := recPrefixSize
		if hdr, _ := r.Peek(recPrefixSize); len(hdr) == recPrefixSize {
			if l := uint64(binary.LittleEndian.Uint32(hdr)) + recPrefixSize; l >= minRecordSize && l <= uint64(max) {
				need = int(l)
			}
		}
		var b []byte
		if need <= r.Size() {
			b, err = r.Peek(need)
		} else {
			if cap(big) < need {
				big = make([]byte, need)
			}
			b = big[:need]
			var n int
			n, err = io.ReadFull(r, b)
			b = b[:n]
		}
		if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF && err != bufio.ErrBufferFull {
			return 0, fmt.Errorf("raftlog: reading %s at offset %d: %w", g.path, off, err)
		}
		rec, n, derr := decodeRecord(b, max)
		if derr != nil {
			bad = derr.(*decodeError)
			break
		}
		if rec.index != want {
			bad = &decodeError{Offset: 8, Reason: fmt.Sprintf("record holds index %d, want %d", rec.index, want)}
			break
		}
		g.offs = append(g.offs, off)
		off += int64(n)
		want++
		if need <= r.Size() {
			r.Discard(n)
		}
	}
	g.size = off
	if bad == nil {
		return want, nil
	}
	if !isTail {
		return 0, &CorruptError{File: g.path, Offset: off, Index: want, Reason: bad.Reason}
	}
	if err := s.tornTail(g, off, want, size, bad); err != nil {
		return 0, err
	}
	return want, nil
}

// tornTail decides whether the damaged record at off in the tail segment g
// is the torn end of the last, unacknowledged batch, and if so truncates the
// file there. Only the last batch can be torn: StoreLogs writes a batch only
// after the previous one was fsynced. So if an intact record flagged as the
// start of a batch, with an index above want, follows the damage, the
// damaged batch had been acknowledged and the damage is a *CorruptError.
func (s *Store) tornTail(g *segment, off int64, want uint64, size int64, bad *decodeError) error {
	rest := make([]byte, size-off)
	if _, err := g.f.ReadAt(rest, off); err != nil {
		return fmt.Errorf("raftlog: reading %s at offset %d: %w", g.path, off, err)
	}
	if p, idx, ok := findBatchStart(rest[1:], want, s.opts.MaxRecordSize); ok {
		return &CorruptError{File: g.path, Offset: off, Index: want, Reason: fmt.Sprintf(
			"%s; an intact later batch starts at offset %d (index %d), so this entry was acknowledged",
			bad.Reason, off+1+int64(p), idx)}
	}
	if err := g.f.Truncate(off); err != nil {
		return fmt.Errorf("raftlog: truncating the torn tail of %s at offset %d: %w", g.path, off, err)
	}
	if err := datasync(g.f); err != nil {
		return fmt.Errorf("raftlog: syncing %s: %w", g.path, err)
	}
	s.repaired = &Repair{File: g.path, Offset: off, Dropped: size - off, Reason: bad.Reason}
	return nil
}

// findBatchStart looks for an intact record in b, at any byte position,
// that starts a batch and holds an index above after. It returns its
// position and index.
func findBatchStart(b []byte, after uint64, max int) (int, uint64, bool) {
	for p := 0; p+minRecordSize <= len(b); p++ {
		l := uint64(binary.LittleEndian.Uint32(b[p:])) + recPrefixSize
		if l < minRecordSize || l > uint64(max) || uint64(p)+l > uint64(len(b)) {
			continue
		}
		if b[p+37] != flagBatchStart {
			continue
		}
		if idx := binary.LittleEndian.Uint64(b[p+8:]); idx <= after {
			continue
		}
		if r, _, err := decodeRecord(b[p:], max); err == nil {
			return p, r.index, true
		}
	}
	return 0, 0, false
}

// LockDir takes dir's lock file (dir/LOCK, created) for as long as the
// returned file is open: mbatchd holds its state directory's lock before
// it touches any of its files. It fails with an error matching ErrLocked
// when another process holds it.
func LockDir(dir string) (io.Closer, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("raftlog: %w", err)
	}
	return lockDir(dir)
}
