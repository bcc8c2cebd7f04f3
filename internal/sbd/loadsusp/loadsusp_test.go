package loadsusp

import (
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/resreq"
)

// load builds a host load vector: unset indices are NaN.
func load(vals map[string]float64) *resreq.Host {
	t := resreq.BuiltinTable()
	h := &resreq.Host{Num: make([]float64, t.Len())}
	for i := range h.Num {
		h.Num[i] = math.NaN()
	}
	for k, v := range vals {
		i, ok := t.Index(k)
		if !ok {
			panic(k)
		}
		h.Num[i] = v
	}
	return h
}

func th(t *testing.T, specs ...*api.Threshold) []Threshold {
	return Thresholds(resreq.BuiltinTable(), specs)
}

func cond(t *testing.T, s string) *resreq.Compiled {
	t.Helper()
	c, err := Cond(resreq.BuiltinTable(), s)
	if err != nil {
		t.Fatalf("Cond(%q): %v", s, err)
	}
	return c
}

func TestDecide(t *testing.T) {
	r1mStop := &api.Threshold{Index: "r1m", Sched: 0.7, Stop: 2.0, HasSched: true, HasStop: true}
	memStop := &api.Threshold{Index: "mem", Sched: 100, Stop: 10, HasSched: true, HasStop: true}
	pgStop := &api.Threshold{Index: "pg", Stop: 8, HasStop: true}
	busy := map[string]float64{"r1m": 3, "it": 0, "mem": 500, "pg": 0}
	calm := map[string]float64{"r1m": 0.2, "it": 0, "mem": 500, "pg": 0}
	run := func(key string, prio int, start int64) Job {
		return Job{Key: key, Priority: prio, Start: start, State: api.StateRun, WindowOpen: true}
	}
	susp := func(key string, prio int, start int64, reasons int32) Job {
		j := run(key, prio, start)
		j.State, j.Reasons = api.StateSSusp, reasons
		return j
	}
	with := func(j Job, f func(*Job)) Job { f(&j); return j }
	tests := []struct {
		name  string
		host  Host
		jobs  []Job
		allow bool
		want  []Action
	}{
		{"calm host: nothing", Host{Load: load(calm), Thresholds: th(t, r1mStop)},
			[]Job{run("a", 1, 1), run("b", 1, 2)}, true, nil},
		{"host threshold: lowest priority, latest job first, one only", Host{Load: load(busy), Thresholds: th(t, r1mStop)},
			[]Job{run("hi", 50, 1), run("lo-old", 10, 1), run("lo-new", 10, 2)}, true,
			[]Action{{Key: "lo-new", Op: Suspend, Reasons: SuspLoadReason, Subreason: resreq.IdxR1m}}},
		{"not twice in one interval", Host{Load: load(busy), Thresholds: th(t, r1mStop)},
			[]Job{run("a", 1, 1), run("b", 1, 2)}, false, nil},
		{"decreasing index: low memory", Host{Load: load(map[string]float64{"mem": 5, "it": 0}), Thresholds: th(t, memStop)},
			[]Job{run("a", 1, 1), run("b", 1, 2)}, true,
			[]Action{{Key: "b", Op: Suspend, Reasons: SuspLoadReason, Subreason: resreq.IdxMem}}},
		{"queue threshold only for its jobs", Host{Load: load(busy)},
			[]Job{run("loose", 1, 5), with(run("strict", 30, 1), func(j *Job) { j.Thresholds = th(t, r1mStop) })}, true,
			[]Action{{Key: "strict", Op: Suspend, Reasons: SuspLoadReason, Subreason: resreq.IdxR1m}}},
		{"STOP_COND replaces the queue's loadStop", Host{Load: load(busy)},
			[]Job{run("x", 1, 1), with(run("c", 1, 2), func(j *Job) {
				j.Thresholds = th(t, r1mStop)
				j.StopCond = cond(t, "select[mem < 100]")
			})}, true, nil},
		{"STOP_COND true", Host{Load: load(busy)},
			[]Job{run("x", 1, 1), with(run("c", 1, 2), func(j *Job) { j.StopCond = cond(t, "r1m > 2.5 && it < 5") })}, true,
			[]Action{{Key: "c", Op: Suspend, Reasons: SuspStopCond}}},
		{"only job on an idle host", Host{Load: load(map[string]float64{"r1m": 3, "it": 12}), Thresholds: th(t, r1mStop)},
			[]Job{run("only", 1, 1)}, true, nil},
		{"only job, interactive user present", Host{Load: load(busy), Thresholds: th(t, r1mStop)},
			[]Job{run("only", 1, 1)}, true, []Action{{Key: "only", Op: Suspend, Reasons: SuspLoadReason, Subreason: resreq.IdxR1m}}},
		{"pg ignored after PG_SUSP_IT idle", Host{Load: load(map[string]float64{"pg": 20, "it": 5}), Thresholds: th(t, pgStop), PGSuspIT: 3 * time.Minute},
			[]Job{run("a", 1, 1), run("b", 1, 2)}, true, nil},
		{"pg counts while not idle", Host{Load: load(map[string]float64{"pg": 20, "it": 1}), Thresholds: th(t, pgStop), PGSuspIT: 3 * time.Minute},
			[]Job{run("a", 1, 1), run("b", 1, 2)}, true, []Action{{Key: "b", Op: Suspend, Reasons: SuspLoadReason, Subreason: resreq.IdxPg}}},
		{"brun -f jobs are exempt", Host{Load: load(busy), Thresholds: th(t, r1mStop)},
			[]Job{run("a", 1, 1), with(run("forced", 1, 2), func(j *Job) { j.Forced = true })}, true,
			[]Action{{Key: "a", Op: Suspend, Reasons: SuspLoadReason, Subreason: resreq.IdxR1m}}},
		{"TERMINATE_WHEN LOAD", Host{Load: load(busy), Thresholds: th(t, r1mStop)},
			[]Job{run("a", 1, 1), with(run("b", 1, 2), func(j *Job) { j.TerminateOnLoad = true })}, true,
			[]Action{{Key: "b", Op: Terminate, TermReason: "TERM_LOAD"}}},
		{"no load information: no load decisions", Host{Thresholds: th(t, r1mStop)},
			[]Job{run("a", 1, 1), susp("s", 1, 0, SuspLoadReason)}, true, nil},
		{"window closes: every job of the queue, not rate limited", Host{Load: load(calm)},
			[]Job{with(run("w1", 1, 1), func(j *Job) { j.WindowOpen = false }), with(run("w2", 1, 2), func(j *Job) { j.WindowOpen = false }),
				with(run("f", 1, 3), func(j *Job) { j.WindowOpen, j.Forced = false, true })}, false,
			[]Action{{Key: "w1", Op: Suspend, Reasons: SuspQueueWindow}, {Key: "w2", Op: Suspend, Reasons: SuspQueueWindow}}},
		{"TERMINATE_WHEN WINDOW", Host{Load: load(calm)},
			[]Job{with(run("w", 1, 1), func(j *Job) { j.WindowOpen, j.TerminateOnWindow = false, true })}, true,
			[]Action{{Key: "w", Op: Terminate, TermReason: "TERM_WINDOW"}}},
		{"resume: highest priority first, one per turn", Host{Load: load(calm), Thresholds: th(t, r1mStop)},
			[]Job{susp("lo", 1, 1, SuspLoadReason), susp("hi-new", 9, 5, SuspLoadReason), susp("hi-old", 9, 2, SuspLoadReason)}, true,
			[]Action{{Key: "hi-old", Op: Resume}}},
		{"no resume above loadSched", Host{Load: load(map[string]float64{"r1m": 1.0}), Thresholds: th(t, r1mStop)},
			[]Job{susp("s", 1, 1, SuspLoadReason)}, true, nil},
		{"no resume of user-stopped or preempted jobs", Host{Load: load(calm)},
			[]Job{{Key: "u", State: api.StateUSusp, Reasons: SuspUserStop, WindowOpen: true}, susp("p", 1, 1, 0x80)}, true, nil},
		{"bresume: USUSP became SSUSP, resumed by load", Host{Load: load(calm)},
			[]Job{susp("r", 1, 1, SuspUserResume)}, true, []Action{{Key: "r", Op: Resume}}},
		{"window still closed: no resume", Host{Load: load(calm)},
			[]Job{with(susp("w", 1, 1, SuspQueueWindow), func(j *Job) { j.WindowOpen = false })}, true, nil},
		{"RESUME_COND replaces loadSched", Host{Load: load(map[string]float64{"r1m": 1.0, "mem": 500})},
			[]Job{with(susp("c", 1, 1, SuspStopCond), func(j *Job) {
				j.Thresholds = th(t, r1mStop)
				j.ResumeCond = cond(t, "mem > 100")
			})}, true, []Action{{Key: "c", Op: Resume}}},
		{"RESUME_COND false", Host{Load: load(map[string]float64{"mem": 50})},
			[]Job{with(susp("c", 1, 1, SuspStopCond), func(j *Job) { j.ResumeCond = cond(t, "mem > 100") })}, true, nil},
		{"suspend one and resume another in the same turn", Host{Load: load(map[string]float64{"r1m": 0.5, "mem": 5, "it": 0}), Thresholds: th(t, memStop)},
			[]Job{run("a", 1, 1), run("b", 1, 2), susp("c", 5, 0, SuspLoadReason)}, true,
			[]Action{{Key: "b", Op: Suspend, Reasons: SuspLoadReason, Subreason: resreq.IdxMem}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Decide(tt.host, tt.jobs, tt.allow)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Decide = %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestThresholdsAndCond(t *testing.T) {
	got := Thresholds(resreq.BuiltinTable(), []*api.Threshold{{Index: "r1m", Stop: 2, HasStop: true}, {Index: "nosuch", Stop: 1}, {Index: "swp", Sched: 30, HasSched: true}})
	want := []Threshold{{Index: resreq.IdxR1m, Stop: 2, HasStop: true}, {Index: resreq.IdxSwp, Sched: 30, HasSched: true}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Thresholds = %+v", got)
	}
	if c, err := Cond(resreq.BuiltinTable(), ""); c != nil || err != nil {
		t.Errorf("Cond(\"\") = %v, %v", c, err)
	}
	if _, err := Cond(resreq.BuiltinTable(), "select[nosuchindex > 1]"); err == nil {
		t.Error("Cond accepted an unknown index")
	}
}

func BenchmarkDecide(b *testing.B) {
	h := Host{Load: load(map[string]float64{"r1m": 3, "it": 0}), Thresholds: Thresholds(resreq.BuiltinTable(),
		[]*api.Threshold{{Index: "r1m", Sched: 0.7, Stop: 2, HasSched: true, HasStop: true}})}
	jobs := make([]Job, 64)
	for i := range jobs {
		jobs[i] = Job{Key: string(rune('a' + i%26)), Priority: i % 5, Start: int64(i), State: api.StateRun, WindowOpen: true}
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Decide(h, jobs, true)
	}
}
