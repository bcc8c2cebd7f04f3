package mbd

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/rpc"
	"github.com/basalt-lsf/basalt/internal/testutil"
)

var killRounds = flag.Int("mbd.killrounds", 50, "SIGKILL rounds in TestNoAcknowledgedJobLost")

// TestMain lets the test binary run as a standalone mbatchd (for tests that
// SIGKILL it): BASALT_TEST_MBD=<cluster dir>,<listen addr>.
func TestMain(m *testing.M) {
	if spec := os.Getenv("BASALT_TEST_MBD"); spec != "" {
		os.Exit(childMbd(spec))
	}
	os.Exit(m.Run())
}

func childMbd(spec string) int {
	var dir, addr string
	if n, _ := fmt.Sscanf(spec, "%s", &dir); n != 1 {
		return 2
	}
	for i := len(spec) - 1; i >= 0; i-- {
		if spec[i] == ',' {
			dir, addr = spec[:i], spec[i+1:]
			break
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	srv, err := New(ctx, Options{EnvDir: filepath.Join(dir, "conf"), Host: "host1", Auth: trustHello{}, Listener: ln,
		DataDir: filepath.Join(dir, "raft"), Log: slog.New(slog.NewTextHandler(childLogOut(), nil))})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := srv.Run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// killRoundsUnder runs rounds of: start mbatchd (start), wait until it
// answers at addr, let four clients call submit (w: the client's number)
// over connections redialled whenever a call fails, and SIGKILL mbatchd at
// a random moment (seed). Then it starts mbatchd once more, waits until it
// answers, and returns; that one is stopped when the test ends.
func killRoundsUnder(t *testing.T, start func() *exec.Cmd, addr string, rounds int, seed int64,
	submit func(ctx context.Context, c *rpc.Client, w int) error) {
	t.Helper()
	r := rand.New(rand.NewSource(seed))
	waitUp := func() {
		var err error
		if !testutil.Poll(30*time.Second, mbdAnswers(addr, &err)) {
			t.Fatalf("mbatchd did not come back: %v", err)
		}
	}
	for round := 0; round < rounds; round++ {
		cmd := start()
		waitUp()
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				var c *rpc.Client
				defer func() {
					if c != nil {
						c.Close()
					}
				}()
				for ctx.Err() == nil {
					if c == nil {
						var err error
						if c, err = rpc.Dial(ctx, addr, &api.ConnHello{User: "alice"}); err != nil {
							time.Sleep(5 * time.Millisecond) // the retry pace of a client of a process being killed
							continue
						}
					}
					if submit(ctx, c, w) != nil {
						c.Close()
						c = nil
					}
				}
			}(w)
		}
		// A real sleep: the kill lands at a random moment of the real
		// mbatchd process's work.
		time.Sleep(time.Duration(20+r.Intn(180)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		cancel()
		wg.Wait()
	}
	cmd := start()
	t.Cleanup(func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() })
	waitUp()
}

// TestNoAcknowledgedJobLost submits jobs from several clients while
// mbatchd is killed with SIGKILL at random moments and restarted; every job
// whose submission was acknowledged must be there afterwards, with its own
// ID, and no ID may be handed out twice.
func TestNoAcknowledgedJobLost(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and restarts mbatchd many times")
	}
	start, addr := childMbdStarter(t, writeCluster(t, 1, 1))
	var mu sync.Mutex
	acked := map[int64]string{} // job ID -> command
	seq := 0
	killRoundsUnder(t, start, addr, *killRounds, 42, func(ctx context.Context, c *rpc.Client, w int) error {
		mu.Lock()
		seq++
		command := fmt.Sprintf("job %d from client %d", seq, w)
		mu.Unlock()
		var reply api.SubmitReply
		if err := c.Call(ctx, api.MBatchdSubmit, &api.SubmitRequest{Jobs: []*api.JobSpec{{Command: command, FromHost: "host1"}}}, &reply); err != nil {
			return err
		}
		if res := reply.Results[0]; res.Status == nil || res.Status.Code == 0 {
			mu.Lock()
			if prev, dup := acked[res.JobID]; dup {
				t.Errorf("job ID %d acknowledged twice: %q and %q", res.JobID, prev, command)
			}
			acked[res.JobID] = command
			mu.Unlock()
		}
		return nil
	})
	// Everything acknowledged is there.
	have := map[int64]string{}
	for _, j := range allJobs(t, addr) {
		have[j.JobID] = j.Command
	}
	lost := 0
	for id, command := range acked {
		got, ok := have[id]
		switch {
		case !ok:
			lost++
			if lost < 10 {
				t.Errorf("acknowledged job %d (%q) lost", id, command)
			}
		case got != command:
			t.Errorf("job %d is %q, acknowledged as %q", id, got, command)
		}
	}
	t.Logf("%d rounds, %d jobs acknowledged, %d in mbatchd after restart, %d lost", *killRounds, len(acked), len(have), lost)
	if len(acked) < *killRounds {
		t.Fatalf("only %d jobs acknowledged in %d rounds: the test did not exercise mbatchd", len(acked), *killRounds)
	}
}

// allJobs lists every job of the mbatchd at addr, finished ones included.
func allJobs(t *testing.T, addr string) []*api.JobRecord {
	t.Helper()
	c, err := rpc.Dial(context.Background(), addr, &api.ConnHello{User: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	st, err := c.Stream(context.Background(), api.MBatchdJobs, &api.JobsRequest{User: "all", IncludeFinished: true, Detail: true})
	if err != nil {
		t.Fatal(err)
	}
	var out []*api.JobRecord
	for {
		var r api.JobsReply
		err := st.Recv(&r)
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r.Jobs...)
	}
}

// childMbdStarter returns how to start the test binary as mbatchd on
// dir (a process to SIGKILL), and the address it listens on.
func childMbdStarter(t *testing.T, dir string) (func() *exec.Cmd, string) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return func() *exec.Cmd {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), "BASALT_TEST_MBD="+dir+","+addr)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}, addr
}

// TestRetriedSubmissionsCreateOnce: clients that send a request again
// with its key whenever the answer is lost, as bsub does, while mbatchd is
// killed at random moments, get every request answered, and each creates
// its job exactly once (without keys, a request committed just before the
// kill and sent again made a duplicate; bsub said "Job not submitted" for
// committed jobs).
func TestRetriedSubmissionsCreateOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and restarts mbatchd many times")
	}
	start, addr := childMbdStarter(t, writeCluster(t, 1, 1))
	rounds := max(*killRounds/3, 5)
	type pending struct {
		command, key string
	}
	var mu sync.Mutex
	answered := map[string]int64{} // command -> job ID
	left := make([]*pending, 4)    // a client's request not yet answered
	seq := 0
	killRoundsUnder(t, start, addr, rounds, 7, func(ctx context.Context, c *rpc.Client, w int) error {
		mu.Lock()
		if left[w] == nil {
			seq++
			left[w] = &pending{command: fmt.Sprintf("job %d", seq), key: fmt.Sprintf("key-%d", seq)}
		}
		p := left[w]
		mu.Unlock()
		var reply api.SubmitReply
		err := c.Call(ctx, api.MBatchdSubmit, &api.SubmitRequest{Key: p.key,
			Jobs: []*api.JobSpec{{Command: p.command, FromHost: "host1"}}}, &reply)
		if err != nil {
			return err // sent again, same key
		}
		res := reply.Results[0]
		if res.Status != nil && res.Status.Code != 0 {
			t.Errorf("%s refused: %v", p.command, res.Status.Message)
		}
		mu.Lock()
		answered[p.command] = res.JobID
		left[w] = nil
		mu.Unlock()
		return nil
	})
	count := map[string]int{}
	for _, j := range allJobs(t, addr) {
		count[j.Command]++
		if id, ok := answered[j.Command]; ok && id != j.JobID {
			t.Errorf("%s is job %d, answered as job %d", j.Command, j.JobID, id)
		}
	}
	dups := 0
	for command, n := range count {
		if n > 1 {
			dups++
			t.Errorf("%s created %d jobs", command, n)
		}
	}
	for command := range answered {
		if count[command] != 1 {
			t.Errorf("%s answered but not in mbatchd", command)
		}
	}
	t.Logf("%d rounds, %d requests answered, %d duplicates", rounds, len(answered), dups)
	if len(answered) < rounds {
		t.Fatalf("only %d requests answered in %d rounds: the test did not exercise mbatchd", len(answered), rounds)
	}
}

func childLogOut() io.Writer {
	if os.Getenv("BASALT_TEST_MBD_LOG") != "" {
		return os.Stderr
	}
	return io.Discard
}

// TestKillDuringStartup kills mbatchd at random moments of its start-up
// (opening the log, electing itself, recording MBD_START); every restart
// must come back as master.
func TestKillDuringStartup(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and restarts mbatchd many times")
	}
	dir := writeCluster(t, 1, 1)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	r := rand.New(rand.NewSource(7))
	for round := 0; round < 30; round++ {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), "BASALT_TEST_MBD="+dir+","+addr)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Often very early (opening the log, bootstrapping), sometimes later.
		time.Sleep(time.Duration(r.Intn(60)+r.Intn(2)*r.Intn(400)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "BASALT_TEST_MBD="+dir+","+addr)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() }()
	var last error
	if !testutil.Poll(20*time.Second, mbdAnswers(addr, &last)) {
		t.Fatalf("mbatchd did not come back after kills during start-up: %v", last)
	}
}

// mbdAnswers is a condition for testutil.Poll: the mbatchd at addr (another
// process) answers MBatchd.Info; *last keeps the latest failure.
func mbdAnswers(addr string, last *error) func() bool {
	return func() bool {
		c, err := rpc.Dial(context.Background(), addr, &api.ConnHello{User: "alice"})
		if err == nil {
			err = c.Call(context.Background(), api.MBatchdInfo, &api.InfoRequest{}, &api.InfoReply{})
			c.Close()
		}
		*last = err
		return err == nil
	}
}
