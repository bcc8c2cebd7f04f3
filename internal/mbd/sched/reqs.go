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
}

// specReqs are the entries of one submission, by queue index (a job
// switched to another queue gets the other queue's entry).
type specReqs struct {
	byQueue []*reqEntry
	gen     int
}

// reqOf returns the compiled requirement of job j in queue q.
func (p *pass) reqOf(j *state.Job, q *queueCtx) *reqEntry {
	sr := p.s.specs[j.Spec]
	if sr != nil && q.idx < len(sr.byQueue) {
		if e := sr.byQueue[q.idx]; e != nil {
			sr.gen = p.s.sweep
			e.gen = p.s.sweep
			return e
		}
	}
	local := p.localType(j)
	var b strings.Builder
	for _, r := range j.Spec.ResReq {
		b.WriteString(r)
		b.WriteByte(0)
	}
	// Queues without RES_REQ merge nothing: their jobs share entries.
	b.WriteByte(1)
	b.WriteString(q.cfg.ResReq.Text)
	b.WriteByte(1)
	if a := p.app(j); a != nil {
		b.WriteString(a.ResReq.Text)
	}
	b.WriteByte(1)
	b.WriteString(local.Type)
	b.WriteByte(1)
	b.WriteString(local.Model)
	key := b.String()
	e := p.s.reqs[key]
	if e == nil {
		c, err := p.compile(j, q, local)
		e = &reqEntry{c: c, err: err}
		p.s.reqs[key] = e
	}
	e.gen = p.s.sweep
	if sr == nil {
		sr = &specReqs{}
		p.s.specs[j.Spec] = sr
	}
	for len(sr.byQueue) <= q.idx {
		sr.byQueue = append(sr.byQueue, nil)
	}
	sr.byQueue[q.idx] = e
	sr.gen = p.s.sweep
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
	return resreq.Local{}
}

func (p *pass) compile(j *state.Job, q *queueCtx, local resreq.Local) (*resreq.Compiled, error) {
	opts := resreq.Options{Strict: p.in.Strict, Context: resreq.CtxBsub, Table: p.in.Table, Unit: p.in.Unit}
	var jr *resreq.ResReq
	var err error
	if len(j.Spec.ResReq) > 0 {
		if jr, err = resreq.ParseMulti(j.Spec.ResReq, opts); err != nil {
			return nil, err
		}
	}
	qopts := opts
	qopts.Context = resreq.CtxQueue
	// The application profile's RES_REQ sits between the job's and the
	// queue's: the job's sections override the profile's, which override
	// the queue's (select is ANDed at every level).
	if a := p.app(j); a != nil && a.ResReq.Text != "" {
		ar := a.ResReq.Parsed
		if ar == nil {
			ar, _ = resreq.Parse(a.ResReq.Text, qopts) // ckconfig reported an error
		}
		switch {
		case ar == nil:
		case jr == nil:
			jr = ar
		default:
			if jr, err = resreq.Merge(jr, ar); err != nil {
				return nil, err
			}
		}
	}
	var qr *resreq.ResReq
	if q.cfg.ResReq.Parsed != nil {
		qr = q.cfg.ResReq.Parsed
	} else if q.cfg.ResReq.Text != "" {
		if qr, err = resreq.Parse(q.cfg.ResReq.Text, qopts); err != nil {
			qr = nil // ckconfig reported it; the queue runs without it
		}
	}
	var r *resreq.ResReq
	switch {
	case jr != nil && qr != nil:
		if r, err = resreq.Merge(jr, qr); err != nil {
			return nil, err
		}
	case jr != nil:
		r = jr
	case qr != nil:
		r = qr
	default:
		if r, err = resreq.Parse("", opts); err != nil {
			return nil, err
		}
	}
	return r.Compile(p.in.Table, local)
}

// sweepCaches forgets compiled requirements no job used for a while.
func (s *Scheduler) sweepCaches() {
	s.sweep++
	if s.sweep%16 != 0 {
		return
	}
	for k, sr := range s.specs {
		if s.sweep-sr.gen > 16 {
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

// prescan resolves every pending job's requirement once, learns which
// indices dispatches of this pass may reserve (the rusage indices of
// pending jobs, and slots), and counts each queue's pending slots.
func (p *pass) prescan() {
	var maxID int64 = -1
	side := 0
	if p.s.mem.lastJobs == nil {
		p.s.mem.lastJobs = map[string][]pendJob{}
		p.s.mem.spare = map[string][]pendJob{}
	}
	for _, q := range p.queues {
		name := q.cfg.Name
		last := p.s.mem.lastJobs[name]
		q.jobs = p.s.mem.spare[name][:0]
		if cap(q.jobs) < len(last) {
			q.jobs = make([]pendJob, 0, len(last)+len(last)/8)
		}
		k := 0
		p.in.View.Pending(name, func(j *state.Job) bool {
			// The pending list changes little between passes: take the
			// job's entry from the last pass's list when it is there
			// (same job, same submission), skipping jobs that left it.
			var e *reqEntry
			for try := 0; try < 3 && k+try < len(last); try++ {
				if x := last[k+try]; x.j == j && x.spec == j.Spec {
					e, k = x.req, k+try+1
					e.gen = p.s.sweep
					break
				}
			}
			if e == nil {
				e = p.reqOf(j, q)
			}
			q.jobs = append(q.jobs, pendJob{j: j, req: e, spec: j.Spec})
			q.pendSlots += int(j.Slots())
			if e.c != nil && len(e.c.Rusage)+len(e.c.Terms)+len(e.c.Alternatives) > 0 {
				markRusage(p.mutable, e.c)
			}
			if dense(j.Key) {
				maxID = max(maxID, j.Key.ID)
			} else {
				side++
			}
			return true
		})
		p.s.mem.spare[name] = last
		p.s.mem.lastJobs[name] = q.jobs
	}
	p.rb = newReasonsBuilder(maxID, side)
	p.plan.Reasons = p.rb.r
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
