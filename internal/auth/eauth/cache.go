package eauth

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// ReplayFile is the replay cache's file name in a daemon's state
// directory.
const ReplayFile = "eauth.replay"

// A replay cache file is a header, then one 24-byte record per accepted
// credential: its nonce and its expiry (Unix seconds, big-endian).
const (
	cacheHeader = "basalt-eauth-replay-1\n"
	recordSize  = NonceSize + 8
)

// ReplayCache remembers the nonces of accepted credentials until they
// expire, in memory and in a file it appends to (one write per accepted
// credential) and compacts, so that a restarted daemon refuses what its
// previous run accepted. A crash of the daemon loses nothing (the writes
// are in the kernel); a crash of the machine can lose the records not yet
// on disk. Safe for concurrent use.
type ReplayCache struct {
	path string

	mu       sync.Mutex
	f        *os.File
	seen     map[[NonceSize]byte]int64 // expiry, Unix seconds
	records  int                       // in the file
	lastPurg int64
}

// OpenReplayCache loads (or creates) the cache file at path, forgetting
// the nonces expired at now. A torn last record (a crash mid-write) is
// ignored.
func OpenReplayCache(path string, now time.Time) (*ReplayCache, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("replay cache: %w", err)
	}
	c := &ReplayCache{path: path, seen: map[[NonceSize]byte]int64{}, lastPurg: now.Unix()}
	src, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return nil, fmt.Errorf("replay cache: %w", err)
	}
	if len(src) > 0 {
		if len(src) < len(cacheHeader) || string(src[:len(cacheHeader)]) != cacheHeader {
			return nil, fmt.Errorf("replay cache %s: not a replay cache file", path)
		}
		n := now.Unix()
		for b := src[len(cacheHeader):]; len(b) >= recordSize; b = b[recordSize:] {
			var k [NonceSize]byte
			copy(k[:], b)
			if exp := int64(binary.BigEndian.Uint64(b[NonceSize:])); exp > n {
				c.seen[k] = exp
			}
		}
	}
	if err := c.rewrite(); err != nil {
		return nil, err
	}
	return c, nil
}

// rewrite writes the live nonces to a new file and renames it over the
// old one (fsynced: a compaction never loses what the old file held).
func (c *ReplayCache) rewrite() error {
	tmp := c.path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("replay cache: %w", err)
	}
	b := make([]byte, 0, len(cacheHeader)+len(c.seen)*recordSize)
	b = append(b, cacheHeader...)
	for k, exp := range c.seen {
		b = append(b, k[:]...)
		b = binary.BigEndian.AppendUint64(b, uint64(exp))
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if err == nil {
		err = os.Rename(tmp, c.path)
	}
	if err != nil {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("replay cache: %w", err)
	}
	if c.f != nil {
		c.f.Close()
	}
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		f.Close()
		return fmt.Errorf("replay cache: %w", err)
	}
	c.f = f
	c.records = len(c.seen)
	return nil
}

// Check records a credential's nonce and fails with ErrReplayed when it
// was seen before. The record is written before Check returns: a
// credential a daemon accepts is refused by the same daemon after a
// restart.
func (c *ReplayCache) Check(nonce [NonceSize]byte, expiry, now time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := now.Unix()
	if _, ok := c.seen[nonce]; ok {
		return ErrReplayed
	}
	if c.f == nil {
		return fmt.Errorf("replay cache %s: closed", c.path)
	}
	// Kept one second past the expiry: Unix seconds round down.
	exp := expiry.Unix() + 1
	var rec [recordSize]byte
	copy(rec[:], nonce[:])
	binary.BigEndian.PutUint64(rec[NonceSize:], uint64(exp))
	if _, err := c.f.Write(rec[:]); err != nil {
		return fmt.Errorf("replay cache %s: %w", c.path, err)
	}
	c.seen[nonce] = exp
	c.records++
	if n-c.lastPurg >= 30 {
		c.lastPurg = n
		for k, e := range c.seen {
			if e <= n {
				delete(c.seen, k)
			}
		}
	}
	if c.records > 4096 && c.records > 2*len(c.seen) {
		if err := c.rewrite(); err != nil {
			return err
		}
	}
	return nil
}

// Len is the number of nonces remembered.
func (c *ReplayCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.seen)
}

// Close closes the file.
func (c *ReplayCache) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f == nil {
		return nil
	}
	err := c.f.Close()
	c.f = nil
	return err
}
