package raftlog

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/hashicorp/raft"
)

// entry returns the deterministic test entry for index i, with dataLen bytes
// of data derived from i (and term), so any entry can be checked on its own.
func entry(i, term uint64, dataLen int) *raft.Log {
	d := make([]byte, dataLen)
	for k := range d {
		d[k] = byte(i*31 + uint64(k)*7 + term)
	}
	l := &raft.Log{Index: i, Term: term, Type: raft.LogCommand, Data: d}
	if i%3 == 0 {
		l.Extensions = []byte(fmt.Sprintf("ext-%d", i))
	}
	if i%2 == 0 {
		l.AppendedAt = time.Unix(1700000000, int64(i)).UTC()
	}
	if i%5 == 0 {
		l.Type = raft.LogNoop
	}
	return l
}

func batch(from, n, term uint64, dataLen int) []*raft.Log {
	logs := make([]*raft.Log, n)
	for i := range logs {
		logs[i] = entry(from+uint64(i), term, dataLen)
	}
	return logs
}

func sameLog(a, b *raft.Log) bool {
	return a.Index == b.Index && a.Term == b.Term && a.Type == b.Type &&
		bytes.Equal(a.Data, b.Data) && bytes.Equal(a.Extensions, b.Extensions) &&
		a.AppendedAt.Equal(b.AppendedAt)
}

func openT(t testing.TB, dir string, opts Options) *Store {
	t.Helper()
	s, err := Open(context.Background(), dir, opts)
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	return s
}

func mustStore(t testing.TB, s *Store, logs []*raft.Log) {
	t.Helper()
	if err := s.StoreLogs(logs); err != nil {
		t.Fatalf("StoreLogs(%d..%d): %v", logs[0].Index, logs[len(logs)-1].Index, err)
	}
}

// checkRange asserts that the store holds exactly [first, last] (0, 0 for
// empty) and that each entry is the one entry(i, term(i), dataLen) built.
func checkRange(t testing.TB, s *Store, first, last uint64, term func(uint64) uint64, dataLen int) {
	t.Helper()
	f, _ := s.FirstIndex()
	l, _ := s.LastIndex()
	if f != first || l != last {
		t.Fatalf("range = [%d, %d], want [%d, %d]", f, l, first, last)
	}
	if first == 0 {
		return
	}
	for i := first; i <= last; i++ {
		var got raft.Log
		if err := s.GetLog(i, &got); err != nil {
			t.Fatalf("GetLog(%d): %v", i, err)
		}
		if want := entry(i, term(i), dataLen); !sameLog(&got, want) {
			t.Fatalf("GetLog(%d) = %+v, want %+v", i, got, *want)
		}
	}
	var got raft.Log
	if err := s.GetLog(first-1, &got); err != raft.ErrLogNotFound {
		t.Fatalf("GetLog(%d) before the first: %v, want ErrLogNotFound", first-1, err)
	}
	if err := s.GetLog(last+1, &got); err != raft.ErrLogNotFound {
		t.Fatalf("GetLog(%d) after the last: %v, want ErrLogNotFound", last+1, err)
	}
}

func term1(uint64) uint64 { return 1 }

// segFiles lists the segment files of dir in order.
func segFiles(t testing.TB, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*"+segSuffix))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(m)
	return m
}

func fileSize(t testing.TB, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// copyDir copies the regular files of src into a new temporary directory.
func copyDir(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}
