package sched

import (
	"strings"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
	"github.com/basalt-lsf/basalt/internal/resreq"
)

// reqEntry is a compiled requirement (the job's merged with its
// application profile's and its queue's),
// shared by every job whose requirement text, queue and submission host
// type are the same: 1,000,000 jobs of 1,000 requirement classes compile
// 1,000 times.
type reqEntry struct {
	c       *resreq.Compiled
	err     error
	reasons []*api.PendReason
	gen     int
	scan    uint64 // the last queue scan that listed it (queueScan.reqs)
	eff     string // the effective requirement (resreq's Effective)
}

// specReq is the entry of one submission in the queue it was last seen in
// (a job switched to another queue looks its entry up again). It is a map
// value, not a pointer: a million submissions cost one map and nothing
// else for the garbage collector.
type specReq struct {
	e     *reqEntry
	queue int32
	gen   int32
}

// reqKey identifies a compiled requirement: the job's requirement strings
// (one inline, several joined), the queue's and the application profile's
// RES_REQ texts (queues without RES_REQ merge nothing: their jobs share
// entries) and the submission host's type and model. Building it
// allocates nothing for a job with at most one -R.
type reqKey struct {
	job        string
	nJob       int
	queue, app string
	typ, model string
}

// reqOf returns the compiled requirement of job j in queue q.
func (p *pass) reqOf(j *state.Job, q *queueCtx) *reqEntry {
	sr, ok := p.s.specs[j.Spec]
	if ok && int(sr.queue) == q.idx {
		if sr.gen != int32(p.s.sweep) {
			sr.gen = int32(p.s.sweep)
			p.s.specs[j.Spec] = sr
		}
		sr.e.gen = p.s.sweep
		return sr.e
	}
	local := p.localType(j)
	k := reqKey{nJob: len(j.Spec.ResReq), queue: q.cfg.ResReq.Text, typ: local.Type, model: local.Model}
	switch len(j.Spec.ResReq) {
	case 0:
	case 1:
		k.job = j.Spec.ResReq[0]
	default:
		k.job = strings.Join(j.Spec.ResReq, "\x00")
	}
	if a := p.app(j); a != nil {
		k.app = a.ResReq.Text
	}
	e := p.s.reqs[k]
	if e == nil {
		c, eff, err := p.compile(j, q, local)
		e = &reqEntry{c: c, err: err, eff: eff}
		p.s.reqs[k] = e
	}
	e.gen = p.s.sweep
	p.s.specs[j.Spec] = specReq{e: e, queue: int32(q.idx), gen: int32(p.s.sweep)}
	return e
}

// app is job j's application profile, nil without one.
func (p *pass) app(j *state.Job) *config.Application {
	if j.Spec.App == "" || p.cfg == nil {
		return nil
	}
	return p.cfg.Application(j.Spec.App)
}

func (p *pass) localType(j *state.Job) resreq.Local {
	if h := p.cfg.BatchHost(j.Spec.FromHost); h != nil {
		return resreq.Local{Type: h.Type, Model: h.Model}
	}
	for _, h := range p.hosts {
		if strings.EqualFold(h.Name, j.Spec.FromHost) {
			return resreq.Local{Type: h.Type, Model: h.Model}
		}
	}
	// A job forwarded from another cluster: its submission host as that
	// cluster knows it.
	if s := j.Spec; s.SrcHostType != "" {
		return resreq.Local{Type: s.SrcHostType, Model: s.SrcHostModel}
	}
	return resreq.Local{}
}

func (p *pass) compile(j *state.Job, q *queueCtx, local resreq.Local) (*resreq.Compiled, string, error) {
	return CompileJobReq(p.in.Table, p.in.Strict, p.in.Unit, j.Spec.ResReq, p.app(j), q.cfg, local)
}

// CompileJobReq merges a job's -R strings with its application profile's
// and its queue's RES_REQ as the scheduler does (the job's sections
// override the profile's, which override the queue's; select is ANDed at
// every level) and compiles the result for the submission host's type and
// model. The string is the merged requirement in its effective form, what
// bjobs -l shows as "Combined". strict and unit are LSF_STRICT_RESREQ and
// LSF_UNIT_FOR_LIMITS; app and queue may be nil.
func CompileJobReq(table *resreq.Table, strict bool, unit string, jobReqs []string, app *config.Application, queue *config.Queue, local resreq.Local) (*resreq.Compiled, string, error) {
	opts := resreq.Options{Strict: strict, Context: resreq.CtxBsub, Table: table, Unit: unit}
	var jr *resreq.ResReq
	var err error
	if len(jobReqs) > 0 {
		if jr, err = resreq.ParseMulti(jobReqs, opts); err != nil {
			return nil, "", err
		}
	}
	qopts := opts
	qopts.Context = resreq.CtxQueue
	if app != nil && app.ResReq.Text != "" {
		ar := app.ResReq.Parsed
		if ar == nil {
			ar, _ = resreq.Parse(app.ResReq.Text, qopts) // ckconfig reported an error
		}
		switch {
		case ar == nil:
		case jr == nil:
			jr = ar
		default:
			if jr, err = resreq.Merge(jr, ar); err != nil {
				return nil, "", err
			}
		}
	}
	var qr *resreq.ResReq
	switch {
	case queue == nil:
	case queue.ResReq.Parsed != nil:
		qr = queue.ResReq.Parsed
	case queue.ResReq.Text != "":
		if qr, err = resreq.Parse(queue.ResReq.Text, qopts); err != nil {
			qr = nil // ckconfig reported it; the queue runs without it
		}
	}
	var r *resreq.ResReq
	switch {
	case jr != nil && qr != nil:
		if r, err = resreq.Merge(jr, qr); err != nil {
			return nil, "", err
		}
	case jr != nil:
		r = jr
	case qr != nil:
		r = qr
	default:
		if r, err = resreq.Parse("", opts); err != nil {
			return nil, "", err
		}
	}
	c, err := r.Compile(table, local)
	if err != nil {
		return c, "", err
	}
	return c, r.Effective(c.TypeRule), nil
}

// sweepCaches forgets compiled requirements no job used for a while.
func (s *Scheduler) sweepCaches() {
	s.sweep++
	if s.sweep%16 != 0 {
		return
	}
	for k, sr := range s.specs {
		if s.sweep-int(sr.gen) > 16 {
			delete(s.specs, k)
		}
	}
	for k, e := range s.reqs {
		if s.sweep-e.gen > 16 {
			delete(s.reqs, k)
		}
	}
	for sp := range s.deps {
		delete(s.deps, sp) // cheap to parse again
	}
}

// queueScan is what prescan derived from a queue's pending list: the jobs
// with their requirements and the sums the pass needs. A later pass takes it
// whole while the list's stamp is the same (nothing in or out, no order or
// submission changed): with a million jobs waiting and a full cluster,
// walking the lists was a quarter of a pass.
type queueScan struct {
	stamp state.PendingStamp
	jobs  []pendJob
	reqs  []*reqEntry // distinct, for the rusage marks and the cache sweep
	slots int
	maxID int64 // of the dense keys; -1: none
	side  int   // keys outside the dense table
}

// prescan resolves every pending job's requirement once, learns which
// indices dispatches of this pass may reserve (the rusage indices of
// pending jobs, and slots), and counts each queue's pending slots.
func (p *pass) prescan() {
	var maxID int64 = -1
	side := 0
	m := &p.s.mem
	if m.scans == nil {
		m.scans = map[string]*queueScan{}
	}
	// Every queue's list is a part of one block, the block the pass
	// before last filled (the last pass's lists are read meanwhile).
	want := p.in.View.Count(api.StatePend) + p.in.View.Count(api.StatePSusp)
	buf := m.spareBlock[:0]
	m.resolved, m.taken = 0, 0
	if cap(buf) < want {
		buf = make([]pendJob, 0, want+want/8)
	}
	for _, q := range p.queues {
		name := q.cfg.Name
		qs := m.scans[name]
		stamp := p.in.View.PendingStamp(name)
		if qs != nil && qs.stamp == stamp && !p.s.noCache {
			if len(buf)+len(qs.jobs) > cap(buf) {
				buf = make([]pendJob, 0, 2*cap(buf)+len(qs.jobs)+1024) // the old block keeps the lists in it
			}
			start := len(buf)
			buf = append(buf, qs.jobs...)
			qs.jobs = buf[start:len(buf):len(buf)]
			m.taken++
		} else {
			if qs == nil {
				qs = &queueScan{}
				m.scans[name] = qs
			}
			buf = p.scanQueue(q, qs, buf)
			qs.stamp = stamp
		}
		q.jobs = qs.jobs
		q.pendSlots += qs.slots
		for _, e := range qs.reqs {
			e.gen = p.s.sweep
			if e.c != nil && len(e.c.Rusage)+len(e.c.Terms)+len(e.c.Alternatives) > 0 {
				markRusage(p.mutable, e.c)
			}
		}
		maxID = max(maxID, qs.maxID)
		side += qs.side
	}
	m.spareBlock, m.lastBlock = m.lastBlock, buf
	p.rb = newReasonsBuilder(maxID, side)
	p.plan.Reasons = p.rb.r
}

// scanQueue walks q's pending list into buf and sets qs from it, taking a
// job's requirement from qs's last list when the job is there with the same
// submission.
func (p *pass) scanQueue(q *queueCtx, qs *queueScan, buf []pendJob) []pendJob {
	m := &p.s.mem
	last := qs.jobs
	if p.s.noCache {
		last = nil // every requirement resolved afresh
	}
	m.scanSeq++
	seq := m.scanSeq
	qs.reqs, qs.slots, qs.maxID, qs.side = qs.reqs[:0], 0, -1, 0
	start := len(buf)
	k := 0
	p.in.View.Pending(q.cfg.Name, func(j *state.Job) bool {
		// The pending list changes little between passes: take the
		// job's entry from the last pass's list when it is there
		// (same job, same submission), skipping jobs that left the
		// pending lists (started, finished: a pass may start
		// thousands in a row) and up to two others.
		for k < len(last) && last[k].j != j && !p.in.View.Listed(last[k].j) {
			k++
		}
		var e *reqEntry
		n := int32(-1)
		for try := 0; try < 3 && k+try < len(last); try++ {
			if x := last[k+try]; x.j == j && x.spec == j.Spec {
				e, n, k = x.req, x.slots, k+try+1
				break
			}
		}
		if e == nil {
			e = p.reqOf(j, q)
			m.resolved++
		}
		if n < 0 { // not in the last list (there: the same record, its slots)
			n = j.Slots()
		}
		if e.scan != seq {
			e.scan = seq
			qs.reqs = append(qs.reqs, e)
		}
		if len(buf) == cap(buf) {
			// More than counted: a new block (the lists already in
			// the old one keep it).
			nb := make([]pendJob, 0, 2*cap(buf)+1024)
			buf = append(nb, buf[start:]...)
			start = 0
		}
		buf = append(buf, pendJob{j: j, req: e, spec: j.Spec, slots: n})
		qs.slots += int(n)
		if dense(j.Key) {
			qs.maxID = max(qs.maxID, j.Key.ID)
		} else {
			qs.side++
		}
		return true
	})
	qs.jobs = buf[start:len(buf):len(buf)]
	return buf
}

func markRusage(m []bool, c *resreq.Compiled) {
	for _, alt := range c.Rusage {
		for _, u := range alt {
			if u.Index < len(m) {
				m[u.Index] = true
			}
		}
	}
	for _, t := range c.Terms {
		markRusage(m, t.Req)
	}
	for _, a := range c.Alternatives {
		markRusage(m, a)
	}
}
