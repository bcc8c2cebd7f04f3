package sim

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Tau is the bounded slowdown's threshold (s): runs shorter count as Tau.
const Tau = 10

// BoundedSlowdown is max(1, (wait+run)/max(run, Tau)).
func BoundedSlowdown(wait, run int64) float64 {
	return math.Max(1, float64(wait+run)/float64(max(run, Tau)))
}

// Summary is what a run amounts to (started jobs only).
type Summary struct {
	Jobs      int     `json:"jobs"`
	NotRun    int     `json:"not_run"`
	Killed    int     `json:"killed"`
	Backfill  int     `json:"backfilled"`
	Slots     int     `json:"slots"`
	Makespan  int64   `json:"makespan_s"`
	Util      float64 `json:"utilization"`
	MeanWait  float64 `json:"mean_wait_s"`
	MedWait   float64 `json:"median_wait_s"`
	MeanBSld  float64 `json:"mean_bounded_slowdown"`
	MedBSld   float64 `json:"median_bounded_slowdown"`
	MaxWait   int64   `json:"max_wait_s"`
	Passes    int     `json:"passes,omitempty"`
	GroupName string  `json:"-"`
	// Groups are the summaries per queue or per user, when asked for.
	Groups []*Summary `json:"groups,omitempty"`
	Name   string     `json:"name,omitempty"`
}

// Summarize sums up recs on a cluster of slots; by ("queue", "user" or "")
// adds a summary per queue or per user, in name order.
func Summarize(res *Result, by string) *Summary {
	s := summarize(res.Records, res.Slots)
	s.Passes = res.Passes
	if by == "" {
		return s
	}
	groups := map[string][]*Record{}
	for _, r := range res.Records {
		k := r.Queue
		if by == "user" {
			k = r.Job.User
		}
		groups[k] = append(groups[k], r)
	}
	names := make([]string, 0, len(groups))
	for k := range groups {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool { return lessName(names[i], names[j]) })
	for _, k := range names {
		g := summarize(groups[k], res.Slots)
		g.Name = k
		s.Groups = append(s.Groups, g)
	}
	return s
}

// lessName orders "u2" before "u10".
func lessName(a, b string) bool {
	ta, na := splitNum(a)
	tb, nb := splitNum(b)
	if ta != tb || na < 0 || nb < 0 {
		return a < b
	}
	return na < nb
}

func splitNum(s string) (string, int) {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	n, err := strconv.Atoi(s[i:])
	if err != nil {
		return s, -1
	}
	return s[:i], n
}

func summarize(recs []*Record, slots int) *Summary {
	s := &Summary{Slots: slots}
	var waits []int64
	var bs []float64
	first, last := int64(math.MaxInt64), int64(math.MinInt64)
	var area float64
	for _, r := range recs {
		if r.Start < 0 {
			s.NotRun++
			continue
		}
		s.Jobs++
		if r.Killed {
			s.Killed++
		}
		if r.Backfill {
			s.Backfill++
		}
		w, run := r.Wait(), r.Run()
		waits = append(waits, w)
		bs = append(bs, BoundedSlowdown(w, run))
		first = min(first, r.Job.Submit)
		last = max(last, r.End)
		area += float64(run) * float64(r.Slots)
		s.MaxWait = max(s.MaxWait, w)
	}
	if s.Jobs == 0 {
		return s
	}
	s.Makespan = last - first
	if s.Makespan > 0 && slots > 0 {
		s.Util = area / (float64(slots) * float64(s.Makespan))
	}
	sort.Slice(waits, func(i, j int) bool { return waits[i] < waits[j] })
	sort.Float64s(bs)
	var sw, sb float64
	for i := range waits {
		sw += float64(waits[i])
		sb += bs[i]
	}
	n := float64(s.Jobs)
	s.MeanWait, s.MeanBSld = sw/n, sb/n
	m := len(waits) / 2
	if len(waits)%2 == 1 {
		s.MedWait, s.MedBSld = float64(waits[m]), bs[m]
	} else {
		s.MedWait, s.MedBSld = float64(waits[m-1]+waits[m])/2, (bs[m-1]+bs[m])/2
	}
	return s
}

// JSON writes the summary as one JSON object (numbers rounded so that the
// output does not depend on summation noise).
func (s *Summary) JSON(w io.Writer) error {
	c := s.rounded()
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

func (s *Summary) rounded() *Summary {
	c := *s
	r := func(x float64, d float64) float64 { return math.Round(x*d) / d }
	c.Util = r(c.Util, 1e6)
	c.MeanWait, c.MedWait = r(c.MeanWait, 1e3), r(c.MedWait, 1e3)
	c.MeanBSld, c.MedBSld = r(c.MeanBSld, 1e4), r(c.MedBSld, 1e4)
	c.Groups = nil
	for _, g := range s.Groups {
		c.Groups = append(c.Groups, g.rounded())
	}
	return &c
}

// Text writes the summary for a person.
func (s *Summary) Text(w io.Writer) {
	fmt.Fprintf(w, "jobs                     %d", s.Jobs)
	if s.NotRun > 0 {
		fmt.Fprintf(w, " (%d never started)", s.NotRun)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "killed at run limit      %d\n", s.Killed)
	fmt.Fprintf(w, "backfilled               %d\n", s.Backfill)
	fmt.Fprintf(w, "slots                    %d\n", s.Slots)
	fmt.Fprintf(w, "makespan                 %d s (%s)\n", s.Makespan, days(s.Makespan))
	fmt.Fprintf(w, "utilization              %.4f\n", s.Util)
	fmt.Fprintf(w, "wait mean / median       %.1f / %.1f s (max %d)\n", s.MeanWait, s.MedWait, s.MaxWait)
	fmt.Fprintf(w, "bounded slowdown (10 s)  %.3f / %.3f (mean / median)\n", s.MeanBSld, s.MedBSld)
	if s.Passes > 0 {
		fmt.Fprintf(w, "scheduling passes        %d\n", s.Passes)
	}
	if len(s.Groups) > 0 {
		fmt.Fprintf(w, "\n%-16s %8s %10s %10s %10s %10s\n", "NAME", "JOBS", "UTIL", "MEAN_WAIT", "MED_WAIT", "MEAN_BSLD")
		for _, g := range s.Groups {
			fmt.Fprintf(w, "%-16s %8d %10.4f %10.1f %10.1f %10.3f\n", g.Name, g.Jobs, g.Util, g.MeanWait, g.MedWait, g.MeanBSld)
		}
	}
}

func days(sec int64) string {
	d := sec / 86400
	sec %= 86400
	return fmt.Sprintf("%dd %02d:%02d:%02d", d, sec/3600, sec/60%60, sec%60)
}

// WriteSWF writes the records as an SWF trace: the workload's header, then
// each job's fields with the simulated wait (field 3) and run time (field
// 4); a job killed at its run limit has status 0; a job never started
// keeps -1 in both.
func WriteSWF(w io.Writer, header []string, res *Result) error {
	bw := bufio.NewWriter(w)
	for _, h := range header {
		fmt.Fprintf(bw, "; %s\n", h)
	}
	fmt.Fprintf(bw, "; Simulated: basalt sim, %d hosts, %d slots; fields 3 and 4 are the simulated wait and run time\n", res.Hosts, res.Slots)
	for _, r := range res.Records {
		var f [numFields]string
		if raw := strings.Fields(r.Job.Raw); len(raw) == numFields {
			copy(f[:], raw)
		} else {
			f = syntheticFields(r.Job)
		}
		if r.Start >= 0 {
			f[fWait-1] = strconv.FormatInt(r.Wait(), 10)
			f[fRun-1] = strconv.FormatInt(r.Run(), 10)
			f[fAlloc-1] = strconv.Itoa(r.Slots)
			if r.Killed {
				f[fStatus-1] = "0"
			}
		} else {
			f[fWait-1], f[fRun-1] = "-1", "-1"
		}
		bw.WriteString(strings.Join(f[:], " "))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

func syntheticFields(j *Job) [numFields]string {
	var f [numFields]string
	for i := range f {
		f[i] = "-1"
	}
	f[fJob-1] = strconv.FormatInt(j.ID, 10)
	f[fSubmit-1] = strconv.FormatInt(j.Submit, 10)
	f[fProcs-1] = strconv.Itoa(j.Procs)
	f[fReqTime-1] = strconv.FormatInt(j.ReqTime, 10)
	f[fStatus-1] = strconv.Itoa(j.Status)
	return f
}

// WriteCSV writes one line per job: its trace number and line, user,
// queue, slots, submit, start and end (seconds from the trace's start;
// -1 never started), wait, run, bounded slowdown, how it ended.
func WriteCSV(w io.Writer, res *Result) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("job,line,user,queue,slots,submit,start,end,wait,run,bounded_slowdown,backfill,end_reason\n")
	for _, r := range res.Records {
		reason := "done"
		switch {
		case r.Start < 0:
			reason = "never_started"
		case r.Killed:
			reason = r.TermReason
		}
		if r.Start < 0 {
			fmt.Fprintf(bw, "%d,%d,%s,%s,%d,%d,-1,-1,-1,-1,,%t,%s\n", r.Job.ID, r.Job.Line, r.Job.User, r.Queue, r.Slots, r.Job.Submit, r.Backfill, reason)
			continue
		}
		fmt.Fprintf(bw, "%d,%d,%s,%s,%d,%d,%d,%d,%d,%d,%.4f,%t,%s\n", r.Job.ID, r.Job.Line, r.Job.User, r.Queue, r.Slots, r.Job.Submit,
			r.Start, r.End, r.Wait(), r.Run(), BoundedSlowdown(r.Wait(), r.Run()), r.Backfill, reason)
	}
	return bw.Flush()
}
