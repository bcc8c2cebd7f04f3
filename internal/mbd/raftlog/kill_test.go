package raftlog

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/raft"
)

const killChildEnv = "RAFTLOG_KILL_CHILD_DIR"

// killChild is the child process of TestKillDuringStoreLogs: it opens the
// store, then appends batches of 1-64 entries of 512 bytes, compacting the
// head every 40 batches, and reports each completed call on stdout:
// "ack <last index>", "try-head <first>" before a compaction and "head
// <first>" after it. It runs until killed.
func killChild(dir string) {
	s, err := Open(context.Background(), dir, Options{SegmentSize: 256 << 10})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	out := bufio.NewWriter(os.Stdout)
	last, _ := s.LastIndex()
	rng := rand.New(rand.NewPCG(last, 1))
	for n := 1; ; n++ {
		size := uint64(1 + rng.IntN(64))
		if err := s.StoreLogs(batch(last+1, size, 1, 512)); err != nil {
			fmt.Fprintln(out, "error", err)
			out.Flush()
			os.Exit(1)
		}
		last += size
		fmt.Fprintln(out, "ack", last)
		if n%40 == 0 && last > 2000 {
			first := last - 1000
			fmt.Fprintln(out, "try-head", first)
			out.Flush()
			if err := s.DeleteRange(1, first-1); err != nil {
				fmt.Fprintln(out, "error", err)
				out.Flush()
				os.Exit(1)
			}
			fmt.Fprintln(out, "head", first)
		}
		out.Flush()
	}
}

// TestKillDuringStoreLogs re-executes the test binary as a writer, kills it
// with SIGKILL after a varying number of acknowledged batches, reopens the
// directory and checks that every acknowledged entry is there and intact;
// then does it again on the same directory, the child continuing from what
// it finds.
func TestKillDuringStoreLogs(t *testing.T) {
	if dir := os.Getenv(killChildEnv); dir != "" {
		killChild(dir)
		return
	}
	if testing.Short() {
		t.Skip("re-executes the test binary")
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(7, 7))
	var acked, headAcked, headTried uint64
	for round := 0; round < 6; round++ {
		stopAfter := 50 + rng.IntN(300)
		cmd := exec.Command(os.Args[0], "-test.run=^TestKillDuringStoreLogs$")
		cmd.Env = append(os.Environ(), killChildEnv+"="+dir)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(stdout)
		acks := 0
		for acks < stopAfter && sc.Scan() {
			word, arg, _ := strings.Cut(sc.Text(), " ")
			v, _ := strconv.ParseUint(arg, 10, 64)
			switch word {
			case "ack":
				if v <= acked {
					t.Fatalf("round %d: ack %d after ack %d", round, v, acked)
				}
				acked = v
				acks++
			case "try-head":
				headTried = v
			case "head":
				headAcked = v
			default:
				cmd.Process.Kill()
				t.Fatalf("round %d: child said %q", round, sc.Text())
			}
		}
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		// What the child said before it died is still in the pipe: a head
		// deletion it announced there may have happened.
		for sc.Scan() {
			word, arg, _ := strings.Cut(sc.Text(), " ")
			v, _ := strconv.ParseUint(arg, 10, 64)
			switch word {
			case "ack":
				acked = max(acked, v)
			case "try-head":
				headTried = v
			case "head":
				headAcked = v
			}
		}
		cmd.Wait()
		if acks < stopAfter {
			t.Fatalf("round %d: child stopped after %d acks: %v", round, acks, sc.Err())
		}

		s := openT(t, dir, Options{SegmentSize: 256 << 10})
		first, _ := s.FirstIndex()
		last, _ := s.LastIndex()
		if last < acked {
			t.Fatalf("round %d: last index %d, but %d was acknowledged", round, last, acked)
		}
		wantFirst := max(uint64(1), headAcked)
		if first != wantFirst && first != headTried {
			t.Fatalf("round %d: first index %d, want %d (acknowledged) or %d (in flight)", round, first, wantFirst, headTried)
		}
		for i := first; i <= last; i++ {
			var l raft.Log
			if err := s.GetLog(i, &l); err != nil {
				t.Fatalf("round %d: GetLog(%d): %v", round, i, err)
			}
			if want := entry(i, 1, 512); !sameLog(&l, want) {
				t.Fatalf("round %d: entry %d damaged", round, i)
			}
		}
		t.Logf("round %d: killed after %d acks; log [%d, %d], acknowledged up to %d, repaired %+v",
			round, acks, first, last, acked, s.Repaired())
		acked, headAcked = last, first
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
