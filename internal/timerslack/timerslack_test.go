package timerslack

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

func TestSetThread(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cur, err := Get()
	if err != nil || cur <= 0 {
		t.Fatalf("Get = %d, %v", cur, err)
	}
	defer SetThread(cur)
	if err := SetThread(123_456); err != nil {
		t.Fatal(err)
	}
	if got, err := Get(); err != nil || got != 123_456 {
		t.Fatalf("after SetThread(123456): Get = %d, %v", got, err)
	}
	for _, bad := range []int{0, -1} {
		if err := SetThread(bad); err == nil {
			t.Errorf("SetThread(%d) accepted", bad)
		}
	}
	if got, _ := Get(); got != 123_456 {
		t.Errorf("a refused SetThread changed the slack to %d", got)
	}
}

func TestJob(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	own, err := Get()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		env  string
		want int
	}{
		{"", own},
		{"200000", 200_000},
		{"1", 1},
		{"0", own},
		{"-5", own},
		{"50us", own},
		{" 200000", own},
		{strconv.Itoa(maxSlack), maxSlack},
		{strconv.Itoa(maxSlack + 1), own},
		{"99999999999999999999999", own},
	} {
		got := Job(func(k string) string {
			if k == EnvJob {
				return tc.env
			}
			return ""
		})
		if got != tc.want {
			t.Errorf("Job with %s=%q = %d, want %d", EnvJob, tc.env, got, tc.want)
		}
	}
}

// TestRaise runs a copy of the test binary that calls Raise: it must come
// back, executed once again, with every thread at Daemon and the slack it
// started with in EnvJob.
func TestRaise(t *testing.T) {
	for _, tc := range []struct {
		name, env, wantJob string
	}{
		{"fresh", "", ""},           // EnvJob: the slack the child started with
		{"inherited", "777", "777"}, // an ancestor's EnvJob is kept
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestRaiseHelper$", "-test.count=1")
			cmd.Env = append(os.Environ(), "TIMERSLACK_HELPER=1")
			if tc.env != "" {
				cmd.Env = append(cmd.Env, EnvJob+"="+tc.env)
			}
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("helper: %v\n%s", err, out)
			}
			var threads []int
			var job string
			var execs int
			var name string
			for _, line := range strings.Split(string(out), "\n") {
				if v, ok := strings.CutPrefix(line, "thread "); ok {
					n, _ := strconv.Atoi(v)
					threads = append(threads, n)
				} else if v, ok := strings.CutPrefix(line, "job "); ok {
					job = v
				} else if v, ok := strings.CutPrefix(line, "name "); ok {
					name = v
				} else if v, ok := strings.CutPrefix(line, "starts "); ok {
					execs, _ = strconv.Atoi(v)
				}
			}
			if len(threads) < 2 {
				t.Fatalf("helper listed %d threads:\n%s", len(threads), out)
			}
			for _, n := range threads {
				if n != Daemon {
					t.Errorf("a thread of the raised process has slack %d, want %d", n, Daemon)
				}
			}
			want := tc.wantJob
			if want == "" {
				// The child inherited the slack of the thread that forked
				// it here; every thread of this process has the default.
				n, err := Get()
				if err != nil {
					t.Fatal(err)
				}
				want = strconv.Itoa(n)
			}
			if job != want {
				t.Errorf("%s in the raised process = %q, want %q", EnvJob, job, want)
			}
			if execs != 2 {
				t.Errorf("the helper started %d times, want 2 (one execution again)", execs)
			}
			wantName := filepath.Base(os.Args[0])
			if len(wantName) > 15 {
				wantName = wantName[:15]
			}
			if name != wantName {
				t.Errorf("the raised process is named %q, want %q", name, wantName)
			}
		})
	}
}

func TestRaiseHelper(t *testing.T) {
	if os.Getenv("TIMERSLACK_HELPER") != "1" {
		t.Skip("run by TestRaise")
	}
	// Count the starts through the environment of the execution again.
	n, _ := strconv.Atoi(os.Getenv("TIMERSLACK_STARTS"))
	os.Setenv("TIMERSLACK_STARTS", strconv.Itoa(n+1))
	if n > 2 {
		fmt.Println("looping")
		os.Exit(3)
	}
	if err := Raise(os.Args, os.Environ()); err != nil {
		fmt.Println("raise:", err)
		os.Exit(2)
	}
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		fmt.Println(err)
		os.Exit(2)
	}
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/timerslack_ns") // /proc/<tid>: the thread
		if err != nil {
			continue // a thread that ended
		}
		fmt.Println("thread", strings.TrimSpace(string(b)))
	}
	fmt.Println("job", os.Getenv(EnvJob))
	comm, _ := os.ReadFile("/proc/self/comm")
	fmt.Println("name", strings.TrimSpace(string(comm)))
	fmt.Println("starts", n+1)
	os.Exit(0)
}
