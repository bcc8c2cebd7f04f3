package sched

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/basalt-lsf/basalt/api"
	"github.com/basalt-lsf/basalt/internal/config"
	"github.com/basalt-lsf/basalt/internal/mbd/depend"
	"github.com/basalt-lsf/basalt/internal/mbd/sched/fairshare"
	"github.com/basalt-lsf/basalt/internal/mbd/sched/pool"
	"github.com/basalt-lsf/basalt/internal/mbd/state"
	"github.com/basalt-lsf/basalt/internal/resreq"
)

// Host is a batch host as the scheduler sees it.
type Host struct {
	Name string
	Cfg  *config.BatchHost
	// Status is "ok" when the host can take jobs, otherwise LSF's bhosts
	// status (unavail, unreach, closed_Adm...).
	Status string
	NCPUs  int
	Type   string
	Model  string
	// MaxSlots is the host's MXJ, -1 unlimited.
	MaxSlots int
	// Values are the host's resources and load (resreq table indices). The
	// scheduler copies them per pass and updates slots/maxslots and
	// reserved amounts in its copy.
	Values *resreq.Host
	// LastDispatch is when a job was last started here (JOB_ACCEPT_INTERVAL).
	LastDispatch time.Time
	// GPUs are the host's GPUs as its LIM detected them (gpu.go).
	GPUs []*api.GPUDevice
}

// Input is everything one pass looks at.
type Input struct {
	Now    time.Time
	Config *config.Config
	Table  *resreq.Table
	Hosts  []*Host // in cluster order
	View   *state.View
	// Strict is LSF_STRICT_RESREQ.
	Strict bool
	// Unit is LSF_UNIT_FOR_LIMITS.
	Unit string
	// SameHosts says that Hosts are the objects the last pass was given,
	// none changed since but for LastDispatch (the simulator's hosts): the
	// pass may keep what it derived from them. A caller whose hosts' load
	// or status change gives new ones and leaves it false.
	SameHosts bool
	// NoReasons says that the caller reads no pending reasons (the
	// simulator): a job that cannot start for want of free slots is then
	// passed by unseen whenever it may be, and Plan.Reasons holds only the
	// reasons of the jobs looked at. Decisions are the same either way.
	NoReasons bool
	// RunningUsage returns the latest reported usage of a started job
	// (fairshare CPU time); nil, or a nil result, means none known.
	RunningUsage func(state.Key) *api.Usage
}

// Dispatch starts one job.
type Dispatch struct {
	Key   state.Key
	Queue string
	Hosts []*api.ExecHost
	// ExecRusage is the rusage alternative reserved, as LSB_EXEC_RUSAGE
	// shows it ("mem 100 lic 1"); empty without rusage.
	ExecRusage string
	// Backfill is set when the job runs in slots reserved for another job.
	Backfill bool
	// RunLimit is an interruptible backfill job's run limit
	// (INTERRUPTIBLE_BACKFILL, whole seconds): it ends by the earliest
	// predicted start of the reservations whose slots it may use, and by
	// the queue's RUNLIMIT. Zero for every other dispatch.
	RunLimit time.Duration
	// Preempt lists the jobs suspended (or terminated) to make room.
	Preempt []state.Key
	// EffectiveResReq is the job's requirement as scheduled (merged with
	// its application profile's and queue's, the defaults written out).
	EffectiveResReq string
}

// Preemption is a running job to suspend (SUSP_RESCHED_PREEMPT, with its
// queue's SUSPEND action) or, with TERMINATE_WHEN=PREEMPT, to terminate
// (TERM_PREEMPT), so that a job of a higher priority queue can start.
type Preemption struct {
	Key       state.Key
	Host      string // the job's first execution host
	By        state.Key
	RunCount  int32
	Terminate bool
}

// Resume is a preempted job to resume: its slots are free again.
type Resume struct {
	Key      state.Key
	Host     string
	RunCount int32
}

// Suspend reason and termination reason of preemption.
const (
	SuspReschedPreempt int32 = 0x10
	TermPreempt              = "TERM_PREEMPT"
)

// HostReservation is what bhosts -l shows per host: resources reserved by
// rusage (Total = load minus reservations, Reserved = the sum reserved)
// and slots held by processor reservations (RSV).
type HostReservation struct {
	Slots     int
	Resources []ReservedValue
}

// ReservedValue is an amount of a resource reserved on a host.
type ReservedValue struct {
	Index  string
	Amount float64
}

// Plan is the result of a pass.
type Plan struct {
	Dispatches  []Dispatch
	Preemptions []Preemption
	Resumes     []Resume
	// Resizes are the slots added to running resizable jobs (resize.go).
	Resizes []Resize
	// Reasons are the pending reasons of the jobs that stay pending. Jobs
	// with the same reasons share one slice: never modify it.
	Reasons *Reasons
	// Reserved are the reservations in force after the pass, by host (hosts
	// without any are absent).
	Reserved map[string]*HostReservation
	// SlotReservations lists the pending jobs holding reserved slots.
	SlotReservations map[state.Key][]*api.ExecHost
	// QueueShares are the fairshare accounts of fairshare queues, and
	// PartitionShares those of host partitions (bqueues -l, bhpart).
	QueueShares     map[string][]*api.ShareAccount
	PartitionShares map[string][]*api.ShareAccount
	// PoolAllocation is each pool queue's entitled slots this pass.
	PoolAllocation map[string]int
	// Limits returns lsb.resources limits and their usage after the pass
	// (blimits), computed when called; safe from any goroutine.
	Limits func() []*api.LimitUsage
	// NextWake is the earliest time a pass may decide differently without
	// any event (a begin time, a window opening, a reservation expiring);
	// zero when none.
	NextWake time.Time
	// Examined counts jobs the pass looked at (for metrics and tests).
	Examined int
}

// Scheduler runs passes and keeps, between them, caches (which never change
// a decision) and the little state LSF's policies carry from one pass to
// the next (memory.go): fairshare usage history, processor reservations,
// pool usage, preemptions and resumptions in flight.
type Scheduler struct {
	Gates []Gate
	// Filters run in order; the first that rejects a host names the reason.
	// Static filters must come before the others (see Filter).
	Filters []Filter

	// noCache makes every job build its classes afresh (tests compare it
	// with the cached scheduler: caches must never change a decision).
	noCache bool

	gen   *config.Config // caches are for this configuration
	reqs  map[reqKey]*reqEntry
	specs map[*state.Spec]specReq
	deps  map[*state.Spec]*depend.Expr
	sweep int

	mem memory

	// The pass's host views, kept from pass to pass (buildHosts).
	hostBuf   []hostCtx
	hostPtrs  []*hostCtx
	byName    map[string]*hostCtx
	hostNames []string
	lastHosts []*Host // the hosts of the last pass (buildHosts)
	// passGen numbers the passes; fastOK says the last pass carried its
	// count with the same hosts, dirty are the hosts it changed and
	// endFree its free totals at its end (renewDirty).
	passGen uint32
	fastOK  bool
	dirty   []int32
	endFree freeTotals
	// hostsPlain: no host has a dispatch window or load thresholds.
	hostsPlain bool
	// keptStatics are static parts kept from pass to pass (staticsKept).
	keptStatics map[staticKey]*staticPart
	// startedInfo is what countStarted derived from each started job's
	// record (pass.go), for this configuration and host list.
	startedInfo map[*state.Job]startedInfo
	// carry is the last pass's count of the started jobs (carry.go).
	carry *carried
	// sortedKeep are host orders of earlier passes by order signature
	// (sortedBy); sortScratch gathers the keys' values.
	sortedKeep  map[string]*keptOrder
	sortScratch []float64
	// leastScratch holds leastLeft's answer (order.go).
	leastScratch []int32

	published atomic.Pointer[Published]

	feedMu    sync.Mutex
	feed      []usageRecord
	forgotten []state.Key
}

// New returns a scheduler with the standard gates and filters.
func New() *Scheduler {
	return &Scheduler{Gates: DefaultGates(), Filters: DefaultFilters()}
}

// memory is what passes hand on to the next one.
type memory struct {
	hist       fairshare.History
	pools      map[string]*pool.Accumulator
	rsv        map[state.Key]*slotReservation
	noReserve  map[state.Key]time.Time // reservation expired: not before this time
	preempting map[state.Key]inflight
	resuming   map[state.Key]inflight
	backfill   map[state.Key]bool // running jobs started by backfill
	rebuilt    bool
	recorded   map[state.Key]int32 // last run fed to the history
	// scans are what the last pass derived from each queue's pending
	// list; their job lists are parts of lastBlock (and of an earlier
	// block when the pass found more jobs than counted); spareBlock is the
	// block the pass before filled: the next pass fills it again. scanSeq
	// numbers the lists walked (reqEntry.scan).
	scans                 map[string]*queueScan
	lastBlock, spareBlock []pendJob
	scanSeq               uint64
	// resolved counts the pending jobs of the last pass whose requirement
	// was not taken from the lists of the pass before (tests).
	resolved int
	// taken counts the queues whose list the last pass took whole from
	// the pass before (tests).
	taken int
	// dispatched is how many jobs the last pass dispatched: the next
	// plan's Dispatches start with room for as many.
	dispatched int
	// fullReasons are the reasons of the last pass that looked at every
	// pending job (at time lastFull): a pass that stops looking once no
	// job can start carries them over for the jobs it passes by.
	fullReasons *Reasons
	lastFull    time.Time
}

type inflight struct {
	at  time.Time
	run int32
}

// Published is what the last pass left for the commands to show: bhosts -l
// reservations, bqueues -l and bhpart share accounts, pool allocations and
// processor reservations. It is replaced as a whole after every pass and
// never modified.
type Published struct {
	Reserved         map[string]*HostReservation
	SlotReservations map[state.Key][]*api.ExecHost
	QueueShares      map[string][]*api.ShareAccount
	PartitionShares  map[string][]*api.ShareAccount
	PoolAllocation   map[string]int
	Limits           func() []*api.LimitUsage
}

// Published returns what the last pass published (nil before the first).
func (s *Scheduler) Published() *Published { return s.published.Load() }

func (s *Scheduler) publish(pl *Plan) {
	s.published.Store(&Published{Reserved: pl.Reserved, SlotReservations: pl.SlotReservations,
		QueueShares: pl.QueueShares, PartitionShares: pl.PartitionShares, PoolAllocation: pl.PoolAllocation,
		Limits: pl.Limits})
}
