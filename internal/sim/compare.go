package sim

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
)

// Comparison is one workload replayed under two configurations.
type Comparison struct {
	A, B *Summary
	// Moved are the jobs whose start moved most (B's start minus A's),
	// largest move first, ties by trace order.
	Moved []Move
}

// Move is one job's start under A and B (seconds from the trace's start,
// -1 never started).
type Move struct {
	Job    int64  `json:"job"`
	Line   int    `json:"line"`
	User   string `json:"user"`
	Slots  int    `json:"slots"`
	WaitA  int64  `json:"wait_a_s"`
	WaitB  int64  `json:"wait_b_s"`
	Change int64  `json:"change_s"`
}

// Compare puts two runs of one workload side by side; top is how many
// moved jobs to keep.
func Compare(a, b *Result, by string, top int) *Comparison {
	c := &Comparison{A: Summarize(a, by), B: Summarize(b, by)}
	byLine := make(map[int]*Record, len(b.Records))
	for _, r := range b.Records {
		byLine[r.Job.Line] = r
	}
	for _, ra := range a.Records {
		rb := byLine[ra.Job.Line]
		if rb == nil || (ra.Start < 0 && rb.Start < 0) {
			continue
		}
		m := Move{Job: ra.Job.ID, Line: ra.Job.Line, User: ra.Job.User, Slots: ra.Slots, WaitA: -1, WaitB: -1}
		if ra.Start >= 0 {
			m.WaitA = ra.Wait()
		}
		if rb.Start >= 0 {
			m.WaitB = rb.Wait()
		}
		m.Change = m.WaitB - m.WaitA
		if m.Change == 0 {
			continue
		}
		c.Moved = append(c.Moved, m)
	}
	sort.SliceStable(c.Moved, func(i, j int) bool { return abs(c.Moved[i].Change) > abs(c.Moved[j].Change) })
	if len(c.Moved) > top {
		c.Moved = c.Moved[:top]
	}
	return c
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// JSON writes {"a": summary, "b": summary, "moved": [...]}.
func (c *Comparison) JSON(w io.Writer) error {
	b, err := json.Marshal(struct {
		A     *Summary `json:"a"`
		B     *Summary `json:"b"`
		Moved []Move   `json:"moved"`
	}{c.A.rounded(), c.B.rounded(), c.Moved})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// Text writes the two summaries side by side with their differences, then
// the jobs that moved most.
func (c *Comparison) Text(w io.Writer, nameA, nameB string) {
	fmt.Fprintf(w, "A: %s\nB: %s\n\n", nameA, nameB)
	fmt.Fprintf(w, "%-26s %14s %14s %14s\n", "", "A", "B", "B-A")
	row := func(name string, a, b float64, f string) {
		fmt.Fprintf(w, "%-26s %14s %14s %14s\n", name, fmt.Sprintf(f, a), fmt.Sprintf(f, b), fmt.Sprintf("%+"+f[1:], b-a))
	}
	row("jobs", float64(c.A.Jobs), float64(c.B.Jobs), "%.0f")
	row("never started", float64(c.A.NotRun), float64(c.B.NotRun), "%.0f")
	row("killed", float64(c.A.Killed), float64(c.B.Killed), "%.0f")
	row("backfilled", float64(c.A.Backfill), float64(c.B.Backfill), "%.0f")
	row("makespan (s)", float64(c.A.Makespan), float64(c.B.Makespan), "%.0f")
	row("utilization", c.A.Util, c.B.Util, "%.4f")
	row("mean wait (s)", c.A.MeanWait, c.B.MeanWait, "%.1f")
	row("median wait (s)", c.A.MedWait, c.B.MedWait, "%.1f")
	row("max wait (s)", float64(c.A.MaxWait), float64(c.B.MaxWait), "%.0f")
	row("mean bounded slowdown", c.A.MeanBSld, c.B.MeanBSld, "%.3f")
	row("median bounded slowdown", c.A.MedBSld, c.B.MedBSld, "%.3f")
	if len(c.A.Groups) > 0 {
		fmt.Fprintf(w, "\n%-16s %12s %12s %12s %12s\n", "NAME", "WAIT_A", "WAIT_B", "BSLD_A", "BSLD_B")
		gb := map[string]*Summary{}
		for _, g := range c.B.Groups {
			gb[g.Name] = g
		}
		for _, g := range c.A.Groups {
			b := gb[g.Name]
			if b == nil {
				b = &Summary{}
			}
			fmt.Fprintf(w, "%-16s %12.1f %12.1f %12.3f %12.3f\n", g.Name, g.MeanWait, b.MeanWait, g.MeanBSld, b.MeanBSld)
		}
	}
	if len(c.Moved) > 0 {
		fmt.Fprintf(w, "\nJobs that moved most (wait in s; -1: never started):\n%8s %8s %-8s %6s %10s %10s %10s\n", "JOB", "LINE", "USER", "SLOTS", "WAIT_A", "WAIT_B", "CHANGE")
		for _, m := range c.Moved {
			fmt.Fprintf(w, "%8d %8d %-8s %6d %10d %10d %+10d\n", m.Job, m.Line, m.User, m.Slots, m.WaitA, m.WaitB, m.Change)
		}
	}
}
