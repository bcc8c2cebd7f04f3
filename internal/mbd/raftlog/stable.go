package raftlog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
)

// Set implements raft.StableStore. The whole key/value file is rewritten
// atomically (temporary file, fsync, rename, directory fsync) before Set
// returns; raft sets a handful of keys only on elections and votes.
func (s *Store) Set(key, val []byte) error {
	s.kvmu.Lock()
	defer s.kvmu.Unlock()
	if s.kvClosed {
		return ErrClosed
	}
	next := maps.Clone(s.kv)
	if next == nil {
		next = make(map[string][]byte)
	}
	next[string(key)] = slices.Clone(val)
	err := s.writeFileAtomic(stableName, encodeKV(next), "stable")
	if err != nil && isNoSpace(err) {
		// Raft cannot go on without its term: give the reserve back and
		// write again (the rewrite frees the old file's space at once).
		_ = s.noSpace(err)
		err = s.writeFileAtomic(stableName, encodeKV(next), "stable")
	}
	if err != nil {
		return fmt.Errorf("raftlog: writing %s: %w", s.path(stableName), err)
	}
	s.kv = next
	return nil
}

// Get implements raft.StableStore. A key never set yields nil and no error.
func (s *Store) Get(key []byte) ([]byte, error) {
	s.kvmu.Lock()
	defer s.kvmu.Unlock()
	if s.kvClosed {
		return nil, ErrClosed
	}
	return slices.Clone(s.kv[string(key)]), nil
}

// SetUint64 implements raft.StableStore: val is stored under key as 8 bytes,
// big-endian, sharing the key space of Set.
func (s *Store) SetUint64(key []byte, val uint64) error {
	return s.Set(key, binary.BigEndian.AppendUint64(nil, val))
}

// GetUint64 implements raft.StableStore. A key never set yields 0 and no
// error.
func (s *Store) GetUint64(key []byte) (uint64, error) {
	v, err := s.Get(key)
	if err != nil || len(v) == 0 {
		return 0, err
	}
	if len(v) != 8 {
		return 0, fmt.Errorf("raftlog: stable key %q holds %d bytes, not a uint64", key, len(v))
	}
	return binary.BigEndian.Uint64(v), nil
}

// Stable file layout: magic, version, CRC-32C (of every other byte), entry
// count, then per entry in key order a uint32 key length, the key, a uint32
// value length and the value. All integers little-endian.
const kvHeaderSize = 20

func encodeKV(kv map[string][]byte) []byte {
	keys := slices.Sorted(maps.Keys(kv))
	b := make([]byte, kvHeaderSize, kvHeaderSize+64*len(keys))
	copy(b, kvMagic)
	binary.LittleEndian.PutUint32(b[8:12], fmtVersion)
	binary.LittleEndian.PutUint32(b[16:20], uint32(len(keys)))
	for _, k := range keys {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(k)))
		b = append(b, k...)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(kv[k])))
		b = append(b, kv[k]...)
	}
	binary.LittleEndian.PutUint32(b[12:16], headerCRC(b))
	return b
}

// decodeKV parses a stable file. Errors are *decodeError positioned at the
// offending byte.
func decodeKV(b []byte) (map[string][]byte, error) {
	crcEnd := len(b)
	if crcEnd < kvHeaderSize {
		crcEnd = kvHeaderSize
	}
	if err := checkFixedHeader(b, kvMagic, kvHeaderSize, crcEnd); err != nil {
		return nil, err
	}
	n := binary.LittleEndian.Uint32(b[16:20])
	kv := make(map[string][]byte, min(n, 1024))
	off := kvHeaderSize
	field := func(what string) ([]byte, error) {
		if len(b)-off < 4 {
			return nil, &decodeError{Offset: int64(off), Short: true, Reason: what + " length cut short"}
		}
		l := binary.LittleEndian.Uint32(b[off:])
		if uint64(l) > uint64(len(b)-off-4) {
			return nil, &decodeError{Offset: int64(off), Reason: fmt.Sprintf("%s length %d runs past the end of the file", what, l)}
		}
		v := b[off+4 : off+4+int(l)]
		off += 4 + int(l)
		return v, nil
	}
	for i := uint32(0); i < n; i++ {
		at := off
		k, err := field("key")
		if err != nil {
			return nil, err
		}
		v, err := field("value")
		if err != nil {
			return nil, err
		}
		if _, dup := kv[string(k)]; dup {
			return nil, &decodeError{Offset: int64(at), Reason: fmt.Sprintf("duplicate key %q", k)}
		}
		kv[string(k)] = slices.Clone(v)
	}
	if off != len(b) {
		return nil, &decodeError{Offset: int64(off), Reason: fmt.Sprintf("%d trailing bytes", len(b)-off)}
	}
	return kv, nil
}

// readKV loads the stable file; a missing file is an empty store. The file
// is only ever replaced by rename, so damage is a *CorruptError.
func readKV(path string) (map[string][]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string][]byte{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("raftlog: %w", err)
	}
	kv, err := decodeKV(b)
	if err != nil {
		return nil, positioned(path, 0, 0, err)
	}
	return kv, nil
}
