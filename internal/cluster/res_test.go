package cluster_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/internal/cli"
	"github.com/basalt-lsf/basalt/internal/cluster"
)

var resSize = flag.Int("res.size", 100, "MB copied by lsrcp in TestNetnsRES and BenchmarkLsrcp")

// netnsUp starts a namespace cluster of hosts, or skips.
func netnsUp(tb testing.TB, hosts int) *cluster.Cluster {
	tb.Helper()
	if err := cluster.NetnsSupport(context.Background()); err != nil {
		tb.Skipf("namespace cluster: %v", err)
	}
	c, err := cluster.Up(context.Background(), cluster.Options{Dir: tb.TempDir(), Hosts: hosts, Netns: true,
		Cluster: fmt.Sprintf("r%d-%d", os.Getpid()%100000, clusterSeq.Add(1)), Has: func(n string) bool { _, ok := cli.Lookup(n); return ok }})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Down(context.Background()) })
	return c
}

// onHost runs a command (this test binary as argv[0]) on host: in its
// network namespace, as that host.
func onHost(tb testing.TB, c *cluster.Cluster, exe, host string, args ...string) (string, error) {
	tb.Helper()
	cmd := exec.Command(exe, args[1:]...)
	cmd.Args[0] = args[0]
	cmd.Env = append(os.Environ(), "LSF_ENVDIR="+c.EnvDir, "BASALT_HOST="+host)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := c.InHost(host, cmd.Run)
	return out.String(), err
}

func fileSum(tb testing.TB, path string) [32]byte {
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		tb.Fatal(err)
	}
	var s [32]byte
	copy(s[:], h.Sum(nil))
	return s
}

func randomFile(tb testing.TB, path string, mb int) {
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if _, err := io.CopyN(f, rand.Reader, int64(mb)<<20); err != nil {
		tb.Fatal(err)
	}
}

// TestNetnsRES: lsrun and lsgrun from one host of a namespace cluster run
// on the others, in their network; lsrcp copies a big file (-res.size MB)
// to another host and back, checked by checksum.
func TestNetnsRES(t *testing.T) {
	c := netnsUp(t, 3)
	exe := os.Args[0]
	out, err := onHost(t, c, exe, "host1", "lsrun", "-m", "host3", "sh", "-c", `echo $BASALT_HOST; ip -o -4 addr show dev eth0 | awk '{print $4}'; exit 4`)
	want := fmt.Sprintf("host3\n%s/24\n", c.HostAddr(3))
	if out != want || err == nil || !strings.Contains(err.Error(), "exit status 4") {
		t.Errorf("lsrun -m host3 from host1: %q, %v; want %q and exit status 4", out, err, want)
	}
	out, err = onHost(t, c, exe, "host2", "lsgrun", "-m", "host1 host2 host3", "sh", "-c", `echo on $BASALT_HOST $(ip -o -4 addr show dev eth0 | awk '{print $4}')`)
	want = fmt.Sprintf("on host1 %s/24\non host2 %s/24\non host3 %s/24\n", c.HostAddr(1), c.HostAddr(2), c.HostAddr(3))
	if err != nil || out != want {
		t.Errorf("lsgrun from host2: %q, %v; want %q", out, err, want)
	}
	out, err = onHost(t, c, exe, "host2", "lsgrun", "-p", "-m", "host1 host3", "sh", "-c", `echo par $BASALT_HOST`)
	if err != nil || !strings.Contains(out, "par host1\n") || !strings.Contains(out, "par host3\n") {
		t.Errorf("lsgrun -p from host2: %q, %v", out, err)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "big")
	randomFile(t, src, *resSize)
	start := time.Now()
	if out, err := onHost(t, c, exe, "host1", "lsrcp", src, "host2:"+src+".2"); err != nil {
		t.Fatalf("lsrcp to host2: %v: %s", err, out)
	}
	to := time.Since(start)
	start = time.Now()
	if out, err := onHost(t, c, exe, "host3", "lsrcp", "host2:"+src+".2", src+".3"); err != nil {
		t.Fatalf("lsrcp from host2 on host3: %v: %s", err, out)
	}
	from := time.Since(start)
	sum := fileSum(t, src)
	for _, p := range []string{src + ".2", src + ".3"} {
		if fileSum(t, p) != sum {
			t.Errorf("%s differs from the source", p)
		}
	}
	t.Logf("lsrcp %d MB: host1 -> host2 %v (%.0f MB/s), host2 -> host3 %v (%.0f MB/s)", *resSize,
		to.Round(time.Millisecond), float64(*resSize)/to.Seconds(), from.Round(time.Millisecond), float64(*resSize)/from.Seconds())
}

// BenchmarkLsrunTrue times `lsrun -L -m host1 true` (through host1's RES, which a task
// placed on the local host skips without -L) as a process (the command
// binary as make builds it) against a real local cluster, beside a floor:
// the same binary started as `lsrun -V` (process start, no RES).
//
//	go test -run '^$' -bench LsrunTrue -benchtime 100x ./internal/cluster/
func BenchmarkLsrunTrue(b *testing.B) {
	c := up(b, 1, 1)
	env := append(os.Environ(), "LSF_ENVDIR="+c.EnvDir, "BASALT_HOST=host1")
	exe := commandBinary(b)
	progs := []*startupProg{
		{name: "floor-exec", args: []string{"lsrun", "-V"}, exe: exe},
		{name: "lsrun-true", args: []string{"lsrun", "-L", "-m", "host1", "true"}, exe: exe},
	}
	for _, p := range progs {
		p.run(b, env) // warm
		p.spent = 0
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, p := range progs {
			p.run(b, env)
		}
	}
	for _, p := range progs {
		b.ReportMetric(p.spent.Seconds()*1000/float64(b.N), p.name+"-ms")
	}
}

// BenchmarkLsrcp copies a -res.size MB file from host1 to host2 of a
// namespace cluster with lsrcp (as a process), beside two floors in the
// same run: reading the file (cat > /dev/null) and a raw TCP copy of it
// between the same two hosts' namespaces.
//
//	go test -run '^$' -bench Lsrcp -benchtime 3x -res.size 100 ./internal/cluster/
func BenchmarkLsrcp(b *testing.B) {
	c := netnsUp(b, 2)
	exe := commandBinary(b)
	dir := b.TempDir()
	src := filepath.Join(dir, "big")
	randomFile(b, src, *resSize)
	var lsrcp, cat, tcp time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if out, err := onHost(b, c, exe, "host1", "lsrcp", src, "host2:"+src+".2"); err != nil {
			b.Fatalf("lsrcp: %v: %s", err, out)
		}
		lsrcp += time.Since(t0)
		t0 = time.Now()
		if err := exec.Command("sh", "-c", "cat "+src+" > /dev/null").Run(); err != nil {
			b.Fatal(err)
		}
		cat += time.Since(t0)
		tcp += rawCopy(b, c, src)
	}
	mb := float64(*resSize) * float64(b.N)
	b.ReportMetric(mb/lsrcp.Seconds(), "lsrcp-MB/s")
	b.ReportMetric(mb/cat.Seconds(), "cat-MB/s")
	b.ReportMetric(mb/tcp.Seconds(), "tcp-MB/s")
}

// rawCopy sends the file from host1's namespace to a listener in host2's
// and returns the time until host2 has read it all.
func rawCopy(b *testing.B, c *cluster.Cluster, src string) time.Duration {
	var ln net.Listener
	if err := c.InHost("host2", func() (err error) {
		ln, err = net.Listen("tcp", net.JoinHostPort(c.HostAddr(2).String(), "0"))
		return err
	}); err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	done := make(chan error, 1)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			done <- err
			return
		}
		defer conn.Close()
		_, err = io.Copy(io.Discard, conn)
		done <- err
	}()
	t0 := time.Now()
	if err := c.InHost("host1", func() error {
		conn, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			return err
		}
		f, err := os.Open(src)
		if err != nil {
			conn.Close()
			return err
		}
		defer f.Close()
		_, err = io.Copy(conn, f)
		conn.Close()
		return err
	}); err != nil {
		b.Fatal(err)
	}
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	return time.Since(t0)
}
