package sched

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/job"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
	"github.com/basalt-lsf/basalt/internal/resreq/gpureq"
)

// setGPUs gives scenario hosts GPUs: "host1:2,host2:4" (model TeslaV100,
// 16 GB), or "host1:2:TeslaK80".
func setGPUs(h *harness, spec string) {
	for _, item := range strings.Split(spec, ",") {
		f := strings.Split(item, ":")
		n, _ := strconv.Atoi(f[1])
		model := "TeslaV100"
		if len(f) > 2 {
			model = f[2]
		}
		for _, hh := range h.hosts {
			if hh.Name != f[0] {
				continue
			}
			hh.GPUs = nil
			for i := range n {
				hh.GPUs = append(hh.GPUs, &api.GPUDevice{Index: int32(i), Model: model, MemTotal: 16384})
			}
		}
	}
}

// gpusText shows an execution host's GPUs as "[0,1]" (scenario output).
func gpusText(h *api.ExecHost) string {
	if len(h.GPUs) == 0 {
		return ""
	}
	var ids []string
	for _, i := range h.GPUs {
		ids = append(ids, fmt.Sprint(i))
	}
	return "[" + strings.Join(ids, ",") + "]"
}

var propGPUReqs = []string{"-", "num=2", "num=1:j_exclusive=yes", "num=2:mode=exclusive_process", "num=3", "num=1:gmodel=TeslaK80"}

// TestPropertyGPUs: with GPUs on random hosts and GPU jobs among the
// others, passes with and without the caches decide alike (the GPU
// requirement is part of the class key), and after every plan each job
// holds, on each of its hosts, as many distinct GPUs of that host as it
// asked for, and no GPU an exclusive job holds is held by another job.
func TestPropertyGPUs(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		cs := genCluster(rt)
		h := newHarness(t, cs)
		var spec []string
		for _, hh := range h.hosts {
			if n := rapid.IntRange(0, 4).Draw(rt, "gpus"); n > 0 {
				spec = append(spec, fmt.Sprintf("%s:%d:%s", hh.Name, n, rapid.SampledFrom([]string{"TeslaV100", "TeslaK80"}).Draw(rt, "model")))
			}
		}
		if len(spec) > 0 {
			setGPUs(h, strings.Join(spec, ","))
		}
		ref := New()
		ref.noCache = true
		nq := strings.Count(cs.queues, "Begin Queue")
		for step := 0; step < 8; step++ {
			propStep(rt, h, nq)
			for i := rapid.IntRange(0, 4).Draw(rt, "gpuJobs"); i > 0; i-- {
				g := rapid.SampledFrom(propGPUReqs).Draw(rt, "gpuReq")
				q := fmt.Sprintf("q%d", rapid.IntRange(0, nq-1).Draw(rt, "gpuQueue"))
				h.submit("u0", q, func(e *api.EvJobNew) { e.Spec.GPUReq = g })
			}
			var fast, slow *Plan
			h.st.View(func(v *state.View) {
				in := &Input{Now: h.now, Config: h.cfg, Table: h.cfg.ResourceTable(), Hosts: h.hosts, View: v}
				fast = h.s.Schedule(in)
				slow = ref.Schedule(in)
			})
			if a, b := decisions(fast), decisions(slow); a != b {
				rt.Fatalf("step %d: cached and uncached passes differ:\ncached   %s\nuncached %s", step, a, b)
			}
			applyPlan(h, fast)
			checkGPUs(rt, h)
		}
	})
}

func checkGPUs(t *rapid.T, h *harness) {
	inv := map[string]map[int32]bool{}
	for _, hh := range h.hosts {
		inv[hh.Name] = map[int32]bool{}
		for _, d := range hh.GPUs {
			inv[hh.Name][d.Index] = true
		}
	}
	type use struct{ jobs, excl int }
	uses := map[string]map[int32]*use{}
	h.st.View(func(v *state.View) {
		v.Jobs(func(j *state.Job) bool {
			if !job.Started(j.State) || j.Spec.GPUReq == "" {
				return true
			}
			r, _, err := gpureq.Resolve(j.Spec.GPUReq, "")
			if err != nil {
				t.Fatalf("job %s: %v", j.Key, err)
			}
			for _, eh := range j.ExecHosts {
				seen := map[int32]bool{}
				for _, id := range eh.GPUs {
					if !inv[eh.Host][id] || seen[id] {
						t.Fatalf("job %s: GPU %d on %s (inventory %v, twice %v)", j.Key, id, eh.Host, inv[eh.Host], seen[id])
					}
					seen[id] = true
					if uses[eh.Host] == nil {
						uses[eh.Host] = map[int32]*use{}
					}
					u := uses[eh.Host][id]
					if u == nil {
						u = &use{}
						uses[eh.Host][id] = u
					}
					u.jobs++
					if r.Exclusive() {
						u.excl++
					}
				}
				if len(seen) != r.Num {
					t.Fatalf("job %s (%s): %d GPUs on %s, asked %d", j.Key, j.Spec.GPUReq, len(seen), eh.Host, r.Num)
				}
			}
			return true
		})
	})
	for host, m := range uses {
		for id, u := range m {
			if u.excl > 0 && u.jobs > 1 {
				t.Fatalf("GPU %d of %s: %d jobs, %d of them exclusive", id, host, u.jobs, u.excl)
			}
		}
	}
}
