package api

// Resize actions (EvJobResize.Action, ResizeRequest.Op).
const (
	// ResizeOpGrow: the scheduler added Hosts to the job's allocation.
	ResizeOpGrow int32 = 1
	// ResizeOpRelease: bresize release took Hosts out of the allocation.
	ResizeOpRelease int32 = 2
	// ResizeOpRequest: bresize request made a pending allocation request
	// of Min to Max more tasks (the job stops growing by itself).
	ResizeOpRequest int32 = 3
	// ResizeOpCancel: bresize cancel cancelled the pending request (an
	// autoresizable job stops growing by itself for the rest of its run).
	ResizeOpCancel int32 = 4
)

// EvJobResize changes a running resizable job (bsub -ar, bresize): its
// allocation (grow, release) or its pending allocation request (request,
// cancel). Grow and release carry the slots added or released per host;
// the state's allocation is the job's execution hosts, so every count of
// started slots (bhosts, limits, preemption) follows it.
type EvJobResize struct {
	JobID    int64       `wire:"1"`
	Index    int32       `wire:"2"`
	Action   int32       `wire:"3"`
	Hosts    []*ExecHost `wire:"4"`
	Min      int32       `wire:"5"` // ResizeRequest: additional tasks
	Max      int32       `wire:"6"`
	RunCount int32       `wire:"7"`
	// CancelPending is bresize release/request -c: the pending request
	// is cancelled first.
	CancelPending bool `wire:"8"`
	// NotifyCmd replaces the job's resize notification command when
	// SetNotify is set (bresize -rnc; -rncn sets it to "").
	NotifyCmd string `wire:"9"`
	SetNotify bool   `wire:"10"`
}

// ResizeRequest is bresize: Op is ResizeOpRelease (Hosts "host" or "N*host"
// entries, or All), ResizeRequest (Min, Max) or ResizeOpCancel.
type ResizeRequest struct {
	Job           *JobRef  `wire:"1"`
	Op            int32    `wire:"2"`
	Hosts         []string `wire:"3"`
	All           bool     `wire:"4"`
	Min           int32    `wire:"5"`
	Max           int32    `wire:"6"`
	CancelPending bool     `wire:"7"`
	NotifyCmd     string   `wire:"8"`
	SetNotify     bool     `wire:"9"`
}

// ResizeNotice tells a resized job's first execution host its new
// allocation (JobSignal with ActResize): Event is "grow" or "shrink",
// Changed the slots added or released, Alloc the whole allocation, Cmd the
// notification command to run ("" none).
type ResizeNotice struct {
	Event   string      `wire:"1"`
	Changed []*ExecHost `wire:"2"`
	Alloc   []*ExecHost `wire:"3"`
	Cmd     string      `wire:"4"`
}
