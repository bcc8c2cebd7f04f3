package sched

import (
	"math"

	"github.com/basalt-lsf/basalt/internal/config"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/resreq"
)

// LSF pending reason codes used by the standard plugins (lsbatch.h;
// lsf-reference-appendix §A.1).
const (
	PendJobStartTime   int32 = 2
	PendJobDepend      int32 = 3
	PendJobDepInvalid  int32 = 4
	PendSysUnable      int32 = 35
	PendArrayJLimit    int32 = 38
	PendQueInact       int32 = 301
	PendQueWindow      int32 = 302
	PendQueJobLimit    int32 = 303
	PendQueUsrJLimit   int32 = 304
	PendQueUsrPJLimit  int32 = 305
	PendQuePJobLimit   int32 = 314
	PendUserJobLimit   int32 = 601
	PendUGrpJobLimit   int32 = 602
	PendUserPJobLimit  int32 = 603
	PendUGrpPJobLimit  int32 = 604
	PendUserStop       int32 = 607
	PendHostResReq     int32 = 1001
	PendHostNonExcl    int32 = 1002
	PendHostDisabled   int32 = 1301
	PendHostLocked     int32 = 1302
	PendHostLessSlots  int32 = 1303
	PendHostWindow     int32 = 1304
	PendHostJobLimit   int32 = 1305
	PendQueProcJLimit  int32 = 1306
	PendQueHostJLimit  int32 = 1307
	PendUserProcJLimit int32 = 1308
	PendHostUsrJLimit  int32 = 1309
	PendHostQueMemb    int32 = 1310
	PendHostUsrSpec    int32 = 1311
	PendHostAccptOne   int32 = 1314
	PendLoadUnavail    int32 = 1315
	PendHostNoLIM      int32 = 1316
	PendHostExclusive  int32 = 1322
	PendUGrpProcJLimit int32 = 1324
	PendSbdUnreach     int32 = 1601
	// PendHostLoad + load index: the host's or queue's loadSched threshold
	// is exceeded. PendHostJobRusage + index: not enough of a resource to
	// reserve. External indices use 11 + their position among the lsf.shared
	// resources, with the name in Detail.
	PendHostLoad      int32 = 2001
	PendHostJobRusage int32 = 2601
	// Resource allocation limits (lsb.resources), LSF 7+: the consumer the
	// limit names decides the code; Detail names the resource ("slot",
	// "mem", ...). Texts: "Resource (<name>) limit defined on user or user
	// group / on queue / on project / cluster-wide / on host and/or host
	// group has been reached"; JOBS limits have their own codes.
	PendLimitUser        int32 = 3201
	PendLimitQueue       int32 = 3501
	PendLimitProject     int32 = 3801
	PendLimitCluster     int32 = 4101
	PendLimitHost        int32 = 4401
	PendLimitJobsUser    int32 = 4701
	PendLimitJobsQueue   int32 = 4702
	PendLimitJobsProject int32 = 4703
	PendLimitJobsCluster int32 = 4704
	PendLimitJobsHost    int32 = 4705
)

// reasonDetail is the Detail a host reason code needs (external index
// names are set where the code is made).
func reasonDetail(code int32) string {
	switch code {
	case PendLimitUser, PendLimitQueue, PendLimitProject, PendLimitCluster, PendLimitHost:
		return "slot"
	}
	return ""
}

// Gate decides whether a job can be considered at all; it returns the
// job's reasons when it cannot (shared slices: use pass.one), or nil.
type Gate interface {
	Name() string
	Gate(p *pass, jc *jobCtx) []*api.PendReason
}

// FilterKind says how long a host filter's rejection holds within a pass.
type FilterKind int

const (
	// Static filters depend only on the host, the queue and the class's
	// requirement as they were at the start of the pass; they run once per
	// class and pass, and must come first.
	Static FilterKind = iota
	// Permanent rejections hold for the rest of the pass for every job of
	// the class (the host only fills up): the host leaves the class.
	Permanent
	// Parked rejections hold until the host's values change.
	Parked
	// Transient rejections depend on the job (its user): checked per job.
	Transient
)

// Filter decides whether a host can take a job of a class; it returns a
// pending reason code, or 0. Static filters get the class's first job.
type Filter interface {
	Name() string
	Kind() FilterKind
	Filter(p *pass, c *class, jc *jobCtx, h *hostCtx) int32
}

// DefaultGates are the job-level checks, in order.
func DefaultGates() []Gate {
	return []Gate{queueGate{}, holdGate{}, beginGate{}, retryGate{}, dependGate{}, arrayLimitGate{}, jobGroupGate{}, rsvGate{}, requirementGate{}, askedGate{},
		queueLimitGate{}, userLimitGate{}, clusterLimitGate{}, poolGate{}}
}

// DefaultFilters are the host-level checks, in order: static ones first.
func DefaultFilters() []Filter {
	return []Filter{statusFilter{}, queueHostsFilter{}, askedFilter{}, excludedFilter{}, windowFilter{}, loadFilter{},
		staticSelectFilter{},
		slotsFilter{}, exclusiveFilter{}, acceptFilter{}, queueHostSlotsFilter{},
		userHostFilter{}, hostLimitFilter{}, rsvFilter{},
		selectFilter{}, rusageFilter{}, gpuFilter{}}
}

type statusFilter struct{}

func (statusFilter) Name() string     { return "host-status" }
func (statusFilter) Kind() FilterKind { return Static }
func (statusFilter) Filter(p *pass, c *class, jc *jobCtx, h *hostCtx) int32 {
	switch h.Status {
	case "ok", "closed_Full", "closed_Excl":
		return 0
	case "closed_Adm":
		return PendHostDisabled
	case "closed_Lock":
		return PendHostLocked
	case "unreach":
		return PendSbdUnreach
	case "closed_LIM":
		return PendHostNoLIM
	}
	return PendLoadUnavail
}

type queueHostsFilter struct{}

func (queueHostsFilter) Name() string     { return "queue-hosts" }
func (queueHostsFilter) Kind() FilterKind { return Static }
func (queueHostsFilter) Filter(p *pass, c *class, jc *jobCtx, h *hostCtx) int32 {
	if c.q.hosts != nil {
		if _, ok := c.q.hosts[h.idx]; !ok {
			return PendHostQueMemb
		}
	}
	return 0
}

type askedFilter struct{}

func (askedFilter) Name() string     { return "asked-hosts" }
func (askedFilter) Kind() FilterKind { return Static }
func (askedFilter) Filter(p *pass, c *class, jc *jobCtx, h *hostCtx) int32 {
	if c.asked != nil {
		if _, ok := c.asked[h.idx]; !ok {
			return PendHostUsrSpec
		}
	}
	return 0
}

type excludedFilter struct{}

func (excludedFilter) Name() string     { return "excluded-hosts" }
func (excludedFilter) Kind() FilterKind { return Static }
func (excludedFilter) Filter(p *pass, c *class, jc *jobCtx, h *hostCtx) int32 {
	if c.excluded[h.idx] {
		return PendHostUsrSpec
	}
	return 0
}

type windowFilter struct{}

func (windowFilter) Name() string     { return "dispatch-window" }
func (windowFilter) Kind() FilterKind { return Static }
func (windowFilter) Filter(p *pass, c *class, jc *jobCtx, h *hostCtx) int32 {
	if h.Cfg != nil && !h.Cfg.DispatchWindow.Always() && !h.Cfg.DispatchWindow.Open(p.in.Now) {
		p.wakeAt(h.Cfg.DispatchWindow.Next(p.in.Now))
		return PendHostWindow
	}
	return 0
}

// loadFilter applies the host's (lsb.hosts) and the queue's loadSched
// thresholds to the load at the start of the pass (reservations of running
// jobs included): an index beyond either makes the host ineligible for the
// queue, reason PEND_HOST_LOAD + index. Unknown values never exceed.
type loadFilter struct{}

func (loadFilter) Name() string     { return "load-thresholds" }
func (loadFilter) Kind() FilterKind { return Static }
func (loadFilter) Filter(p *pass, c *class, jc *jobCtx, h *hostCtx) int32 {
	if len(h.loadOK) < len(p.queues) {
		if cap(h.loadOK) < len(p.queues) {
			h.loadOK = make([]int32, len(p.queues))
		}
		h.loadOK = h.loadOK[:len(p.queues)]
		for i := range h.loadOK {
			h.loadOK[i] = -1
		}
	}
	if r := h.loadOK[c.q.idx]; r >= 0 {
		return r
	}
	r := int32(0)
	if h.Cfg != nil {
		r = p.beyond(h, h.Cfg.Thresholds)
	}
	if r == 0 {
		r = p.beyond(h, c.q.cfg.Thresholds)
	}
	h.loadOK[c.q.idx] = r
	return r
}

// beyond returns the reason of the first threshold the host's load
// exceeds, or 0.
func (p *pass) beyond(h *hostCtx, ts []config.LoadThreshold) int32 {
	for _, t := range ts {
		if !t.HasSched {
			continue
		}
		i, ok := p.in.Table.Index(t.Index)
		if !ok || i >= len(h.vals.Num) {
			continue
		}
		v := h.vals.Num[i]
		if v != v {
			continue
		}
		if p.in.Table.Def(i).Increasing && v > t.Sched || !p.in.Table.Def(i).Increasing && v < t.Sched {
			return p.loadCode(PendHostLoad, i)
		}
	}
	return 0
}

// loadCode is the PEND_HOST_LOAD code of table index i.
func (p *pass) loadCode(base int32, i int) int32 {
	if i < resreq.NumLoadIndices {
		return base + int32(i)
	}
	return base + int32(resreq.NumLoadIndices) + int32(i-resreq.NumBuiltin)
}

type staticSelectFilter struct{}

func (staticSelectFilter) Name() string     { return "select" }
func (staticSelectFilter) Kind() FilterKind { return Static }
func (staticSelectFilter) Filter(p *pass, c *class, jc *jobCtx, h *hostCtx) int32 {
	if c.dynSelect || h.vals.Num == nil {
		return 0
	}
	if !c.req.Select(&h.vals) {
		return PendHostResReq
	}
	return 0
}

type exclusiveFilter struct{}

func (exclusiveFilter) Name() string     { return "exclusive" }
func (exclusiveFilter) Kind() FilterKind { return Permanent }
func (exclusiveFilter) Filter(p *pass, c *class, jc *jobCtx, h *hostCtx) int32 {
	if h.exclusive {
		return PendHostExclusive
	}
	if c.key.exclusive && h.hasJobs {
		return PendHostNonExcl
	}
	return 0
}

type acceptFilter struct{}

func (acceptFilter) Name() string     { return "job-accept-interval" }
func (acceptFilter) Kind() FilterKind { return Permanent }
func (acceptFilter) Filter(p *pass, c *class, jc *jobCtx, h *hostCtx) int32 {
	n := c.q.acceptN
	if n <= 0 {
		return 0
	}
	if h.touched {
		return PendHostAccptOne
	}
	if !h.LastDispatch.IsZero() {
		until := h.LastDispatch.Add(p.cfg.Params.MBDSleepTime * time_(n))
		if p.in.Now.Before(until) {
			p.wakeAt(until)
			return PendHostAccptOne
		}
	}
	return 0
}

type slotsFilter struct{}

func (slotsFilter) Name() string     { return "host-slots" }
func (slotsFilter) Kind() FilterKind { return Permanent }
func (slotsFilter) Filter(p *pass, c *class, jc *jobCtx, h *hostCtx) int32 {
	if p.hostFree(c.key.view, c.q, jc, h) <= 0 {
		return PendHostJobLimit
	}
	return 0
}

type queueHostSlotsFilter struct{}

func (queueHostSlotsFilter) Name() string     { return "queue-host-slots" }
func (queueHostSlotsFilter) Kind() FilterKind { return Permanent }
func (queueHostSlotsFilter) Filter(p *pass, c *class, jc *jobCtx, h *hostCtx) int32 {
	cfg := c.q.cfg
	used := int(h.queueSlots[c.q.idx])
	if cfg.HJobLimit > 0 && used >= cfg.HJobLimit {
		return PendQueHostJLimit
	}
	if cfg.PJobLimit > 0 && used >= perCPU(cfg.PJobLimit, h.NCPUs) {
		return PendQueProcJLimit
	}
	return 0
}

// perCPU is a per-processor limit on a host, rounded up (JL/P 0.5 on 4
// CPUs is 2 slots, on 1 CPU 1).
func perCPU(limit float64, ncpus int) int {
	return int(math.Ceil(limit*float64(max(ncpus, 1)) - 1e-9))
}

type userHostFilter struct{}

func (userHostFilter) Name() string     { return "host-user-slots" }
func (userHostFilter) Kind() FilterKind { return Transient }
func (userHostFilter) Filter(p *pass, c *class, jc *jobCtx, h *hostCtx) int32 {
	if !p.hostUsers {
		return 0
	}
	code, _ := p.userHostRoom(jc, h)
	return code
}

type hostLimitFilter struct{}

func (hostLimitFilter) Name() string     { return "host-limits" }
func (hostLimitFilter) Kind() FilterKind { return Transient }
func (hostLimitFilter) Filter(p *pass, c *class, jc *jobCtx, h *hostCtx) int32 {
	code, _ := p.limits.hostRoom(p, jc, h)
	return code
}

type selectFilter struct{}

func (selectFilter) Name() string     { return "select" }
func (selectFilter) Kind() FilterKind { return Parked }
func (selectFilter) Filter(p *pass, c *class, jc *jobCtx, h *hostCtx) int32 {
	if !c.dynSelect || h.vals.Num == nil {
		return 0
	}
	if !c.req.Select(&h.vals) {
		return PendHostResReq
	}
	return 0
}

// rusageFilter checks that some rusage alternative can be reserved on the
// host: every host-based resource of it available (values already net of
// reservations).
type rusageFilter struct{}

func (rusageFilter) Name() string     { return "rusage" }
func (rusageFilter) Kind() FilterKind { return Parked }
func (rusageFilter) Filter(p *pass, c *class, jc *jobCtx, h *hostCtx) int32 {
	if len(c.rusage) == 0 || h.vals.Num == nil {
		return 0
	}
	_, code := p.rusageAlternative(c.rusage, jc, h, 0)
	return code
}
