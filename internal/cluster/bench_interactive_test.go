package cluster_test

import (
	"bytes"
	"os"
	"os/exec"
	"sort"
	"testing"
	"time"

	"github.com/creack/pty"
)

// BenchmarkBsubIsFirstByte measures `bsub -Is /bin/sh -i` on an idle
// 2-host cluster, one at a time: from the start of the bsub process to the
// first byte of the shell's prompt on bsub's terminal (submission, dispatch,
// the attach to the execution host's sbatchd, the shell's start), beside
// the floor of a plain `bsub -o /dev/null true` process (submission only)
// measured in turn in the same loop. Medians in ms.
//
//	go test -run '^$' -bench BsubIsFirstByte -benchtime 30x ./internal/cluster/
func BenchmarkBsubIsFirstByte(b *testing.B) {
	c := up(b, 2, 4)
	exe := buildBinary(b, "github.com/basalt-lsf/basalt/cmd/basalt")
	env := append(os.Environ(), "LSF_ENVDIR="+c.EnvDir, "BASALT_HOST=host1", "PS1=PROMPT> ", "TERM=xterm")
	var first, plain []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// The floor: a batch submission.
		cmd := exec.Command(exe, "-o", "/dev/null", "true")
		cmd.Args[0], cmd.Env = "bsub", env
		t0 := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("bsub: %v: %s", err, out)
		}
		plain = append(plain, time.Since(t0))

		cmd = exec.Command(exe, "-Is", "/bin/sh", "-i")
		cmd.Args[0], cmd.Env = "bsub", env
		t0 = time.Now()
		m, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 24, Cols: 80})
		if err != nil {
			b.Fatal(err)
		}
		// The first byte after bsub's own "<<Starting on host>>" line is
		// the job's: the prompt.
		var seen bytes.Buffer
		var at time.Duration
		buf := make([]byte, 4096)
		for !bytes.Contains(seen.Bytes(), []byte("PROMPT")) {
			n, err := m.Read(buf)
			if err != nil {
				b.Fatalf("bsub -Is: %v: %q", err, seen.Bytes())
			}
			seen.Write(buf[:n])
			if k := bytes.Index(seen.Bytes(), []byte("<<Starting on")); at == 0 && k >= 0 {
				if e := bytes.IndexByte(seen.Bytes()[k:], '\n'); e >= 0 && seen.Len() > k+e+1 {
					at = time.Since(t0)
				}
			}
		}
		first = append(first, at)
		m.Write([]byte("exit\r"))
		go func() { _, _ = bytes.NewBuffer(nil).ReadFrom(m) }()
		if err := cmd.Wait(); err != nil {
			b.Fatalf("bsub -Is: %v: %q", err, seen.Bytes())
		}
		m.Close()
	}
	b.StopTimer()
	median := func(d []time.Duration) float64 {
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		return float64(d[len(d)/2].Microseconds()) / 1000
	}
	b.ReportMetric(median(first), "first-byte-median-ms")
	b.ReportMetric(median(plain), "bsub-floor-median-ms")
}
