package sim

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"
	"time"
)

func testConfig(t *testing.T, hosts, slots int, policy string) Options {
	t.Helper()
	env, err := WriteDefault(t.TempDir(), hosts, slots, policy)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(context.Background(), env, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	return Options{Config: cfg, Slots: slots}
}

func mustRead(t *testing.T, text string) *Workload {
	t.Helper()
	w, err := ReadSWF(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range w.Problems {
		t.Fatalf("problem: %v", p)
	}
	return w
}

// The classic case: a wide job waits for a running one; a short narrow job
// submitted after it fits in the free slots and ends before the wide job
// can start.
const backfillTrace = `; MaxNodes: 2
1 0 -1 100 2 -1 -1 2 100 -1 1 1 1 -1 -1 -1 -1 -1
2 1 -1 50 4 -1 -1 4 50 -1 1 2 2 -1 -1 -1 -1 -1
3 2 -1 20 2 -1 -1 2 30 -1 1 3 3 -1 -1 -1 -1 -1
4 3 -1 500 2 -1 -1 2 600 -1 1 3 3 -1 -1 -1 -1 -1
`

func starts(res *Result) string {
	var b strings.Builder
	for _, r := range res.Records {
		b.WriteString(" ")
		b.WriteString(itoa(r.Start))
	}
	return strings.TrimSpace(b.String())
}

func itoa(x int64) string { return strconv.FormatInt(x, 10) }

func TestPolicies(t *testing.T) {
	for _, tc := range []struct{ policy, want string }{
		// No reservation: job 3 and then 4 overtake job 2, which waits for
		// job 4's end.
		{"firstfit", "0 522 2 22"},
		// Job 2 reserves the slots job 1 frees: jobs 3 and 4 wait.
		{"fcfs", "0 100 150 150"},
		// Job 3 ends (limit 30) before job 1 frees its slots: backfilled;
		// job 4's limit (600) would delay job 2.
		{"backfill", "0 100 2 150"},
	} {
		t.Run(tc.policy, func(t *testing.T) {
			res, err := Run(context.Background(), mustRead(t, backfillTrace), testConfig(t, 2, 2, tc.policy))
			if err != nil {
				t.Fatal(err)
			}
			if got := starts(res); got != tc.want {
				t.Errorf("starts %q, want %q", got, tc.want)
			}
			for _, p := range res.Problems {
				t.Errorf("problem: %v", p)
			}
		})
	}
}

func TestDeterministic(t *testing.T) {
	var outs []string
	for range 2 {
		res, err := Run(context.Background(), mustRead(t, backfillTrace), testConfig(t, 2, 2, "fairshare"))
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		WriteCSV(&b, res)
		Summarize(res, "user").JSON(&b)
		outs = append(outs, b.String())
	}
	if outs[0] != outs[1] {
		t.Errorf("two runs differ:\n%s\n%s", outs[0], outs[1])
	}
}

// A job of the preemptive queue priority suspends a job of normal; the
// suspended job resumes when it ends and runs its remaining time.
func TestPreemption(t *testing.T) {
	w := mustRead(t, `1 0 -1 100 2 -1 -1 2 -1 -1 1 1 1 -1 1 -1 -1 -1
2 5 -1 10 2 -1 -1 2 -1 -1 1 2 2 -1 2 -1 -1 -1
`)
	opts := testConfig(t, 1, 2, "firstfit")
	opts.Queue = func(j *Job) string { return map[int]string{1: "normal", 2: "priority"}[j.Queue] }
	res, err := Run(context.Background(), w, opts)
	if err != nil {
		t.Fatal(err)
	}
	a, b := res.Records[0], res.Records[1]
	if a.Start != 0 || a.End != 110 || a.Suspended != 10 || a.Run() != 100 || a.Killed {
		t.Errorf("preempted job: %+v", *a)
	}
	if b.Start != 5 || b.End != 15 {
		t.Errorf("preempting job: %+v", *b)
	}
}

// --interval: passes at least 30 s apart; a job arriving between waits
// for the next.
func TestInterval(t *testing.T) {
	w := mustRead(t, `1 0 -1 5 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1
2 10 -1 5 1 -1 -1 1 -1 -1 1 2 2 -1 1 -1 -1 -1
`)
	opts := testConfig(t, 1, 2, "firstfit")
	opts.Interval = 30 * time.Second
	res, err := Run(context.Background(), w, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := starts(res); got != "0 30" {
		t.Errorf("starts %q, want \"0 30\"", got)
	}
}
