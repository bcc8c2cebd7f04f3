package raftlog

import (
	"context"
	"flag"
	"fmt"
	"testing"

	"github.com/hashicorp/raft"
)

// Benchmark sizes are flags so the heavy figures (a million-entry Open) are
// produced on request only:
//
//	go test -run '^$' -bench . -benchmem -raftlog.openentries 1000000 ./internal/mbd/raftlog/
var (
	benchDataLen     = flag.Int("raftlog.datalen", 512, "data bytes per entry in the benchmarks")
	benchLogEntries  = flag.Int("raftlog.entries", 100_000, "entries in the GetLog benchmarks' log")
	benchOpenEntries = flag.Int("raftlog.openentries", 100_000, "entries in the Open benchmark's log")
)

// BenchmarkStoreLogs appends batches of 1, 16 and 256 entries, each call
// fsynced. MB/s counts entry data; entries/s is the committed entry rate.
func BenchmarkStoreLogs(b *testing.B) {
	for _, n := range []int{1, 16, 256} {
		b.Run(fmt.Sprintf("batch=%d", n), func(b *testing.B) {
			s := openT(b, b.TempDir(), Options{})
			defer s.Close()
			data := make([]byte, *benchDataLen)
			logs := make([]*raft.Log, n)
			for i := range logs {
				logs[i] = &raft.Log{Term: 1, Type: raft.LogCommand, Data: data}
			}
			b.SetBytes(int64(n * *benchDataLen))
			b.ReportAllocs()
			next := uint64(1)
			for b.Loop() {
				for i, l := range logs {
					l.Index = next + uint64(i)
				}
				if err := s.StoreLogs(logs); err != nil {
					b.Fatal(err)
				}
				next += uint64(n)
			}
			b.ReportMetric(float64(next-1)/b.Elapsed().Seconds(), "entries/s")
		})
	}
}

// fillLog writes n entries of benchDataLen bytes in batches of 1024.
func fillLog(b *testing.B, s *Store, n int) {
	b.Helper()
	data := make([]byte, *benchDataLen)
	logs := make([]*raft.Log, 0, 1024)
	for i := 1; i <= n; i++ {
		logs = append(logs, &raft.Log{Index: uint64(i), Term: 1, Type: raft.LogCommand, Data: data})
		if len(logs) == cap(logs) || i == n {
			if err := s.StoreLogs(logs); err != nil {
				b.Fatal(err)
			}
			logs = logs[:0]
		}
	}
}

// BenchmarkGetLog reads recent entries (within the cache, what raft reads
// most) and old ones (one pread each, from the page cache).
func BenchmarkGetLog(b *testing.B) {
	n := *benchLogEntries
	s := openT(b, b.TempDir(), Options{})
	defer s.Close()
	fillLog(b, s, n)
	last := uint64(n)
	for _, bc := range []struct {
		name  string
		index func(i uint64) uint64
	}{
		{"recent", func(i uint64) uint64 { return last - i%256 }},
		{"old", func(i uint64) uint64 { return 1 + (i*7919)%(last/2) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			var l raft.Log
			var i uint64
			for b.Loop() {
				if err := s.GetLog(bc.index(i), &l); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// BenchmarkOpen measures recovery: opening a cleanly closed log of
// -raftlog.openentries entries, which reads and checks every record.
func BenchmarkOpen(b *testing.B) {
	n := *benchOpenEntries
	dir := b.TempDir()
	s := openT(b, dir, Options{})
	fillLog(b, s, n)
	s.Close()
	b.ReportAllocs()
	b.SetBytes(int64(n) * int64(minRecordSize+*benchDataLen))
	for b.Loop() {
		s, err := Open(context.Background(), dir, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if last, _ := s.LastIndex(); last != uint64(n) {
			b.Fatalf("recovered %d entries, want %d", last, n)
		}
		s.Close()
	}
	b.ReportMetric(float64(n), "entries")
}
