package sched

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/job"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected output of scenario files")

// TestScenarios runs testdata/scenarios/*.txt: each a list of commands run
// against the pure scheduler with a fake clock, each followed by "----" and
// the expected output (up to a blank line); -rewrite regenerates them.
//
//	cluster hosts=N [mxj=M] [ncpus=C] [params=K=V;K=V] [hostcols=r1m,pg]
//	<files: "== lsb.queues", "== lsb.users", "== lsb.resources",
//	 "== lsb.hosts" (Host rows), "== lsb.hosts.tail", "== lsf.shared",
//	 "== resourcemap", "== groups" (HostGroup rows)>
//	submit user=U queue=Q [n=N] [count=K] [R=...] [m=...] [x] [W=min] [sp=P] [b=min] [P=project] [hold]
//	run                     one pass: prints and applies the plan
//	finish ID... [cpu=S]    jobs end (DONE) with CPU time
//	tick DURATION           advance the clock
//	load HOST name=v ...    set load/resource values
//	status HOST ok|closed_Adm|unavail
//	force ID HOST [nosusp]  brun
//	jobs | pending ID... | queues | shares QUEUE | reserved
//	predicted ID...         reservations' predicted start times
func TestScenarios(t *testing.T) {
	files, _ := filepath.Glob("testdata/scenarios/*.txt")
	if len(files) == 0 {
		t.Fatal("no scenarios")
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) { runScenario(t, f) })
	}
}

type directive struct {
	pre    []string // comments before the directive
	cmd    string
	input  []string
	output string
	line   int
}

func parseScenario(t *testing.T, path string) []directive {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	var ds []directive
	var pre []string
	for i := 0; i < len(lines); {
		l := lines[i]
		if strings.TrimSpace(l) == "" {
			i++
			continue
		}
		if strings.HasPrefix(l, "#") {
			pre = append(pre, l)
			i++
			continue
		}
		d := directive{cmd: l, line: i + 1, pre: pre}
		pre = nil
		i++
		for i < len(lines) && lines[i] != "----" {
			d.input = append(d.input, lines[i])
			i++
		}
		if i >= len(lines) {
			t.Fatalf("%s:%d: %q has no ----", path, d.line, l)
		}
		i++
		var out []string
		for i < len(lines) && lines[i] != "" {
			out = append(out, lines[i])
			i++
		}
		d.output = strings.Join(out, "\n")
		ds = append(ds, d)
	}
	return ds
}

func args(s string) (string, map[string]string, []string) {
	var fields []string
	var cur strings.Builder
	quote := false
	for _, c := range s {
		switch {
		case c == '"':
			quote = !quote
		case c == ' ' && !quote:
			if cur.Len() > 0 {
				fields = append(fields, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(c)
		}
	}
	if cur.Len() > 0 {
		fields = append(fields, cur.String())
	}
	kv := map[string]string{}
	var pos []string
	for _, f := range fields[1:] {
		if k, v, ok := strings.Cut(f, "="); ok {
			kv[k] = v
		} else {
			pos = append(pos, f)
		}
	}
	return fields[0], kv, pos
}

type scenario struct {
	t     *testing.T
	h     *harness
	usage map[state.Key]*api.Usage
	last  *Plan
}

func runScenario(t *testing.T, path string) {
	ds := parseScenario(t, path)
	sc := &scenario{t: t, usage: map[state.Key]*api.Usage{}, last: &Plan{}}
	var b strings.Builder
	changed := false
	for i := range ds {
		d := &ds[i]
		got := sc.do(d)
		if got != d.output {
			if *rewrite {
				d.output = got
				changed = true
			} else {
				t.Errorf("%s:%d: %s\n got:\n%s\nwant:\n%s", path, d.line, d.cmd, got, d.output)
			}
		}
	}
	if *rewrite && changed {
		for i, d := range ds {
			for _, l := range d.pre {
				b.WriteString(l + "\n")
			}
			if i == 0 && len(d.pre) > 0 {
				b.WriteString("\n")
			}
			b.WriteString(d.cmd + "\n")
			for _, l := range d.input {
				b.WriteString(l + "\n")
			}
			b.WriteString("----\n")
			if d.output != "" {
				b.WriteString(d.output + "\n")
			}
			b.WriteString("\n")
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func (sc *scenario) do(d *directive) string {
	t := sc.t
	cmd, kv, pos := args(d.cmd)
	if cmd != "cluster" && sc.h == nil {
		t.Fatalf("line %d: cluster first", d.line)
	}
	switch cmd {
	case "cluster":
		cs := clusterSpec{}
		cs.hosts, _ = strconv.Atoi(kv["hosts"])
		cs.mxj, _ = strconv.Atoi(kv["mxj"])
		cs.ncpus, _ = strconv.Atoi(kv["ncpus"])
		if v := kv["params"]; v != "" {
			cs.params = strings.ReplaceAll(v, ";", "\n") + "\n"
		}
		if v := kv["hostcols"]; v != "" {
			cs.hostCols = strings.Split(v, ",")
		}
		files := map[string]*strings.Builder{}
		var curf *strings.Builder
		for _, l := range d.input {
			if strings.HasPrefix(l, "== ") {
				curf = &strings.Builder{}
				files[strings.TrimPrefix(l, "== ")] = curf
				continue
			}
			if curf != nil {
				curf.WriteString(l + "\n")
			}
		}
		get := func(n string) string {
			if f := files[n]; f != nil {
				return f.String()
			}
			return ""
		}
		cs.queues, cs.users, cs.resources, cs.lhosts = get("lsb.queues"), get("lsb.users"), get("lsb.resources"), get("lsb.hosts")
		cs.hostsTail, cs.shared, cs.resmap, cs.groups = get("lsb.hosts.tail"), get("lsf.shared"), get("resourcemap"), get("groups")
		sc.h = newHarness(t, cs)
		if v := kv["gpus"]; v != "" {
			setGPUs(sc.h, v)
		}
		var out []string
		for _, w := range sc.h.cfg.Warnings {
			out = append(out, "warning: "+w.Msg)
		}
		return strings.Join(out, "\n")
	case "submit":
		count := 1
		if v := kv["count"]; v != "" {
			count, _ = strconv.Atoi(v)
		}
		var ids []string
		for i := 0; i < count; i++ {
			id := sc.h.submit(kv["user"], kv["queue"], func(n *api.EvJobNew) {
				if v := kv["n"]; v != "" {
					x, _ := strconv.Atoi(v)
					n.NumProcs, n.Spec.MinProcs = int32(x), int32(x)
				}
				if v := kv["R"]; v != "" {
					n.Spec.ResReq = []string{v}
				}
				if v := kv["m"]; v != "" {
					n.Spec.AskedHosts = strings.Fields(v)
				}
				if v := kv["W"]; v != "" {
					x, _ := strconv.Atoi(v)
					n.Spec.Limits = &api.Limits{Run: int64(x) * 60}
				}
				if v := kv["sp"]; v != "" {
					x, _ := strconv.Atoi(v)
					n.UserPriority = int32(x)
				}
				if v := kv["b"]; v != "" {
					x, _ := strconv.Atoi(v)
					n.Spec.BeginTime = sc.h.now.Add(time.Duration(x) * time.Minute).Unix()
				}
				if v := kv["P"]; v != "" {
					n.Project = v
				}
				if v := kv["gpu"]; v != "" {
					n.Spec.GPUReq = v
				}
				for _, f := range pos {
					switch f {
					case "x":
						n.Spec.Exclusive = true
					case "hold":
						n.Hold = true
					}
				}
			})
			ids = append(ids, fmt.Sprint(id))
		}
		return "submitted " + strings.Join(ids, " ")
	case "run":
		return sc.run()
	case "limits":
		// limits: what the last pass published for blimits, a row a line:
		// name users/queues/hosts/projects then each resource used/limit.
		var rows []string
		for _, l := range sc.h.s.Published().Limits() {
			r := fmt.Sprintf("%s %s/%s/%s/%s", l.Name, l.Users, l.Queues, l.Hosts, l.Projects)
			for _, x := range []struct {
				n         string
				used, max float64
				has       bool
			}{{"slots", l.Slots, l.SlotsMax, l.HasSlots}, {"jobs", l.Jobs, l.JobsMax, l.HasJobs},
				{"mem", l.Mem, l.MemMax, l.HasMem}, {"tmp", l.Tmp, l.TmpMax, l.HasTmp}, {"swp", l.Swp, l.SwpMax, l.HasSwp}} {
				if x.has {
					r += fmt.Sprintf(" %s=%g/%g", x.n, x.used, x.max)
				}
			}
			for _, a := range l.Resources {
				r += fmt.Sprintf(" %s=%g/%g", a.Name, a.Used, a.Max)
			}
			if !l.InUse {
				r += " (unused)"
			}
			rows = append(rows, r)
		}
		return strings.Join(rows, "\n")
	case "finish":
		cpu := 0.0
		if v := kv["cpu"]; v != "" {
			cpu, _ = strconv.ParseFloat(v, 64)
		}
		for _, a := range pos {
			k := parseKey(a)
			sc.h.apply(&api.Event{JobStatus: &api.EvJobStatus{JobID: k.ID, Index: k.Index, State: api.StateDone, Usage: &api.Usage{CPUTime: cpu}}})
			sc.h.st.View(func(v *state.View) {
				j := v.Job(k)
				r := FinishedRun{Key: k, User: j.User, Queue: j.Queue, Start: unix(j.StartTime), End: sc.h.now, CPU: cpu, RunCount: j.RunCount}
				if len(j.ExecHosts) > 0 {
					r.Host = j.ExecHosts[0].Host
				}
				sc.h.s.Feed().Finished(r)
			})
		}
		return ""
	case "usage":
		// usage ID cpu=S: a running job's reported CPU time.
		cpu, _ := strconv.ParseFloat(kv["cpu"], 64)
		sc.usage[parseKey(pos[0])] = &api.Usage{CPUTime: cpu}
		return ""
	case "absorb":
		// absorb: what a following replica does now and then (Absorb);
		// prints the records left fed and the runs remembered.
		sc.h.s.Absorb(sc.h.cfg, sc.h.st.Latest())
		return fmt.Sprintf("fed %d, recorded %d", len(sc.h.s.feed), len(sc.h.s.mem.recorded))
	case "tick":
		dur, err := time.ParseDuration(pos[0])
		if err != nil {
			t.Fatal(err)
		}
		sc.h.now = sc.h.now.Add(dur)
		return "now " + sc.h.now.Format("Mon 15:04:05")
	case "load":
		host := sc.h.host(pos[0])
		tab := sc.h.cfg.ResourceTable()
		for k, v := range kv {
			i, ok := tab.Index(k)
			if !ok {
				t.Fatalf("line %d: no resource %s", d.line, k)
			}
			f, _ := strconv.ParseFloat(v, 64)
			host.Values.Num[i] = f
		}
		return ""
	case "status":
		sc.h.host(pos[0]).Status = pos[1]
		return ""
	case "force":
		k := parseKey(pos[0])
		sc.h.apply(&api.Event{JobStart: &api.EvJobStart{JobID: k.ID, Index: k.Index, ExecHosts: []*api.ExecHost{{Host: pos[1], Slots: 1}},
			Forced: true, NoSuspend: len(pos) > 2 && pos[2] == "nosusp"}})
		return ""
	case "jobs":
		return sc.jobs()
	case "pending":
		var out []string
		for _, a := range pos {
			out = append(out, a+": "+sc.reasonsText(parseKey(a)))
		}
		return strings.Join(out, "\n")
	case "queues":
		return sc.queues()
	case "shares":
		var out []string
		for _, a := range sc.last.QueueShares[pos[0]] {
			out = append(out, fmt.Sprintf("%-8s %3d %8.3f %3d %8.1f %6d", a.Name, a.Shares, a.Priority, a.Started, a.CPUTime, a.RunTime))
		}
		for _, a := range sc.last.PartitionShares[pos[0]] {
			out = append(out, fmt.Sprintf("%-8s %3d %8.3f %3d %8.1f %6d", a.Name, a.Shares, a.Priority, a.Started, a.CPUTime, a.RunTime))
		}
		return strings.Join(out, "\n")
	case "predicted":
		var out []string
		for _, a := range pos {
			r := sc.h.s.mem.rsv[parseKey(a)]
			switch {
			case r == nil:
				out = append(out, a+": no reservation")
			case r.predicted.IsZero():
				out = append(out, a+": unpredictable")
			default:
				out = append(out, a+": "+r.predicted.Format("Mon 15:04:05"))
			}
		}
		return strings.Join(out, "\n")
	case "reserved":
		var hs []string
		for h := range sc.last.Reserved {
			hs = append(hs, h)
		}
		sort.Strings(hs)
		var out []string
		for _, h := range hs {
			r := sc.last.Reserved[h]
			line := fmt.Sprintf("%s slots=%d", h, r.Slots)
			for _, v := range r.Resources {
				line += fmt.Sprintf(" %s=%g", v.Index, math.Round(v.Amount*1000)/1000)
			}
			out = append(out, line)
		}
		var ks []state.Key
		for k := range sc.last.SlotReservations {
			ks = append(ks, k)
		}
		sort.Slice(ks, func(a, b int) bool { return ks[a].ID < ks[b].ID })
		for _, k := range ks {
			out = append(out, fmt.Sprintf("job %s holds %s", k, hostsText(sc.last.SlotReservations[k])))
		}
		return strings.Join(out, "\n")
	}
	t.Fatalf("line %d: unknown command %q", d.line, cmd)
	return ""
}

func parseKey(s string) state.Key {
	id, idx, _ := strings.Cut(strings.TrimSuffix(s, "]"), "[")
	k := state.Key{}
	k.ID, _ = strconv.ParseInt(id, 10, 64)
	if idx != "" {
		x, _ := strconv.Atoi(idx)
		k.Index = int32(x)
	}
	return k
}

func hostsText(hs []*api.ExecHost) string {
	var out []string
	for _, h := range hs {
		out = append(out, fmt.Sprintf("%s:%d", h.Host, h.Slots)+gpusText(h))
	}
	return strings.Join(out, ",")
}

// run schedules once, prints the plan and applies it as mbatchd and
// sbatchd would: dispatches start, preempted jobs become SSUSP
// (SUSP_RESCHED_PREEMPT) or EXIT (TERM_PREEMPT), resumed ones RUN.
func (sc *scenario) run() string {
	h := sc.h
	var plan *Plan
	h.st.View(func(v *state.View) {
		plan = h.s.Schedule(&Input{Now: h.now, Config: h.cfg, Table: h.cfg.ResourceTable(), Hosts: h.hosts, View: v,
			RunningUsage: func(k state.Key) *api.Usage { return sc.usage[k] }})
	})
	sc.last = plan
	var out []string
	for _, r := range plan.Resumes {
		out = append(out, "resume "+r.Key.String())
		h.apply(&api.Event{JobStatus: &api.EvJobStatus{JobID: r.Key.ID, Index: r.Key.Index, State: api.StateRun}})
	}
	for _, p := range plan.Preemptions {
		act := "suspend"
		if p.Terminate {
			act = "terminate"
		}
		out = append(out, fmt.Sprintf("preempt %s (%s) for %s", p.Key, act, p.By))
		h.apply(&api.Event{JobSignal: &api.EvJobSignal{JobID: p.Key.ID, Index: p.Key.Index, Preempt: true, Action: int32(api.ActSuspend)}})
		if p.Terminate {
			h.apply(&api.Event{JobStatus: &api.EvJobStatus{JobID: p.Key.ID, Index: p.Key.Index, State: api.StateExit, TermReason: TermPreempt}})
		} else {
			h.apply(&api.Event{JobStatus: &api.EvJobStatus{JobID: p.Key.ID, Index: p.Key.Index, State: api.StateSSusp, SuspReasons: SuspReschedPreempt}})
		}
	}
	for _, d := range plan.Dispatches {
		line := fmt.Sprintf("start %s %s %s", d.Key, d.Queue, hostsText(d.Hosts))
		if d.ExecRusage != "" {
			line += " rusage[" + d.ExecRusage + "]"
		}
		if d.Backfill {
			line += " backfill"
		}
		if d.RunLimit > 0 {
			line += " runlimit=" + d.RunLimit.String()
		}
		out = append(out, line)
		h.apply(&api.Event{JobStart: &api.EvJobStart{JobID: d.Key.ID, Index: d.Key.Index, ExecHosts: d.Hosts, ExecRusage: d.ExecRusage,
			BackfillLimit: int64(d.RunLimit / time.Second)}})
		h.apply(&api.Event{JobStatus: &api.EvJobStatus{JobID: d.Key.ID, Index: d.Key.Index, State: api.StateRun}})
	}
	if len(out) == 0 {
		out = append(out, "nothing")
	}
	return strings.Join(out, "\n")
}

func (sc *scenario) reasonsText(k state.Key) string {
	rs := sc.last.Reasons.Get(k)
	if rs == nil {
		return "-"
	}
	var out []string
	for _, r := range rs {
		s := fmt.Sprint(r.Code)
		if r.Detail != "" {
			s += "(" + r.Detail + ")"
		}
		if r.NumHosts > 0 {
			s += fmt.Sprintf(":%d", r.NumHosts)
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

func (sc *scenario) jobs() string {
	var out []string
	sc.h.st.View(func(v *state.View) {
		v.Jobs(func(j *state.Job) bool {
			if job.Finished(j.State) {
				return true
			}
			line := fmt.Sprintf("%-6s %-6s %-8s %-5s %s", j.Key, j.User, j.Queue, job.Name(j.State), hostsText(j.ExecHosts))
			if j.PreemptCount > 0 {
				line += fmt.Sprintf(" preempted=%d", j.PreemptCount)
			}
			out = append(out, strings.TrimRight(line, " "))
			return true
		})
	})
	return strings.Join(out, "\n")
}

func (sc *scenario) queues() string {
	type cnt struct{ pend, run, susp int }
	per := map[string]*cnt{}
	sc.h.st.View(func(v *state.View) {
		v.Jobs(func(j *state.Job) bool {
			c := per[j.Queue]
			if c == nil {
				c = &cnt{}
				per[j.Queue] = c
			}
			switch {
			case job.Pending(j.State):
				c.pend += int(j.Slots())
			case j.State == api.StateRun:
				c.run += int(j.Slots())
			case j.State == api.StateSSusp || j.State == api.StateUSusp:
				c.susp += int(j.Slots())
			}
			return true
		})
	})
	out := []string{"QUEUE    PRIO  PEND  RUN SUSP POOL"}
	for _, q := range sc.h.cfg.Queues {
		c := per[q.Name]
		if c == nil {
			c = &cnt{}
		}
		pool := "-"
		if a, ok := sc.last.PoolAllocation[q.Name]; ok {
			pool = fmt.Sprint(a)
		}
		out = append(out, fmt.Sprintf("%-8s %4d %5d %4d %4d %4s", q.Name, q.Priority, c.pend, c.run, c.susp, pool))
	}
	return strings.Join(out, "\n")
}
