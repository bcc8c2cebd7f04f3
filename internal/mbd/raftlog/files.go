package raftlog

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// File names inside the store's directory.
const (
	lockName   = "LOCK"
	metaName   = "meta"
	stableName = "stable"
	segSuffix  = ".seg"
	tmpSuffix  = ".tmp"
	segDigits  = 20
)

func segName(seq uint64) string { return fmt.Sprintf("%0*d%s", segDigits, seq, segSuffix) }

// parseSegName returns the sequence number of a segment file name, or false.
func parseSegName(name string) (uint64, bool) {
	num, ok := strings.CutSuffix(name, segSuffix)
	if !ok || len(num) != segDigits {
		return 0, false
	}
	for _, c := range num {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	seq, err := strconv.ParseUint(num, 10, 64)
	if err != nil {
		return 0, false
	}
	return seq, true
}

// writeFileAtomic replaces dir/name with data so that a crash leaves either
// the old or the new content: write name.tmp, fsync it, rename it over name,
// fsync the directory.
func (s *Store) writeFileAtomic(name string, data []byte, step string) error {
	path := filepath.Join(s.dir, name)
	tmp := path + tmpSuffix
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := s.crashPoint(step + ":tmp"); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	if err := s.crashPoint(step + ":rename"); err != nil {
		return err
	}
	return s.syncDir()
}

func (s *Store) syncDir() error {
	if err := s.dirf.Sync(); err != nil {
		return fmt.Errorf("syncing directory %s: %w", s.dir, err)
	}
	return nil
}
