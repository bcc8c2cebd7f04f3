package sched

import (
	"sort"
	"strings"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
	"github.com/basalt-lsf/basalt/internal/resreq/gpureq"
)

// GPU scheduling (bsub -gpu). A job with a GPU requirement needs, on every
// host it runs on, num GPUs of the host's inventory (Host.GPUs, from its
// LIM) that it may use: a job whose requirement is exclusive (j_exclusive
// =yes, implied by mode=exclusive_process) only GPUs no started job holds,
// any other job GPUs no exclusive job holds, the least used first. The
// commit records the indices chosen in the dispatch's ExecHosts (JOB_START),
// and the job's effective requirement, so that sbatchd sets
// CUDA_VISIBLE_DEVICES and the device cgroup and bhosts -gpu counts them.
// A host without such GPUs gives PEND_HOST_RES_REQ.

// gpuState is a pass's GPU bookkeeping.
type gpuState struct {
	def string // LSB_GPU_REQ
	// levels: some queue or application profile has a GPU_REQ.
	levels bool
	reqs   map[string]gpuReqEntry  // by -gpu, profile and queue GPU_REQ
	use    map[int32]map[int32]gpu // by host index: GPU index -> use
}

type gpuReqEntry struct {
	r  gpureq.Req
	ok bool
}

// gpu is one GPU's use by started jobs (and dispatches of the pass).
type gpu struct {
	jobs int
	excl bool
}

func (p *pass) gpus() *gpuState {
	if p.gpu == nil {
		p.gpu = &gpuState{reqs: map[string]gpuReqEntry{}, use: map[int32]map[int32]gpu{}}
		if p.in.Config != nil && p.in.Config.Base != nil && p.in.Config.Conf != nil {
			p.gpu.def = p.in.Config.Conf.Get("LSB_GPU_REQ")
		}
		if cfg := p.in.Config; cfg != nil {
			for _, q := range cfg.Queues {
				p.gpu.levels = p.gpu.levels || q.GPUReq != ""
			}
			for _, a := range cfg.Applications {
				p.gpu.levels = p.gpu.levels || a.GPUReq != ""
			}
		}
	}
	return p.gpu
}

// gpuReq is a job's effective GPU requirement (its -gpu over its
// application profile's and queue's GPU_REQ over LSB_GPU_REQ); ok false:
// it asks for none.
func (p *pass) gpuReq(j *state.Job) (gpureq.Req, bool) {
	g := p.gpus()
	l := gpureq.Levels{Job: j.Spec.GPUReq}
	if g.levels {
		if q := p.in.Config.Queue(j.Queue); q != nil {
			l.Queue = q.GPUReq
		}
		if a := p.in.Config.Application(j.Spec.App); j.Spec.App != "" && a != nil {
			l.App = a.GPUReq
		}
	}
	if l.Job == "" && l.Queue == "" && l.App == "" {
		return gpureq.Req{}, false
	}
	text := l.Job + "\x00" + l.App + "\x00" + l.Queue
	e, found := g.reqs[text]
	if !found {
		l.Cluster = g.def
		r, ok, err := l.Resolve()
		if err != nil {
			// Refused at submission; a record from elsewhere asks for
			// more GPUs than any host has rather than for none.
			r, ok = gpureq.Req{Num: gpureq.MaxNum + 1}, true
		}
		e = gpuReqEntry{r, ok}
		g.reqs[text] = e
	}
	return e.r, e.ok
}

// gpuClassKey is the class key part of a job's GPU requirement.
func (p *pass) gpuClassKey(jc *jobCtx) int32 {
	r, ok := p.gpuReq(jc.j)
	if !ok {
		return 0
	}
	return p.intern("gpu\x00" + r.String())
}

// hostGPUUse is the use of a host's GPUs by its started jobs, computed at
// the host's first look in the pass.
func (p *pass) hostGPUUse(h *hostCtx) map[int32]gpu {
	g := p.gpus()
	if u, ok := g.use[h.idx]; ok {
		return u
	}
	u := map[int32]gpu{}
	if p.in.View != nil {
		p.in.View.OnHost(h.Name, func(j *state.Job) bool {
			r, _ := p.gpuReq(j)
			for _, eh := range j.ExecHosts {
				if eh.Host != h.Name {
					continue
				}
				for _, i := range eh.GPUs {
					x := u[i]
					x.jobs++
					x.excl = x.excl || r.Exclusive()
					u[i] = x
				}
			}
			return true
		})
	}
	g.use[h.idx] = u
	return u
}

// pickGPUs chooses the GPUs of host h for requirement r; nil when the
// host has too few it may use.
func (p *pass) pickGPUs(h *hostCtx, r gpureq.Req) []int32 {
	if len(h.GPUs) < r.Num {
		return nil
	}
	u := p.hostGPUUse(h)
	var cand []*api.GPUDevice
	for _, d := range h.GPUs {
		x := u[d.Index]
		if r.GModel != "" && !strings.HasPrefix(strings.ToLower(d.Model), strings.ToLower(r.GModel)) {
			continue
		}
		if x.excl || r.Exclusive() && x.jobs > 0 {
			continue
		}
		cand = append(cand, d)
	}
	if len(cand) < r.Num {
		return nil
	}
	sort.SliceStable(cand, func(a, b int) bool {
		ua, ub := u[cand[a].Index].jobs, u[cand[b].Index].jobs
		if ua != ub {
			return ua < ub
		}
		return cand[a].Index < cand[b].Index
	})
	out := make([]int32, r.Num)
	for i := range out {
		out[i] = cand[i].Index
	}
	sort.Slice(out, func(a, b int) bool { return out[a] < out[b] })
	return out
}

// gpuFilter keeps a GPU job off hosts without enough GPUs it may use.
// Within a pass GPUs are only taken, so a rejection holds for the class
// (whose key includes the GPU requirement).
type gpuFilter struct{}

func (gpuFilter) Name() string     { return "gpu" }
func (gpuFilter) Kind() FilterKind { return Permanent }
func (gpuFilter) Filter(p *pass, c *class, jc *jobCtx, h *hostCtx) int32 {
	r, ok := p.gpuReq(jc.j)
	if !ok {
		return 0
	}
	if p.pickGPUs(h, r) == nil {
		return PendHostResReq
	}
	return 0
}

// allocGPUs records the GPUs of a dispatch on each of its hosts and
// charges them for the rest of the pass (called by commit).
func (p *pass) allocGPUs(j *state.Job, hosts []*api.ExecHost) {
	r, ok := p.gpuReq(j)
	if !ok {
		return
	}
	for i, eh := range hosts {
		h := p.byName[eh.Host]
		if h == nil {
			continue
		}
		ids := p.pickGPUs(h, r)
		eh.GPUs = ids
		if i == 0 {
			eh.GPUReq = r.String()
		}
		u := p.hostGPUUse(h)
		for _, id := range ids {
			x := u[id]
			x.jobs++
			x.excl = x.excl || r.Exclusive()
			u[id] = x
		}
	}
}
